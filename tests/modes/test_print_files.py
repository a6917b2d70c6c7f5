"""``pitui -p @file … "question"``: one user turn carrying the files, as pi sends it.

An image attached this way reaches an Anthropic and an OpenAI server as an image block.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from tests.modes.loopback import ANTHROPIC_TEXT, run_pitui, write_models
from tests.replay_server import ReplayServer, Reply


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "notes.md").write_text("hello notes\n")
    (root / "todo.txt").write_text("buy milk\n")
    Image.new("RGB", (20, 10), (255, 0, 0)).save(root / "img.png")
    return root


def _image_models(home: Path, server: ReplayServer, api: str) -> None:
    write_models(home, server)
    config = json.loads((home / "models.json").read_text())
    loop = config["providers"]["loop"]
    loop["api"] = api
    loop["models"][0]["input"] = ["text", "image"]
    (home / "models.json").write_text(json.dumps(config))


def test_files_and_the_question_are_one_user_turn(
    project: Path, pitui_home: Path, replay_server: ReplayServer
) -> None:
    write_models(pitui_home, replay_server)
    replay_server.add(Reply(body=ANTHROPIC_TEXT))
    result = run_pitui(
        project, "--model", "loop/tiny", "-p", "@notes.md", "@todo.txt", "what is in it"
    )
    assert result.returncode == 0, result.stderr
    [request] = replay_server.requests
    [message] = request.json()["messages"]
    assert message["content"][0]["text"] == (
        f'<file name="{project}/notes.md">\nhello notes\n\n</file>\n'
        f'<file name="{project}/todo.txt">\nbuy milk\n\n</file>\nwhat is in it'
    )


def test_an_image_for_a_text_only_model_is_refused_before_sending(
    project: Path, pitui_home: Path, replay_server: ReplayServer
) -> None:
    write_models(pitui_home, replay_server)
    result = run_pitui(project, "--model", "loop/tiny", "-p", "@img.png", "describe")
    assert result.returncode == 1
    assert "loop/tiny does not accept images" in result.stderr
    assert "Traceback" not in result.stderr
    assert replay_server.requests == []


def test_an_image_reaches_anthropic_as_an_image_block(
    project: Path, pitui_home: Path, replay_server: ReplayServer
) -> None:
    _image_models(pitui_home, replay_server, "anthropic-messages")
    replay_server.add(Reply(body=ANTHROPIC_TEXT))
    result = run_pitui(project, "--model", "loop/tiny", "-p", "@img.png", "describe")
    assert result.returncode == 0, result.stderr
    content = replay_server.requests[0].json()["messages"][0]["content"]
    assert content[0]["text"] == f'<file name="{project}/img.png"></file>\ndescribe'
    assert content[1]["type"] == "image"
    assert content[1]["source"]["type"] == "base64"
    assert content[1]["source"]["media_type"] == "image/png"


def test_an_image_reaches_openai_as_an_image_block(
    project: Path, pitui_home: Path, replay_server: ReplayServer
) -> None:
    _image_models(pitui_home, replay_server, "openai-completions")
    replay_server.add(Reply.sse_file("openai_chat_text.sse"))
    result = run_pitui(project, "--model", "loop/tiny", "-p", "@img.png", "describe")
    assert result.returncode == 0, result.stderr
    user = next(m for m in replay_server.requests[0].json()["messages"] if m["role"] == "user")
    kinds = [part["type"] for part in user["content"]]
    assert kinds == ["text", "image_url"]
    assert user["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")
