"""Benchmark: resuming a 10,000-message session in a real terminal until its last message shows.

Writes a session file with :class:`pitui.core.session.store.SessionStore` (rounds of user /
assistant with a tool call / tool result / assistant reply, the last reply headed
``Answer K``) in a temporary directory, then, for each terminal size (120x36, and 140x36;
both show the Branches pane):

- spawns ``pitui --session FILE`` in a detached tmux session (bytecode on, as an installed
  package has it: PYTHONDONTWRITEBYTECODE unset; a fresh PITUI_HOME; no API keys) and polls
  ``tmux capture-pane`` until the screen shows the last message's unique text (target
  <= 600 ms from the spawn), then until the Branches pane's footer counts every row
  (``(i/N)``), and reads the process's resident memory once it has idled;
- with ``--pi DIR`` (a folder where pi was npm-installed, see ``bench/pi_cli.py``): the same
  for ``pi --session FILE`` on the same file (offline, isolated agent dir and HOME).

The pitui measured is this checkout's (``python -m pitui`` with PYTHONPATH set to it), not
whichever one the virtualenv was installed from.

Then a second view, in-process and headless (``App.run_test``, after the imports): the
first frame, the first frame showing the resumed conversation (the last messages read
from the end of the file), the frame with the whole session attached (tree filled), and
a breakdown of the load path measured step by step. The whole-session figure is
pessimistic: the probe polls every millisecond, and each poll takes the interpreter lock
from the threads that load the session.

Run: ``python bench/tui_resume.py [--messages 10000] [--runs 3] [--pi DIR [--pi-runs 1]] [--show]``
(needs tmux). Exit status 0 when every size meets the target, else 1.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
"""The checkout this script belongs to: its pitui is measured (not another one installed
in editable mode into the same virtualenv)."""
sys.path[:0] = [str(BENCH), str(ROOT)]

from tmux_probe import children, kill_session, tmux  # noqa: E402 - found through the path set just above

TARGET_MS = 600.0
API_KEY_VARS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_OAUTH_TOKEN")
_WORDS = "the agent reads the file and edits the function so the tests pass"
SIZE = (120, 36)
SIZES = ((120, 36), (140, 36))
POLL_SECONDS = 0.003
IDLE_SECONDS = 2.0
LIMIT_SECONDS = 60.0


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


def rounded(n: int) -> int:
    """``n`` rounded up to whole rounds (4 messages), so the last message is a reply."""
    return max(4, -(-n // 4) * 4)


def last_text(n: int) -> str:
    """The unique text of the last message of a session of ``rounded(n)`` messages."""
    return f"Answer {rounded(n) // 4 - 1}"


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


# --------------------------------------------------------------------------- in a terminal


@dataclass
class Run:
    """One spawn in tmux: ms from the spawn to each sight, and memory once idle."""

    first_frame: float | None
    last_message: float
    tree_full: float | None
    rss_mb: float
    screen: str


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        current = todo.pop()
        out.append(current)
        todo += children(current)
    return out


def tree_rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` and its descendants, in MB (VmRSS from /proc)."""
    total = 0.0
    for process in _descendants(pid):
        try:
            lines = Path(f"/proc/{process}/status").read_text().splitlines()
        except OSError:
            continue
        for line in lines:
            if line.startswith("VmRSS:"):
                total += int(line.split()[1]) / 1024
    return total


def compile_pitui() -> None:
    """Byte-compile this checkout's pitui (a source checkout has no ``__pycache__`` when
    PYTHONDONTWRITEBYTECODE is set, unlike an installed wheel)."""
    compileall.compile_dir(str(ROOT / "pitui"), quiet=1)


def _main_screen(screen: str) -> bool:
    """pitui's main screen is drawn: the Conversation pane and the composer's box."""
    return "Conversation" in screen and "╰" in screen


