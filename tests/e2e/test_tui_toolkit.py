"""In a real terminal against a loopback Anthropic server: the trust question, a prompt
template, a skill in the system prompt, and an ``@`` file carried as pi sends it."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.tmux import Terminal, needs_tmux
from tests.modes.loopback import ANTHROPIC_TEXT, write_models
from tests.replay_server import ReplayServer, Reply

pytestmark = [needs_tmux, pytest.mark.e2e]
SOCKET = "pitui-e2e-toolkit"


@pytest.fixture
def setup(tmp_path: Path, replay_server: ReplayServer) -> Iterator[tuple[Path, Path]]:
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    write_models(home, replay_server, defaultProvider="loop", defaultModel="tiny")
    skill = project / ".agents" / "skills" / "hello"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: hello\ndescription: Greets.\n---\nSay hi.\n")
    (project / ".pi" / "prompts").mkdir(parents=True)
    (project / ".pi" / "prompts" / "review.md").write_text("Review ${1:-everything} carefully\n")
    (project / "README.md").write_text("# Readme body\n")
    yield home, project


def _request(server: ReplayServer, count: int = 1, timeout: float = 30) -> dict[str, Any]:
    """The ``count``-th request the server got (waiting for it)."""
    deadline = time.monotonic() + timeout
    while len(server.requests) < count:
        assert time.monotonic() < deadline, f"only {len(server.requests)} requests"
        time.sleep(0.02)
    body: dict[str, Any] = server.requests[count - 1].json()
    return body


def _user_text(body: dict[str, Any]) -> str:
    return str(body["messages"][-1]["content"][0]["text"])


def test_trust_then_a_template_and_a_skill(
    setup: tuple[Path, Path], replay_server: ReplayServer
) -> None:
    home, project = setup
    replay_server.add(Reply(body=ANTHROPIC_TEXT), Reply(body=ANTHROPIC_TEXT))
    term = Terminal(project, home, args=("--no-session",), socket=SOCKET, env={"HOME": str(home)})
    try:
        term.wait_for(lambda s: "Trust this project?" in s, "the trust question")
        term.keys("y")
        term.wait_for(lambda s: "Skills    hello" in s and "/review" in s, "the listing")
        term.type("/rev")
        term.wait_for(lambda s: "/review  Review" in s, "the completion")
        term.keys("Escape")
        term.type("iew main.py")
        term.wait_for(lambda s: "│ /review main.py" in s, "the typed command")
        term.keys("Enter")
        body = _request(replay_server)
        assert _user_text(body) == "Review main.py carefully\n"  # no frontmatter: as pi, untrimmed
        assert "<name>hello</name>" in body["system"][0]["text"]
        term.wait_for(lambda s: "Olá" in s, "the reply")
        term.wait_for(lambda s: "Skills    hello" not in s, "the listing gone")
        term.type("what is in @README.md ")  # the space closes the finder
        term.wait_for(lambda s: "│ what is in @README.md" in s, "the typed prompt")
        term.keys("Enter")
        body = _request(replay_server, 2)
        assert _user_text(body) == (
            f'<file name="{project}/README.md">\n# Readme body\n\n</file>\nwhat is in @README.md'
        )  # the composer's text is sent stripped, as before
    finally:
        term.close()
    trust = json.loads((home / "trust.json").read_text())
    assert trust["projects"][str(project.resolve())]["project-resources"] is True
