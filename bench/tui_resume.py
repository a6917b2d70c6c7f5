"""Benchmark: resuming a 5,000-message session in the TUI (headless ``App.run_test``).

Writes a session file with :class:`pitui.core.session.store.SessionStore` (rounds of user /
assistant with a tool call / tool result / assistant reply) in a temporary PITUI_HOME, then
starts the app the way ``pitui --session FILE`` does (:func:`pitui.ui.launch.create_app`:
first frame, then the session is built and attached in a worker) and prints:

- first frame: from creating the app to its first screen (before the session loads);
- resumed: from creating the app to the first frame that shows the resumed conversation
  (target < 0.6 s);
- a breakdown of the resume path measured separately: opening the store, building the
  AgentSession, ``state_from_messages`` and mounting the view (``app.rebuild``).

Run: ``python bench/tui_resume.py [--messages 5000] [--runs 5]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

TARGET_MS = 600.0
_WORDS = "the agent reads the file and edits the function so the tests pass"
SIZE = (120, 36)


def _messages(n: int) -> list[object]:
    from pitui.ai.types import (
        AssistantMessage,
        TextContent,
        ToolCall,
        ToolResultMessage,
        Usage,
        UserMessage,
    )

    out: list[object] = []
    ts = 1_700_000_000_000
    words = _WORDS.split()
    k = 0
    while len(out) < n:
        ts += 10
        body = " ".join(words[(k + j) % len(words)] for j in range(60))
        call = ToolCall(id=f"call_{k}", name="read", arguments={"path": f"src/mod_{k}.py"})
        usage = Usage(input=1200, output=80, total_tokens=1280)
        out += [
            UserMessage(content=[TextContent(text=f"Question {k}: {body[:100]}")], timestamp=ts),
            AssistantMessage(
                api="demo",
                provider="demo",
                model="demo-model",
                usage=usage,
                content=[TextContent(text=f"Let me look. {body}"), call],
                stop_reason="toolUse",
                timestamp=ts + 1,
            ),
            ToolResultMessage(
                tool_call_id=call.id,
                tool_name="read",
                timestamp=ts + 2,
                content=[TextContent(text="\n".join(f"line {j}: {body[:40]}" for j in range(40)))],
            ),
            AssistantMessage(
                api="demo",
                provider="demo",
                model="demo-model",
                usage=usage,
                timestamp=ts + 3,
                content=[TextContent(text=f"## Answer {k}\n\n{body}\n\n- one\n- `two`\n")],
            ),
        ]
        k += 1
    return out[:n]


async def write_session(directory: Path, n: int) -> Path:
    """A session file with ``n`` messages, written with the session store."""
    from pitui.core.session.store import SessionStore

    store = SessionStore.create(directory, directory / "sessions")
    for message in _messages(n):
        await store.append_message(message)  # type: ignore[arg-type]
    await store.flush()
    path = store.path
    await store.close()
    assert path is not None and path.exists()
    return path


async def _until(predicate: Callable[[], bool], limit: float = 60.0) -> None:
    deadline = time.perf_counter() + limit
    while not predicate():  # a 1 ms poll: the probe being timed
        if time.perf_counter() > deadline:
            raise TimeoutError("the app never showed the resumed session")
        await asyncio.sleep(0.001)


async def _next_frame(app: object) -> None:
    from textual.app import App

    assert isinstance(app, App)
    done = asyncio.get_running_loop().create_future()

    def settle() -> None:
        if not done.done():
            done.set_result(None)

    app.call_after_refresh(settle)
    await done


async def launch_once(session_file: Path, cwd: Path) -> tuple[float, float]:
    """(ms to the first frame, ms to the first frame showing the resumed conversation)."""
    t0 = time.perf_counter()
    from pitui.cli import build_parser
    from pitui.ui.launch import create_app
    from pitui.ui.widgets.conversation import ConversationView

    args = build_parser().parse_args(["--session", str(session_file)])
    app = create_app(args, cwd)
    async with app.run_test(size=SIZE):
        await _next_frame(app)
        first = (time.perf_counter() - t0) * 1000
        await _until(lambda: app.query_one(ConversationView).mounted_count > 0)
        await _next_frame(app)
        resumed = (time.perf_counter() - t0) * 1000
        if app.live is not None:
            await app.live.close()
    return first, resumed


async def breakdown(session_file: Path, cwd: Path) -> dict[str, float]:
    """Milliseconds of each step of the resume path, measured one by one."""
    from pitui.core.session.store import SessionStore
    from pitui.core.session_setup import SessionOptions, create_agent_session
    from pitui.ui.app import PituiApp
    from pitui.ui.theme import discover_themes
    from pitui.ui.view.reducer import state_from_messages

    steps: dict[str, float] = {}
    t = time.perf_counter()
    store = await SessionStore.open(session_file, read_only=True)
    steps["open store"] = (time.perf_counter() - t) * 1000
    await store.close()
    t = time.perf_counter()
    session = await create_agent_session(SessionOptions(cwd=cwd, session_file=session_file))
    steps["create AgentSession"] = (time.perf_counter() - t) * 1000
    messages = session.messages
    t = time.perf_counter()
    state = state_from_messages(messages)
    steps["state_from_messages"] = (time.perf_counter() - t) * 1000
    app = PituiApp(themes=discover_themes([]))
    async with app.run_test(size=SIZE):
        t = time.perf_counter()
        await app.rebuild(state)
        await _next_frame(app)
        steps["rebuild + frame"] = (time.perf_counter() - t) * 1000
    await session.close()
    steps["messages"] = float(len(messages))
    return steps


async def main_async(n: int, runs: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        os.environ["PITUI_HOME"] = str(home / "home")
        cwd = home / "project"
        cwd.mkdir()
        session_file = await write_session(cwd, n)
        size_mb = session_file.stat().st_size / 1e6
        print(f"session: {n} messages, {size_mb:.1f} MB, {SIZE[0]}x{SIZE[1]}")
        results = [await launch_once(session_file, cwd) for _ in range(runs)]
        first = statistics.median(r[0] for r in results)
        resumed = statistics.median(r[1] for r in results)
        print(f"first frame: {first:.0f} ms   resumed conversation shown: {resumed:.0f} ms "
              f"(median of {runs}; target < {TARGET_MS:.0f} ms)")  # fmt: skip
        steps = await breakdown(session_file, cwd)
        print("breakdown: " + ", ".join(f"{k} {v:.0f}" for k, v in steps.items()))
    return 0 if resumed < TARGET_MS else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--messages", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    return asyncio.run(main_async(options.messages, options.runs))


if __name__ == "__main__":
    sys.exit(main())
