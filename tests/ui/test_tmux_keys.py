"""The tmux keyboard warning (issue 22 item 12): pi's rule and wording of the fix."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pitui.ui.controllers.tmux_keys import EarlyTmuxQuery, tmux_keyboard_warning, warning_for


@pytest.mark.parametrize(
    ("keys", "fmt", "says"),
    [
        ("off", None, "set -g extended-keys on"),
        ("on", "xterm", "set -g extended-keys-format csi-u"),
        ("always", "csi-u", None),
        ("on", None, None),  # tmux 3.3 has no extended-keys-format
        (None, None, None),  # tmux could not be asked: no warning
    ],
)
def test_warning_for(keys: str | None, fmt: str | None, says: str | None) -> None:
    text = warning_for(keys, fmt)
    assert (text is None) if says is None else (text is not None and says in text)


async def test_outside_tmux_nothing_is_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TMUX", raising=False)
    assert await tmux_keyboard_warning() is None


@pytest.fixture
def tmux_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A tmux server of its own, named in ``TMUX`` as a pane inside it would see it."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    socket = str(tmp_path / "tmux.sock")
    subprocess.run(["tmux", "-S", socket, "-f", "/dev/null", "new-session", "-d"], check=True)
    pid = subprocess.run(
        ["tmux", "-S", socket, "display", "-p", "#{pid}"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    monkeypatch.setenv("TMUX", f"{socket},{pid},0")
    try:
        yield socket
    finally:
        subprocess.run(["tmux", "-S", socket, "kill-server"], check=False)


def early_answer(query: EarlyTmuxQuery) -> str | None:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        answered, warning = query.answer()
        if answered:
            return warning
        time.sleep(0.01)
    raise AssertionError("tmux did not answer")


def test_the_early_query_asks_the_real_tmux(tmux_server: str) -> None:
    query = EarlyTmuxQuery()
    assert query.asked
    warning = early_answer(query)
    assert warning is not None and "set -g extended-keys on" in warning
    subprocess.run(["tmux", "-S", tmux_server, "set", "-g", "extended-keys", "on"], check=True)
    assert early_answer(EarlyTmuxQuery()) is None


async def test_the_async_query_asks_the_real_tmux(tmux_server: str) -> None:
    warning = await tmux_keyboard_warning()
    assert warning is not None and "extended-keys" in warning


def test_outside_tmux_the_early_query_starts_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TMUX", raising=False)
    query = EarlyTmuxQuery()
    assert not query.asked
    assert query.answer() == (True, None)


async def test_the_warning_is_in_the_first_frame(tmux_server: str, tmp_path: Path) -> None:
    """Asked at launch, answered by the time the screen is built: the first frame holds
    the warning, and the session's attach does not add it again."""
    from pitui.ui.view.state import NoticeItem
    from tests.ui.flows import launch, started
    from tests.ui.test_flows_demo import slow_startup

    project = tmp_path / "project"
    project.mkdir()
    app = launch(project, "--no-session")
    await asyncio.sleep(0.3)  # Textual's own start-up gives tmux this long and more
    release = slow_startup(app)

    def warnings() -> list[str]:
        return [i.text for i in app.chat.items if isinstance(i, NoticeItem) and "tmux" in i.text]

    async with app.run_test(size=(140, 36)) as pilot:
        await pilot.pause()
        assert len(warnings()) == 1  # before the session exists
        release.set()
        await started(pilot)
        await pilot.pause(0.3)
        assert len(warnings()) == 1
