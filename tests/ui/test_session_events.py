"""Session-level events (retry, compaction, denials, ``!`` commands) and the app's intents."""

from __future__ import annotations

from collections.abc import Callable

from pitui.agent.messages import AgentMessage
from pitui.core.messages import BashExecutionMessage
from pitui.core.session_events import (
    AutoCompactionEndEvent,
    AutoCompactionStartEvent,
    AutoRetryEndEvent,
    AutoRetryStartEvent,
    SessionEvent,
    ToolDeniedEvent,
    UserBashStartEvent,
    UserBashUpdateEvent,
)
from pitui.ui.app import PituiApp
from pitui.ui.live.session import LiveSession
from pitui.ui.theme import discover_themes
from pitui.ui.view.chat_state import ChatState
from pitui.ui.view.progress import any_running, running
from pitui.ui.view.reducer import reduce_all
from pitui.ui.view.state import BashItem, CompactionItem, NoticeItem, ProgressItem
from pitui.ui.widgets.composer import Composer
from pitui.ui.widgets.composer_parts import ActivityLine, QueueView
from tests.ui.harness import INFO, settle
from tests.ui.script import Script


def test_retry_activity_and_final_failure() -> None:
    start = AutoRetryStartEvent(attempt=1, max_attempts=3, delay_ms=2000, error_message="529")
    state = reduce_all(ChatState(), [*Script().start().events, start])
    assert state.activity == "Retrying (1/3) in 2s... (escape to cancel)"
    end = AutoRetryEndEvent(success=False, attempt=3, final_error="overloaded")
    state = reduce_all(state, [end])
    assert state.activity == "Working..."
    notice = state.items[-1]
    assert isinstance(notice, NoticeItem)
    assert notice.text == "Error: Retry failed after 3 attempts: overloaded"


def test_auto_compaction_shows_a_progress_card_then_the_summary_card() -> None:
    state = reduce_all(ChatState(), [AutoCompactionStartEvent(reason="overflow")])
    card = running(state, "compaction")
    assert card is not None and card.title == "Context overflow detected, auto-compacting"
    assert card.cancel_hint == "Esc to cancel" and "retried" in card.detail
    assert state.activity is None
    state = reduce_all(state, [AutoCompactionEndEvent(aborted=True)])
    assert running(state, "compaction") is None and not any_running(state)
    last = state.items[-1]
    assert isinstance(last, ProgressItem) and last.outcome == "Auto-compaction cancelled"
    state = reduce_all(state, [AutoCompactionStartEvent(reason="threshold")])
    threshold = running(state, "compaction")
    assert threshold is not None and threshold.id != card.id  # a new card, at the end
    assert threshold.title == "Auto-compacting context"
    result = {"summary": "## Goal\n...", "tokensBefore": 182_000}
    state = reduce_all(state, [AutoCompactionEndEvent(result=result)])
    item = state.items[-1]
    assert isinstance(item, CompactionItem) and item.tokens_before == 182_000
    assert not item.expanded and running(state, "compaction") is None
    assert state.usage.context_tokens is None  # shown as ?/window until the next reply
    failed = reduce_all(
        state,
        [AutoCompactionStartEvent(reason="threshold"), AutoCompactionEndEvent(error_message="x")],
    )
    last = failed.items[-1]
    assert not any_running(failed)
    assert isinstance(last, ProgressItem) and (last.outcome, last.level) == ("x", "error")


def test_denied_card_stays_denied() -> None:
    s = Script().start().user("q").assistant().tool_call("c1", "edit", {"path": "a"})
    s.end("toolUse").tool_start("c1", "edit", {"path": "a"})
    denied = ToolDeniedEvent(tool_call_id="c1", tool_name="edit", message="not that file")
    tail = Script().tool_end("c1", "edit", "Tool execution was blocked: not that file", True)
    state = reduce_all(ChatState(), [*s.events, denied, *tail.events])
    card = state.tool_card("c1")
    assert card is not None and card.state == "denied"


