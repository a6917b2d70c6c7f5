"""Benchmark: streaming a long reply into the TUI, with and without a long conversation above.

A 914-chunk Markdown reply (paragraphs, lists, code fences) is fed as AgentEvents through the
app's real :class:`~pitui.ui.live.bridge.EventBridge`, one ``message_update`` per chunk, by a
producer task that yields to the event loop after every chunk (as the agent loop does while
reading a network stream). The app runs headless (``App.run_test``) at 120x36.

For 0, 100 and 1,000 earlier messages (user / assistant with a tool call / tool result /
assistant rounds, loaded as a resumed session would be) it prints:

- the wall time from the first chunk to the final text shown (median of ``--runs``) and its
  ratio to the no-history case (target <= 1.5x);
- the p99 latency of a keypress echo in the composer while the reply streams (target
  < 50 ms): a key event is sent to the driver the way ``Pilot.press`` does (without its
  idle waits), and the time until the composer's text holds the character is recorded.

Run: ``python bench/tui_stream.py [--runs 3] [--sizes 0,100,1000]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from textual import events
from textual._path import CSSPathType

from pitui.agent.events import (
    AgentEndEvent,
    AgentStartEvent,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    TurnStartEvent,
)
from pitui.agent.messages import AgentMessage
from pitui.ai import events as ev
from pitui.ai.types import (
    AssistantMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pitui.core.session_events import SessionEvent
from pitui.ui import app as app_module
from pitui.ui.app import PituiApp
from pitui.ui.live.bridge import AgentEventBatch, Listener, Unsubscribe
from pitui.ui.theme import discover_themes
from pitui.ui.view.reducer import state_from_messages
from pitui.ui.widgets.assistant_text import AssistantMarkdown
from pitui.ui.widgets.composer import Composer
from pitui.ui.widgets.conversation import ConversationView

CHUNKS = 914
RATIO_TARGET = 1.5
KEY_P99_TARGET_MS = 50.0
SIZE = (120, 36)
KEY_INTERVAL = 0.01

_TEXT = (
    "the agent reads the file then edits the function so that the tests pass and the "
    "session keeps every message in order while the widget renders markdown as it streams"
)
_WORDS = _TEXT.split()


def reply_text(chunks: int = CHUNKS) -> list[str]:
    """A deterministic Markdown reply cut into ``chunks`` token-sized pieces."""
    pieces: list[str] = []
    section = 0
    while len(pieces) < chunks:
        section += 1
        pieces.append(f"\n\n## Step {section}\n\n")
        for k in range(24):
            pieces.append(f"{_WORDS[(section * 7 + k) % len(_WORDS)]} ")
        pieces.append("\n\n- first point about `code`\n- second **bold** point\n\n")
        pieces.append("```python\n")
        for k in range(4):
            pieces.append(f"def step_{section}_{k}(x):\n    return x + {k}\n")
        pieces.append("```\n")
    return pieces[:chunks]


def history(n: int) -> list[AgentMessage]:
    """``n`` earlier messages in rounds of user / assistant(tool call) / result / assistant."""
    messages: list[AgentMessage] = []
    ts = 1_700_000_000_000
    k = 0
    while len(messages) < n:
        ts += 10
        call_id = f"call_{k}"
        body = " ".join(_WORDS[(k + j) % len(_WORDS)] for j in range(40))
        round_: list[AgentMessage] = [
            UserMessage(content=[TextContent(text=f"Question {k}: {body[:80]}")], timestamp=ts),
            AssistantMessage(
                api="demo",
                provider="demo",
                model="demo",
                content=[
                    TextContent(text=f"Let me look. {body}"),
                    ToolCall(id=call_id, name="read", arguments={"path": f"src/mod_{k}.py"}),
                ],
                stop_reason="toolUse",
                timestamp=ts + 1,
            ),
            ToolResultMessage(
                tool_call_id=call_id,
                tool_name="read",
                content=[TextContent(text="\n".join(f"line {j}" for j in range(30)))],
                timestamp=ts + 2,
            ),
            AssistantMessage(
                api="demo",
                provider="demo",
                model="demo",
                content=[TextContent(text=f"## Answer {k}\n\n{body}\n\n- one\n- two\n")],
                timestamp=ts + 3,
            ),
        ]
        messages.extend(round_)
        k += 1
    return messages[:n]


def stream_events(pieces: Sequence[str], ts: int) -> list[SessionEvent]:
    """The AgentEvents of one run that streams ``pieces`` as a single text block."""
    user = UserMessage(content=[TextContent(text="Explain the plan in detail.")], timestamp=ts)
    base = {"api": "demo", "provider": "demo", "model": "demo", "timestamp": ts + 1}
    partial = AssistantMessage(**base)  # type: ignore[arg-type]
    out: list[SessionEvent] = [
        AgentStartEvent(),
        TurnStartEvent(),
        MessageStartEvent(message=user),
        MessageEndEvent(message=user),
        MessageStartEvent(message=partial),
    ]
    text = ""
    start = ev.TextStartEvent(partial=partial, content_index=0)
    snapshot = AssistantMessage(**base, content=[TextContent(text="")])  # type: ignore[arg-type]
    out.append(MessageUpdateEvent(message=snapshot, assistant_message_event=start))
    for piece in pieces:
        text += piece
        snapshot = AssistantMessage(**base, content=[TextContent(text=text)])  # type: ignore[arg-type]
        delta = ev.TextDeltaEvent(partial=snapshot, content_index=0, delta=piece)
        out.append(MessageUpdateEvent(message=snapshot, assistant_message_event=delta))
    final = AssistantMessage(**base, content=[TextContent(text=text)])  # type: ignore[arg-type]
    end = ev.TextEndEvent(partial=final, content_index=0, content=text)
    out.append(MessageUpdateEvent(message=final, assistant_message_event=end))
    out += [MessageEndEvent(message=final), AgentEndEvent(messages=[user, final])]
    return out


class Source:
    """An event source the producer pushes events into (what AgentSession.subscribe gives)."""

    def __init__(self) -> None:
        self.listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> Unsubscribe:
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener)

    async def produce(self, app: BenchApp, stream: Sequence[SessionEvent]) -> None:
        """Deliver events one per frame, as a model streaming slower than 60 chunks/s does.

        Each event is flushed through the bridge at once (no waiting for the frame timer)
        and the next one is sent when the app has applied it, so the time measured is the
        UI's own cost of showing 914 separate updates.
        """
        bridge = app.bridge
        assert bridge is not None
        for sent, event in enumerate(stream, start=1):
            for listener in list(self.listeners):
                listener(event)
            bridge.flush()
            while app.batches < sent:  # noqa: ASYNC110 - polling is the cheapest probe here
                await asyncio.sleep(0)


def _css_files() -> list[str]:
    paths = PituiApp.CSS_PATH
    if paths is None:
        return []
    return [str(p) for p in paths] if isinstance(paths, list) else [str(paths)]


class BenchApp(PituiApp):
    """The app, counting the events it has applied."""

    # Textual resolves relative CSS paths beside the subclass: point at the app's own files.
    CSS_PATH: ClassVar[CSSPathType | None] = [
        Path(app_module.__file__).parent / str(p) for p in _css_files()
    ]
    batches = 0

    async def on_agent_event_batch(self, message: AgentEventBatch) -> None:
        # Textual calls the handler of every class in the MRO: without this, the app's
        # own would run again after the super() call, and every batch be applied twice.
        message.prevent_default()
        await super().on_agent_event_batch(message)
        self.batches += len(message.events)


def _final_text_shown(app: PituiApp, text: str) -> bool:
    pane = app.query_one(ConversationView)
    for widget in reversed(pane.children):
        if isinstance(widget, AssistantMarkdown):
            shown = widget.shown_text == text and not widget.has_class("-streaming")
            return shown and not app.chat.busy
    return False


async def _wait(predicate: object, limit: float = 60.0) -> None:
    assert callable(predicate)
    deadline = time.perf_counter() + limit
    while not predicate():
        if time.perf_counter() > deadline:
            raise TimeoutError("the app did not reach the expected state")
        await asyncio.sleep(0.001)


async def _press_sampler(app: PituiApp, done: asyncio.Event, samples: list[float]) -> None:
    """Send ``x`` every KEY_INTERVAL while streaming; record ms until the composer shows it."""
    composer = app.query_one(Composer)
    driver = app._driver
    assert driver is not None
    while not done.is_set():
        before = composer.text.count("x")
        key = events.Key("x", "x")
        key.set_sender(app)
        t0 = time.perf_counter()
        driver.send_message(key)
        while composer.text.count("x") == before:  # noqa: ASYNC110 - we time this loop
            await asyncio.sleep(0.0005)
        samples.append((time.perf_counter() - t0) * 1000)
        if len(composer.text) > 200:
            composer.clear()
        await asyncio.sleep(KEY_INTERVAL)


async def run_once(n_history: int, *, with_keys: bool) -> tuple[float, float, list[float]]:
    """Stream the reply once after ``n_history`` messages; (wall ms, CPU ms, key latencies)."""
    source = Source()
    app = BenchApp(event_source=source.subscribe, themes=discover_themes([]))
    pieces = reply_text()
    stream = stream_events(pieces, 1_800_000_000_000)
    full = "".join(pieces)
    samples: list[float] = []
    async with app.run_test(size=SIZE) as pilot:
        await _wait(lambda: bool(source.listeners))
        # As on launch: the view is rebuilt from the session's transcript (maybe empty).
        await app.rebuild(state_from_messages(history(n_history)))
        await pilot.pause()
        app.query_one(Composer).focus()
        done = asyncio.Event()
        sampler = asyncio.create_task(_press_sampler(app, done, samples)) if with_keys else None
        t0, c0 = time.perf_counter(), time.process_time()
        await source.produce(app, stream)
        await _wait(lambda: _final_text_shown(app, full))
        wall = (time.perf_counter() - t0) * 1000
        cpu = (time.process_time() - c0) * 1000
        done.set()
        if sampler is not None:
            await sampler
    return wall, cpu, samples


def p99(samples: Sequence[float]) -> float:
    """The 99th percentile (nearest rank)."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.99 * len(ordered)) - 1)]