def spawn_once(
    name: str,
    command: str,
    cwd: Path,
    env: dict[str, str],
    size: tuple[int, int],
    sights: dict[str, Callable[[str], bool]],
) -> Run:
    """Start ``command`` in tmux and time each of ``sights`` (a test of the screen text):
    ``first``, ``last`` (required) and ``tree``."""
    flags = [x for key, value in env.items() for x in ("-e", f"{key}={value}")]
    width, height = size
    # The tmux server may have inherited PYTHONDONTWRITEBYTECODE=1: a real install has bytecode.
    command = f"env -u PYTHONDONTWRITEBYTECODE {command}"
    t0 = time.perf_counter()
    tmux(
        "new-session", "-d", "-s", name, "-x", str(width), "-y", str(height), "-c", str(cwd),
        *flags, command,
    )  # fmt: skip
    seen: dict[str, float] = {}
    screen = ""
    try:
        deadline = t0 + LIMIT_SECONDS
        while len(seen) < len(sights):
            if time.perf_counter() > deadline:
                missing = ", ".join(k for k in sights if k not in seen)
                raise TimeoutError(f"{command}: never showed {missing}; last screen:\n{screen}")
            now_screen = tmux("capture-pane", "-p", "-t", name)
            now = time.perf_counter()
            if now_screen != screen:
                screen = now_screen
                for key, test in sights.items():
                    if key not in seen and test(screen):
                        seen[key] = (now - t0) * 1000
            time.sleep(POLL_SECONDS)
        time.sleep(IDLE_SECONDS)
        screen = tmux("capture-pane", "-p", "-t", name)
        pane_pid = int(tmux("display", "-p", "-t", name, "#{pane_pid}").strip())
        rss = tree_rss_mb(pane_pid)
        return Run(seen.get("first"), seen["last"], seen.get("tree"), rss, screen)
    finally:
        kill_session(name)


def conversation_column(screen: str) -> str:
    """The leftmost pane's part of each line (the Conversation; the Branches pane's rows
    name the last message too)."""
    return "\n".join(line.split("││")[0] for line in screen.splitlines())


def pitui_sights(n: int) -> dict[str, Callable[[str], bool]]:
    """The first frame, the last message's text in the conversation, and the Branches
    footer counting every row."""
    marker, rows = last_text(n), f"/{rounded(n)})"
    return {
        "first": _main_screen,
        "last": lambda s: marker in conversation_column(s),
        "tree": lambda s: rows in s,
    }


def time_pitui(
    session_file: Path, cwd: Path, home: Path, size: tuple[int, int], runs: int, n: int
) -> list[Run]:
    """``pitui --session FILE`` in tmux, ``runs`` times."""
    command = f"{sys.executable} -m pitui --session {session_file}"
    env = {"PITUI_HOME": str(home), "TERM": "xterm-256color", "PYTHONPATH": str(ROOT)}
    base = f"pitui-resume-{os.getpid()}-{size[0]}"
    return [
        spawn_once(f"{base}-{i}", command, cwd, env, size, pitui_sights(n)) for i in range(runs)
    ]


def time_pi(
    pi_dir: Path,
    session_file: Path,
    cwd: Path,
    root: Path,
    size: tuple[int, int],
    runs: int,
    n: int,
) -> list[Run]:
    """``pi --session FILE`` in tmux (offline, its own agent dir and HOME), ``runs`` times."""
    from pi_cli import offline_env, pi_command

    agent, home = root / "pi-agent", root / "pi-home"
    agent.mkdir(exist_ok=True)
    home.mkdir(exist_ok=True)
    command = " ".join([*pi_command(pi_dir), "--session", str(session_file)])
    env = {**offline_env(agent, home), "TERM": "xterm-256color"}
    marker = last_text(n)
    sights: dict[str, Callable[[str], bool]] = {"last": lambda s: marker in s}
    base = f"pi-resume-{os.getpid()}-{size[0]}"
    return [spawn_once(f"{base}-{i}", command, cwd, env, size, sights) for i in range(runs)]


