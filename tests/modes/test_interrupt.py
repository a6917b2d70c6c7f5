"""SIGINT, SIGTERM, SIGHUP (and Ctrl+Q in the TUI) mid-reply keep what was there.

Real pitui processes against a loopback server that sends the start of a reply and then
holds the connection open: the process is interrupted while the reply streams, and the
session file must hold the prompt and the partial reply as an ``aborted`` message.
"""

from __future__ import annotations

import contextlib
import json
import os
import pty
import select
import signal
import subprocess
import time
from pathlib import Path
from typing import IO

import pytest

from tests.modes.loopback import (
    ANTHROPIC_TEXT,
    messages,
    pitui_command,
    session_lines,
    write_models,
)
from tests.replay_server import ReplayServer, Reply

# Everything up to the end of the first text delta ("Olá! ("), then the server waits.
_HOLD = ANTHROPIC_TEXT.index(b"\n\n", ANTHROPIC_TEXT.index(b"text_delta")) + 2
SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    return root


def _held_reply(server: ReplayServer, home: Path) -> None:
    server.add(Reply(body=ANTHROPIC_TEXT, hang_after=_HOLD))
    write_models(home, server)


def _wait_for_line(stream: IO[str], needle: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        if needle in line:
            return
    raise AssertionError(f"never saw {needle!r}")


def _assert_saved_aborted(home: Path, prompts: list[str]) -> None:
    found = messages(session_lines(home))
    users = [m for m in found if m["role"] == "user"]
    assert [u["content"][0]["text"] for u in users] == prompts
    last = found[-1]
    assert last["role"] == "assistant" and last["stopReason"] == "aborted"
    assert last["content"][0]["text"].startswith("Olá!")


def _interrupt_json_run(project: Path, signum: int, *args: str) -> None:
    """``pitui -p --mode json ARGS``, sent ``signum`` once the reply's first text arrived."""
    command = pitui_command("-p", "--mode", "json", "--model", "loop/tiny", *args)
    with subprocess.Popen(
        command,
        cwd=project,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        assert process.stdout is not None
        _wait_for_line(process.stdout, '"text_delta"')
        process.send_signal(signum)
        assert process.wait(timeout=30) == 128 + signum


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_print_mode_signal_mid_reply_saves_the_prompt_and_partial_reply(
    signum: int, project: Path, pitui_home: Path, replay_server: ReplayServer
) -> None:
    _held_reply(replay_server, pitui_home)
    _interrupt_json_run(project, signum, "hello")
    _assert_saved_aborted(pitui_home, ["hello"])


def test_a_later_turn_keeps_its_partial_reply_too(
    project: Path, pitui_home: Path, replay_server: ReplayServer
) -> None:
    replay_server.add(Reply(body=ANTHROPIC_TEXT))
    _held_reply(replay_server, pitui_home)
    first = subprocess.run(
        pitui_command("-p", "--model", "loop/tiny", "one"),
        cwd=project,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert first.returncode == 0, first.stderr
    _interrupt_json_run(project, signal.SIGTERM, "-c", "two")
    _assert_saved_aborted(pitui_home, ["one", "two"])


def test_plain_print_mode_interrupted_keeps_the_prompt(
    project: Path, pitui_home: Path, replay_server: ReplayServer
) -> None:
    _held_reply(replay_server, pitui_home)
    args = pitui_command("-p", "--model", "loop/tiny", "hello")
    with subprocess.Popen(
        args,
        cwd=project,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        replay_server.wait_sent(_HOLD)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 130
        assert process.stderr is not None
        assert "Traceback" not in process.stderr.read()
    found = messages(session_lines(pitui_home))
    assert [m["role"] for m in found] == ["user", "assistant"]
    assert found[-1]["stopReason"] == "aborted"


# --------------------------------------------------------------------------- TUI


class _Terminal:
    """pitui's TUI on a pseudo-terminal, its output drained and searchable."""

    def __init__(self, cwd: Path, *args: str) -> None:
        self.master, slave = pty.openpty()
        os.set_blocking(self.master, False)
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "30"}
        self.process = subprocess.Popen(
            pitui_command(*args),
            cwd=cwd,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            start_new_session=True,
        )
        os.close(slave)
        self.output = b""

    def _drain(self, wait: float) -> None:
        ready, _, _ = select.select([self.master], [], [], wait)
        if ready:
            with contextlib.suppress(OSError):  # the terminal closed under us
                self.output += os.read(self.master, 65536)

    def wait_for(self, needle: bytes, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while needle not in self.output:
            if time.monotonic() > deadline:
                raise AssertionError(f"the screen never showed {needle!r}")
            self._drain(0.05)

    def send(self, data: bytes) -> None:
        os.write(self.master, data)

    def wait_exit(self, timeout: float = 30.0) -> int:
        deadline = time.monotonic() + timeout
        while self.process.poll() is None:
            if time.monotonic() > deadline:
                self.process.kill()
                raise AssertionError("pitui did not exit")
            self._drain(0.05)
        os.close(self.master)
        return self.process.returncode


def _name(how: object) -> str:
    return signal.Signals(how).name if isinstance(how, int) else str(how)


@pytest.mark.parametrize("how", ["ctrl+q", *SIGNALS], ids=_name)
def test_tui_quit_or_signal_mid_reply_saves_the_prompt_and_partial_reply(
    how: object, project: Path, pitui_home: Path, replay_server: ReplayServer
) -> None:
    _held_reply(replay_server, pitui_home)
    terminal = _Terminal(project, "--model", "loop/tiny", "hello")
    terminal.wait_for("Olá".encode())
    if how == "ctrl+q":
        terminal.send(b"\x11")
    else:
        assert isinstance(how, int)
        terminal.process.send_signal(how)
    terminal.wait_exit()
    _assert_saved_aborted(pitui_home, ["hello"])
    lines = session_lines(pitui_home)
    assert json.dumps(lines[0]).startswith('{"type": "session"')
