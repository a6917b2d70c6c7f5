"""Build a PituiApp fed by recorded events through the real bridge."""

from __future__ import annotations

from collections.abc import Sequence

from textual import events
from textual.pilot import Pilot
from textual.widgets import Input

from pitui.agent.events import AgentEvent
from pitui.ui.app import PituiApp
from pitui.ui.live.bridge import Listener, Unsubscribe
from pitui.ui.theme import discover_themes
from pitui.ui.view.session_info import SessionInfo
from pitui.ui.widgets.composer import Composer

INFO = SessionInfo(
    cwd="/srv/proj",
    git_branch="main",
    session_name="Port work",
    model_id="claude-sonnet-4-5",
    thinking_level="high",
    context_window=200_000,
)


class FeedSource:
    """An event source tests push recorded events through, a few at a time."""

    def __init__(self) -> None:
        self.listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> Unsubscribe:
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener)

    def emit(self, events: Sequence[AgentEvent]) -> None:
        for event in events:
            for listener in list(self.listeners):
                listener(event)


async def ready(pilot: Pilot[None]) -> None:
    """Wait until the app is ready for keys: the real composer has replaced the stand-in
    of the first frame (it is mounted right after that frame) and the keys held until
    then have been sent on. The one wait for tests that use the composer right after
    start (keys sent before it are held and reach the composer in order anyway)."""
    app = pilot.app
    assert isinstance(app, PituiApp)
    for _ in range(300):
        if app.main.query(Composer) and not app.key_gate.holding:
            return
        await pilot.pause(0.01)
    raise AssertionError("the composer was never mounted")


async def wait_subscribed(pilot: Pilot[None], source: FeedSource) -> None:
    """Wait until the app's bridge listens (it subscribes once the main screen is ready)
    and the app is ready for keys (:func:`ready`)."""
    for _ in range(100):
        if source.listeners:
            await ready(pilot)
            return
        await pilot.pause(0.01)
    raise AssertionError("the app never subscribed to the event source")


def make_app(source: FeedSource, info: SessionInfo = INFO) -> PituiApp:
    """An app with the built-in themes only, fed by ``source``."""
    return PituiApp(event_source=source.subscribe, info=info, themes=discover_themes([]))


async def settle(pilot: Pilot[None]) -> None:
    """Let the bridge's frame timer fire and the widgets update."""
    await pilot.pause(0.05)
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def freeze(app: PituiApp) -> None:
    """Make the screen deterministic for snapshots (no cursor blink): the composer, and
    every field on the screen now (a find bar opened by the keys; call it again after them,
    or a loaded machine may capture the field's cursor in its off phase)."""
    app.query_one(Composer).cursor_blink = False
    for field in app.screen.query(Input):
        field.cursor_blink = False


_KEY_NAMES = {" ": "space", ",": "comma", ".": "full_stop", "/": "slash", "!": "exclamation_mark"}


def burst(app: PituiApp, *keys: str) -> None:
    """Deliver ``keys`` as one burst, as a fast typist or a terminal's paste would.

    Unlike ``pilot.press`` (which waits for the app to go idle after every key), all the
    events are queued at once. A key is a single character or a Textual key name
    (``backspace``, ``left``, ``ctrl+w``).
    """
    driver = app._driver
    assert driver is not None
    for key in keys:
        if len(key) == 1:
            driver.send_message(events.Key(_KEY_NAMES.get(key, key), key))
        else:
            driver.send_message(events.Key(key, "\r" if key == "enter" else None))
