"""Drive pitui in a real terminal: tmux runs it, keys go in with send-keys, the screen
comes back with capture-pane."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

HAS_TMUX = shutil.which("tmux") is not None
needs_tmux = pytest.mark.skipif(not HAS_TMUX, reason="tmux is not installed")


class Terminal:
    """One tmux session running ``python -m pitui`` in ``cwd`` with its own pitui home."""

    def __init__(
        self,
        cwd: Path,
        home: Path,
        width: int = 120,
        height: int = 36,
        *,
        args: tuple[str, ...] = (),
        socket: str | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        """``args`` are pitui's flags; ``socket`` a tmux server of the test's own (``-L``);
        ``env`` more environment for pitui."""
        self.name = f"pitui-e2e-{uuid.uuid4().hex[:8]}"
        self._tmux = ["tmux", "-L", socket] if socket else ["tmux"]
        env = {
            "PITUI_HOME": str(home),
            "PITUI_DEMO_PACE_MS": "0",
            "TERM": "xterm-256color",
            **(env or {}),
        }
        if os.environ.get("PYTHONPATH") and "PYTHONPATH" not in env:
            env["PYTHONPATH"] = shlex.quote(os.environ["PYTHONPATH"])  # this checkout's pitui
        exports = " ".join(f"{k}={v}" for k, v in env.items())
        flags = " ".join(shlex.quote(a) for a in args)
        command = f"cd {cwd} && env {exports} {sys.executable} -m pitui {flags}".rstrip()
        argv = [*self._tmux, "new-session", "-d", "-s", self.name, "-x", f"{width}"]
        argv += ["-y", f"{height}"]
        for attempt in range(5):
            started = subprocess.run(
                [*argv, command], env={**os.environ, "TMUX": ""}, capture_output=True, text=True
            )
            if started.returncode == 0:
                return
            # The server of a session just closed may still be exiting ("server exited
            # unexpectedly"): a moment later a new one starts.
            time.sleep(0.2 * (attempt + 1))
        raise RuntimeError(f"tmux new-session failed: {started.stderr.strip()}")

    def keys(self, *keys: str) -> None:
        """Send keys in one burst (tmux key names: ``Enter``, ``C-b``, ``Up`` …)."""
        subprocess.run([*self._tmux, "send-keys", "-t", self.name, *keys], check=True)

    def type(self, text: str) -> None:
        """Type ``text`` literally, in one burst."""
        subprocess.run([*self._tmux, "send-keys", "-t", self.name, "-l", text], check=True)

    def paste(self, text: str) -> None:
        """Paste ``text`` as a terminal does (bracketed once the app has asked for it)."""
        buffer = f"{self.name}-paste"
        subprocess.run([*self._tmux, "set-buffer", "-b", buffer, text], check=True)
        paste = ["paste-buffer", "-p", "-d", "-b", buffer, "-t", self.name]
        subprocess.run([*self._tmux, *paste], check=True)

    def send(self, text: str, *, burst: bool = False) -> None:
        """Type ``text`` and press Enter (a prompt or a slash command sent); ``burst``:
        both in one write, so pitui reads them as one burst of keys (a fast typist)."""
        if burst:
            self.type(f"{text}\r")
            return
        self.type(text)
        self.keys("Enter")

    def send_until(self, text: str, until: Callable[[str], bool], what: str) -> str:
        """Type ``text`` into the composer, press Enter, and wait until ``until`` holds."""
        self.send(text)
        return self.wait_for(until, what)

    def resize(
        self, width: int, height: int, until: Callable[[str], bool] = lambda _s: True
    ) -> str:
        """Resize the terminal (the window: pitui gets a SIGWINCH); the screen once the
        app drew itself at the new width (tmux clips the old frame at once), ``until``
        holds, and the screen stays the same for a poll: a capture can catch a redraw
        half done (its top line already ends in the last pane's corner, the middle still
        the old frame's), and a resize can take a frame or two to settle."""
        argv = ["resize-window", "-t", self.name, "-x", f"{width}", "-y", f"{height}"]
        subprocess.run([*self._tmux, *argv], check=True)

        def redrawn(screen: str) -> bool:
            lines = screen.removesuffix("\n").split("\n")  # capture-pane keeps blank rows
            top = lines[0]
            drawn = len(top) == width and top.endswith("╮") and bool(lines[-1].strip())
            return drawn and until(screen)

        return self.wait_for_settled(redrawn, f"the app drawn at {width} columns")

    def wait_for_settled(self, found: Callable[[str], bool], what: str, timeout: float = 20) -> str:
        """Poll until ``found`` holds on a screen that the next poll shows unchanged (a
        frame drawn to its end), else fail showing the screen."""
        previous = None

        def settled(screen: str) -> bool:
            nonlocal previous
            same, previous = screen == previous, screen
            return same and found(screen)

        return self.wait_for(settled, what, timeout)

    def wait_for_reply(self, found: Callable[[str], bool], what: str, timeout: float = 20) -> str:
        """Wait for a reply's text and then for its run's end (the working line gone): the
        tree refuses to move while a reply runs, as pi does, so a test that moves in the tree
        next must wait for both."""
        self.wait_for(found, what, timeout)
        idle = "Working..."
        return self.wait_for(lambda s: idle not in s, f"the run's end after {what}", timeout)

    def screen(self) -> str:
        result = subprocess.run(
            [*self._tmux, "capture-pane", "-p", "-t", self.name], capture_output=True, text=True
        )
        return result.stdout

    def wait_for(self, found: Callable[[str], bool], what: str, timeout: float = 20) -> str:
        """Poll the screen until ``found`` holds (bounded), else fail showing the screen."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if found(screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what}; the screen:\n{screen}")

    def processes(self) -> list[int]:
        """The pane's process and its children (the shell, then pitui)."""
        shown = subprocess.run(
            [*self._tmux, "display", "-p", "-t", self.name, "#{pane_pid}"],
            capture_output=True,
            text=True,
            check=True,
        )
        pane = int(shown.stdout.strip())
        try:
            children = Path(f"/proc/{pane}/task/{pane}/children").read_text().split()
        except OSError:
            children = []
        return [pane, *map(int, children)]

    def close(self) -> None:
        subprocess.run([*self._tmux, "kill-session", "-t", self.name], check=False)


@contextmanager
def started(
    cwd: Path,
    home: Path,
    *,
    ready: str = "demo (offline)",
    width: int = 120,
    height: int = 36,
    args: tuple[str, ...] = (),
    socket: str | None = None,
    env: dict[str, str] | None = None,
) -> Iterator[Terminal]:
    """A :class:`Terminal` once ``ready`` is on its screen (the session is up); closed
    when the block ends, however it ends."""
    terminal = Terminal(cwd, home, width, height, args=args, socket=socket, env=env)
    try:
        terminal.wait_for(lambda s: ready in s, "the session")
        yield terminal
    finally:
        terminal.close()


def new_project(tmp_path: Path) -> Path:
    """An empty ``project`` folder under ``tmp_path`` (the home is ``tmp_path/home``)."""
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    return project


def alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        return "State:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False


def ended_within(pids: Sequence[int], seconds: float) -> float | None:
    """Seconds until none of ``pids`` is alive, or None if one still is after ``seconds``."""
    start = time.monotonic()
    while True:
        took = time.monotonic() - start
        if not any(alive(p) for p in pids):
            return took
        if took >= seconds:
            return None
        time.sleep(0.05)


@contextmanager
def replied(
    tmp_path: Path, socket: str, width: int, height: int, env: dict[str, str] | None = None
) -> Iterator[Terminal]:
    """pitui on the demo model in ``tmp_path/project`` at ``width``×``height`` once it
    answered ``hello``."""
    project, home = new_project(tmp_path), tmp_path / "home"
    with started(project, home, width=width, height=height, socket=socket, env=env) as term:
        term.send("hello")
        # The reply's usage: "said: hello" may scroll out of 24 rows before a poll sees it.
        term.wait_for(lambda s: "↓" in s.splitlines()[-1], "the reply's usage")
        yield term
