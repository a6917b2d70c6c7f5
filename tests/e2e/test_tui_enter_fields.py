"""In a real terminal: a text field that acts on Enter acts on what was typed before the
Enter, however fast the keys behind it come. Textual runs a field's Enter (its binding)
only after the keys typed behind it have reached the field, so ``name⏎more`` in one
burst saved "namemore"; the screens hold the keys from the Enter on
(:class:`~pitui.ui.widgets.key_gate.EnterHoldsKeys`) and then send them on to what has
the focus. Each test types its burst in one tmux write."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.e2e.test_tui_approval import _reply
from tests.e2e.tmux import Terminal, needs_tmux, new_project, started
from tests.modes.loopback import write_models
from tests.replay_server import ReplayServer, Reply

pytestmark = [needs_tmux, pytest.mark.e2e]

SOCKET = "s10-enter-fields-e2e"
SIZES = pytest.mark.parametrize("size", [(140, 40), (80, 24)], ids=["140x40", "80x24"])


@SIZES
def test_rename_in_resume_saves_the_name_typed_before_enter(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """``Ctrl+R`` then ``newname⏎more``: the session is named "newname" and "more" goes
    on to the search field, which has the focus again after the rename."""
    project, home = new_project(tmp_path), tmp_path / "home"
    with started(project, home, width=size[0], height=size[1], socket=SOCKET) as term:
        term.send("hello")
        term.wait_for_reply(lambda s: "↓" in s.splitlines()[-1], "the reply")
        term.send("/resume")
        term.wait_for_settled(lambda s: "Search sessions" in s and "hello" in s, "the picker")
        term.keys("C-r")
        term.type("newname\rmore")
        screen = term.wait_for_settled(lambda s: "› newname" in s, "the renamed row")
        rows = [row.strip("│▊▎ ") for row in screen.splitlines()]
        assert "newnamemore" not in screen, screen
        field = next(i for i, row in enumerate(rows) if "▔" in row) + 1
        assert rows[field] == "more", screen  # the search field's text (the focus again)
    names = [
        json.loads(line).get("name")
        for file in (home / "sessions").rglob("*.jsonl")
        for line in file.read_text().splitlines()
        if '"session_info"' in line
    ]
    assert names == ["newname"]


@contextmanager
def _armed_dialog(
    tmp_path: Path, replay_server: ReplayServer, size: tuple[int, int] = (120, 36)
) -> Iterator[tuple[Terminal, Path]]:
    """pitui on a loopback model that asks to run ``touch MARKER`` and then says
    "understood", with the approval dialog armed; yields the terminal and the marker."""
    home, project = tmp_path / "home", new_project(tmp_path)
    write_models(home, replay_server, defaultProvider="loop", defaultModel="tiny")
    marker = tmp_path / "ran"
    replay_server.add(
        Reply(_reply([("bash", {"command": f"touch {marker}"})])),
        Reply(_reply([("text", "understood")])),
    )
    width, height = size
    args = ("--no-session",)
    with started(
        project, home, ready="tiny", width=width, height=height, args=args, socket=SOCKET
    ) as term:
        term.send("go")
        term.wait_for(lambda s: "y allow once" in s, "the armed dialog", timeout=60)
        yield term, marker


@SIZES
def test_a_denial_reason_is_what_was_typed_before_enter(
    tmp_path: Path, replay_server: ReplayServer, size: tuple[int, int]
) -> None:
    """``n`` then ``because⏎more``: the model is told "because", and "more" goes on to
    the composer once the dialog is gone."""
    with _armed_dialog(tmp_path, replay_server, size) as (term, marker):
        term.keys("n")
        term.type("because\rmore")
        term.wait_for_reply(lambda s: "understood" in s, "the reply after the denial")
        term.wait_for_settled(lambda s: _composer_line(s) == "more", "'more' in the composer")
    assert not marker.exists()
    sent = json.dumps(replay_server.requests[-1].json())
    assert "because" in sent and "becausemore" not in sent


def _composer_line(screen: str) -> str:
    """The composer's first line of text (the last box of the screen)."""
    rows = screen.splitlines()
    top = max(i for i, row in enumerate(rows) if row.startswith("╭"))
    return rows[top + 1].strip("│ ")


def test_enter_on_a_choice_counts_with_typing_behind_it(
    tmp_path: Path, replay_server: ReplayServer
) -> None:
    """Enter on the focused "Allow once", then ``hello`` at once: the call is allowed (the
    letters behind the Enter used to reach the dialog first and un-arm it, so the press
    did not count), and "hello" goes on to the composer."""
    with _armed_dialog(tmp_path, replay_server) as (term, marker):
        term.type("\rhello")
        term.wait_for_reply(lambda s: "understood" in s, "the reply after the call")
        term.wait_for_settled(lambda s: _composer_line(s) == "hello", "'hello' in the composer")
    assert marker.exists()