async def main_async(sizes: Sequence[int], runs: int) -> int:
    ok = True
    base: tuple[float, float] | None = None
    print(f"{CHUNKS}-chunk reply, {SIZE[0]}x{SIZE[1]}, median of {runs} runs")
    print("(CPU = this process's CPU time: steadier than wall time on a busy machine)")
    for n in sizes:
        results = [await run_once(n, with_keys=False) for _ in range(runs)]
        wall = statistics.median(r[0] for r in results)
        cpu = statistics.median(r[1] for r in results)
        base = (wall, cpu) if base is None else base
        ratio, cpu_ratio = wall / base[0], cpu / base[1]
        keys: list[float] = []
        while len(keys) < 200:
            keys += (await run_once(n, with_keys=True))[2]
        key_p99 = p99(keys)
        ok = ok and ratio <= RATIO_TARGET and key_p99 < KEY_P99_TARGET_MS
        print(
            f"history {n:>5}: stream {wall:6.0f} ms wall ({ratio:4.2f}x), {cpu:6.0f} ms CPU "
            f"({cpu_ratio:4.2f}x)  key echo p50 {statistics.median(keys):5.1f} ms "
            f"p99 {key_p99:5.1f} ms ({len(keys)} presses)"
        )
    print(f"targets: ratio <= {RATIO_TARGET}x, key echo p99 < {KEY_P99_TARGET_MS:.0f} ms")
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", default="0,100,1000")
    options = parser.parse_args()
    sizes = [int(s) for s in options.sizes.split(",")]
    return asyncio.run(main_async(sizes, options.runs))


if __name__ == "__main__":
    sys.exit(main())
