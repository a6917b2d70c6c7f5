"""A PituiApp on a real AgentSession (demo model + a fake keyed provider), for command tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from textual.pilot import Pilot

from pitui.ai.models import ModelRegistry
from pitui.ai.types import Model, ModelCost
from pitui.core.agent_session import AgentSession
from pitui.core.keybindings import Keybindings
from pitui.core.session.entries import ModelChangeEntry, ThinkingLevelChangeEntry
from pitui.core.session_setup import SessionOptions, create_agent_session
from pitui.ui.app import PituiApp
from pitui.ui.live.session import LiveSession
from pitui.ui.theme import discover_themes
from pitui.ui.view.state import NoticeItem
from pitui.ui.widgets.composer import Composer

FAKE = Model(
    id="fake-1",
    name="Fake One",
    api="openai-completions",
    provider="fakeco",
    base_url="http://127.0.0.1:9",
    reasoning=False,
    input=["text"],
    cost=ModelCost(),
    context_window=32_000,
    max_tokens=4_096,
)


@pytest.fixture(autouse=True)
def no_local_ollama(monkeypatch: pytest.MonkeyPatch) -> None:
    """The model picker probes Ollama: point it at a closed port, not this machine's."""
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")


def make_registry() -> ModelRegistry:
    """The built-in catalogue plus ``fakeco/fake-1``, whose provider has a key."""
    registry = ModelRegistry()
    registry.add_models([FAKE.model_copy(deep=True)])
    registry.auth.set_runtime_api_key("fakeco", "sk-fake-test-key")
    return registry


async def make_session(tmp: Path) -> AgentSession:
    """A session on the demo model with its file under ``tmp``."""
    options = SessionOptions(
        cwd=tmp, model="demo/demo", registry=make_registry(), session_dir=tmp / "sessions"
    )
    return await create_agent_session(options)


def make_app(session: AgentSession, keybindings: Keybindings | None = None) -> PituiApp:
    """The app attached to ``session`` (keybindings from the file unless given)."""
    live = LiveSession(session)
    return PituiApp(live=live, themes=discover_themes([]), keybindings=keybindings)


@asynccontextmanager
async def running(
    session: AgentSession, *prompts: str, size: tuple[int, int] = (120, 36)
) -> AsyncIterator[tuple[PituiApp, Pilot[None]]]:
    """The app on ``session`` running headless at ``size``, settled, once each of
    ``prompts`` was sent and answered."""
    app = make_app(session)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for text in prompts:
            await submit(pilot, text)
        yield app, pilot


async def settle(pilot: Pilot[None]) -> None:
    """Let workers, screens and notices finish."""
    for _ in range(3):
        await pilot.pause(0.02)
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def wait_until(pilot: Pilot[None], predicate: Callable[[], object], what: str) -> None:
    """Pause until ``predicate()`` holds (fail after ~5 s). A widget the predicate asks
    for that is not mounted yet (a screen still composing) counts as "not yet"."""
    from textual.css.query import NoMatches

    for _ in range(250):
        try:
            if predicate():
                return
        except NoMatches:
            pass
        await pilot.pause(0.02)
    raise AssertionError(f"timed out waiting for {what}")


async def submit(pilot: Pilot[None], text: str) -> None:
    """Type ``text`` into the composer as the user would and send it."""
    composer = pilot.app.query_one(Composer)
    composer.load_text(text)
    composer.submit()
    await settle(pilot)


def notices(app: PituiApp) -> list[str]:
    """The text of every notice in the conversation."""
    return [item.text for item in app.chat.items if isinstance(item, NoticeItem)]


def model_changes(session: AgentSession) -> list[tuple[str, str]]:
    """``(provider, id)`` of every model_change entry in the session file."""
    return [
        (e.provider, e.model_id)
        for e in session.store.get_entries()
        if isinstance(e, ModelChangeEntry)
    ]


def thinking_changes(session: AgentSession) -> list[str]:
    """The level of every thinking_level_change entry."""
    return [
        e.thinking_level
        for e in session.store.get_entries()
        if isinstance(e, ThinkingLevelChangeEntry)
    ]
