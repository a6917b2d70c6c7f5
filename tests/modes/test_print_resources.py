"""Print mode with skills and prompt templates: what reaches a loopback server.

The same project is given to pi 1.6 when it is installed (tests/pi16.py): the skill
message and the skills block must be the same text.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.modes.loopback import ANTHROPIC_TEXT, run_pitui, write_models
from tests.pi16 import require_pi16, run_pi16
from tests.replay_server import ReplayServer, Reply


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    skill = root / ".agents" / "skills" / "hello"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: hello\ndescription: Say hello nicely. Use when greeting.\n---\n"
        "# Hello\n\nGreet the user warmly.\n"
    )
    prompts = root / ".pi" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "review.md").write_text(
        '---\ndescription: Review a file\nargument-hint: "[file]"\n---\n'
        "Review ${1:-everything} carefully\n"
    )
    return root


def _user_text(server: ReplayServer) -> str:
    body = server.requests[0].json()
    [message] = body["messages"]
    [block] = message["content"]
    return str(block["text"])


def _system(server: ReplayServer) -> str:
    return str(server.requests[0].json()["system"][0]["text"])


def test_a_template_expands_in_print_mode(
    project: Path, pitui_home: Path, replay_server: ReplayServer
) -> None:
    write_models(pitui_home, replay_server)
    replay_server.add(Reply(body=ANTHROPIC_TEXT))
    result = run_pitui(project, "--trust-project", "--model", "loop/tiny", "-p", "/review main.py")
    assert result.returncode == 0, result.stderr
    assert _user_text(replay_server) == "Review main.py carefully"


def test_untrusted_print_mode_skips_them_and_says_how_to_allow(
    project: Path, pitui_home: Path, replay_server: ReplayServer
) -> None:
    write_models(pitui_home, replay_server)
    replay_server.add(Reply(body=ANTHROPIC_TEXT))
    result = run_pitui(project, "--model", "loop/tiny", "-p", "/review main.py")
    assert result.returncode == 0, result.stderr
    [line] = [line for line in result.stderr.splitlines() if "not trusted" in line]
    assert "--trust-project" in line
    assert _user_text(replay_server) == "/review main.py"
    assert "available_skills" not in _system(replay_server)


def test_skill_message_and_block_match_pi16(
    project: Path, pitui_home: Path, replay_server: ReplayServer, tmp_path: Path
) -> None:
    write_models(pitui_home, replay_server)
    replay_server.add(Reply(body=ANTHROPIC_TEXT))
    result = run_pitui(project, "--trust-project", "--model", "loop/tiny", "-p", "/skill:hello now")
    assert result.returncode == 0, result.stderr
    ours, our_system = _user_text(replay_server), _system(replay_server)
    skill = project / ".agents" / "skills" / "hello"
    assert ours == (
        f'<skill name="hello" location="{skill}/SKILL.md">\n'
        f"References are relative to {skill}.\n\n# Hello\n\nGreet the user warmly.\n</skill>\n\nnow"
    )
    assert f"<location>{skill}/SKILL.md</location>" in our_system

    command = require_pi16()
    pi_server = ReplayServer().add(Reply(body=ANTHROPIC_TEXT)).start()
    try:
        done = run_pi16(
            command, tmp_path / "pi-home", pi_server, project, "--approve", "-p", "/skill:hello now"
        )
        assert done.returncode == 0, done.stderr
        assert _user_text(pi_server) == ours
        pi_block = _system(pi_server).split("<skills>\n")[1].split("\n</skills>")[0]
    finally:
        pi_server.stop()
    assert pi_block.strip() in our_system