def test_user_bash_becomes_one_item() -> None:
    events: list[SessionEvent] = [
        UserBashStartEvent(command="ls"),
        UserBashUpdateEvent(output="a\n"),
    ]
    state = reduce_all(ChatState(), events)
    running = state.items[-1]
    assert isinstance(running, BashItem) and running.running and running.output == "a\n"
    message = BashExecutionMessage(command="ls", output="a\nb", exit_code=0)
    state = reduce_all(state, Script().custom(message).events)
    bash_items = [i for i in state.items if isinstance(i, BashItem)]
    assert len(bash_items) == 1
    assert not bash_items[0].running and bash_items[0].output == "a\nb"
    assert state.bash_id is None


class RecordingSession:
    """A SessionPort that records intents and replays a scripted run on ``prompt``."""

    def __init__(self, run: list[SessionEvent]) -> None:
        self.listeners: list[Callable[[SessionEvent], None]] = []
        self.run = run
        self.calls: list[tuple[str, str]] = []
        self.queued: list[str] = []

    def subscribe(self, listener: Callable[[SessionEvent], None]) -> Callable[[], None]:
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener)

    @property
    def messages(self) -> list[AgentMessage]:
        return []

    @property
    def is_streaming(self) -> bool:
        return False

    def emit(self, events: list[SessionEvent]) -> None:
        for event in events:
            for listener in list(self.listeners):
                listener(event)

    async def prompt(self, text: str) -> None:
        self.calls.append(("prompt", text))
        self.emit(self.run)

    def steer(self, text: str) -> None:
        self.calls.append(("steer", text))
        self.queued.append(text)

    def follow_up(self, text: str) -> None:
        self.calls.append(("follow_up", text))
        self.queued.append(text)

    def dequeue_all(self) -> list[str]:
        queued, self.queued = self.queued, []
        return queued

    async def run_bash(self, command: str, *, exclude_from_context: bool = False) -> None:
        self.calls.append(("bash!!" if exclude_from_context else "bash", command))

    def abort(self) -> None:
        self.calls.append(("abort", ""))


async def test_intents_prompt_steer_abort_restore_queue() -> None:
    busy_run = Script().start().user("hi").assistant().text("thinking about it", end=False)
    session = RecordingSession(list(busy_run.events))
    app = PituiApp(session=session, info=INFO, themes=discover_themes([]))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        composer = app.query_one(Composer)
        for text, keys in (("hi", ["enter"]), ("also", ["enter"]), ("later", ["alt+enter"])):
            composer.load_text(text)
            await pilot.press(*keys)
            await settle(pilot)
        assert session.calls == [("prompt", "hi"), ("steer", "also"), ("follow_up", "later")]
        assert app.chat.busy
        assert str(app.query_one(ActivityLine).content) == "Working..."
        queue = str(app.query_one(QueueView).content)
        assert "Steering: also" in queue and "Follow-up: later" in queue
        composer.load_text("draft")
        await pilot.press("escape")
        await settle(pilot)
        assert session.calls[-1] == ("abort", "")
        assert composer.text == "also\n\nlater\n\ndraft"
        assert not app.query_one(QueueView).display
        composer.load_text("!!ls -la")
        await pilot.press("enter")
        await settle(pilot)
        assert session.calls[-1] == ("bash!!", "ls -la")


async def test_attach_session_after_first_frame() -> None:
    transcript = Script().start().user("earlier").assistant().text("earlier answer").end()
    session = RecordingSession([])
    session_messages = list(transcript.run_messages)
    app = PituiApp(themes=discover_themes([]), info=INFO)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert [i.text for i in app.chat.items if isinstance(i, NoticeItem)]  # no session yet

        class Resumed(RecordingSession):
            @property
            def messages(self) -> list[AgentMessage]:
                return session_messages

        resumed = Resumed([])
        await app.attach_session(LiveSession.of_port(resumed))
        await settle(pilot)
        assert [type(i).__name__ for i in app.chat.items] == ["UserItem", "AssistantItem"]
        assert resumed.listeners  # the bridge listens
        resumed.emit(list(Script().start().events))
        await settle(pilot)
        assert app.chat.busy
    assert not session.listeners