def _median(values: list[float | None]) -> float:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else float("nan")


def report(label: str, results: list[Run]) -> float:
    """Print one line of medians; returns the median ms to the last message."""
    last = _median([r.last_message for r in results])
    runs = ", ".join(f"{r.last_message:.0f}" for r in results)
    parts = [f"last message shown {last:.0f} ms (runs: {runs})"]
    if any(r.first_frame is not None for r in results):
        parts.insert(0, f"first frame {_median([r.first_frame for r in results]):.0f} ms")
    if any(r.tree_full is not None for r in results):
        parts.append(f"tree full {_median([r.tree_full for r in results]):.0f} ms")
    rss = _median([r.rss_mb for r in results])
    parts.append(f"RSS after {IDLE_SECONDS:.0f} s idle {rss:.0f} MB")
    print(f"  {label}: " + "; ".join(parts))
    return last


# --------------------------------------------------------------------------- headless


async def _until(predicate: Callable[[], bool], limit: float = LIMIT_SECONDS) -> None:
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


async def launch_once(session_file: Path, cwd: Path) -> tuple[float, float, float]:
    """ms to the first frame, to the first frame showing the resumed conversation, and to
    the frame with the whole session attached (the tree filled)."""
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
        rows = app.main.branches.rows
        await _until(lambda: app.live is not None and rows.state is not None)
        await _next_frame(app)
        loaded = (time.perf_counter() - t0) * 1000
        if app.live is not None:
            await app.live.close()
    return first, resumed, loaded


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


async def headless(session_file: Path, cwd: Path, runs: int) -> None:
    """The in-process view: launch medians, then the step-by-step breakdown."""
    results = [await launch_once(session_file, cwd) for _ in range(runs)]
    first, resumed, loaded = (statistics.median(r[k] for r in results) for k in range(3))
    print(f"  first frame {first:.0f} ms; resumed conversation shown {resumed:.0f} ms; "
          f"whole session attached {loaded:.0f} ms (median of {runs})")  # fmt: skip
    steps = await breakdown(session_file, cwd)
    print("  breakdown (ms): " + ", ".join(f"{k} {v:.0f}" for k, v in steps.items()))


# --------------------------------------------------------------------------- main


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pi", type=Path, help="a folder where pi was npm-installed")
    parser.add_argument("--pi-runs", type=int, default=1, help="pi is slow here: fewer runs")
    parser.add_argument("--no-headless", action="store_true", help="skip the in-process view")
    parser.add_argument("--show", action="store_true", help="print pitui's last screen")
    options = parser.parse_args()
    if shutil.which("tmux") is None:
        print("tui_resume: tmux is not installed (apt-get install tmux); cannot measure.")
        return 2
    compile_pitui()
    for var in API_KEY_VARS:
        os.environ.pop(var, None)
    n = rounded(options.messages)
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        home, cwd = root / "home", root / "project"
        cwd.mkdir()
        os.environ["PITUI_HOME"] = str(home)
        session_file = asyncio.run(write_session(cwd, n))
        size_mb = session_file.stat().st_size / 1e6
        print(f"session: {n} messages, {size_mb:.1f} MB; last message: {last_text(n)!r}")
        print(f"in tmux, from the spawn (median of {options.runs}; target <= {TARGET_MS:.0f} ms):")
        for size in SIZES:
            label = f"pitui {size[0]}x{size[1]}"
            results = time_pitui(session_file, cwd, home, size, options.runs, n)
            ok = report(label, results) <= TARGET_MS and ok
            if options.show:
                print(results[-1].screen)
            if options.pi is not None:
                pi = time_pi(options.pi, session_file, cwd, root, size, options.pi_runs, n)
                report(f"pi {size[0]}x{size[1]}", pi)
        if not options.no_headless:
            print("headless (App.run_test, in-process, after the imports):")
            asyncio.run(headless(session_file, cwd, options.runs))
    print(f"target <= {TARGET_MS:.0f} ms to the last message: {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
