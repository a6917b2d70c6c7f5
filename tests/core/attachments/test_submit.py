"""The TUI's submit pipeline: command expanded, typed @ files attached, images checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from pitui.ai.types import ImageContent
from pitui.core.attachments.files import AttachmentError
from pitui.core.attachments.submit import prepare_submission
from pitui.core.resources.commands import names_resource_command, resource_commands
from pitui.core.session_setup import SessionOptions, create_agent_session


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pitui_home: Path) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    root = tmp_path / "proj"
    (root / ".pi" / "prompts").mkdir(parents=True)
    (root / ".pi" / "prompts" / "review.md").write_text(
        '---\ndescription: Review a file\nargument-hint: "<file>"\n---\nReview $1 carefully'
    )
    (root / "notes.md").write_text("hello notes\n")
    skill = pitui_home / "skills" / "hello"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: hello\ndescription: Greets.\n---\nSay hi.\n")
    return root


async def test_a_template_with_a_typed_file(project: Path) -> None:
    session = await create_agent_session(
        SessionOptions(cwd=project, no_session=True, trust_project=True)
    )
    prepared = await prepare_submission(session, "/review @notes.md")
    assert prepared.text == (
        f'<file name="{project}/notes.md">\nhello notes\n\n</file>\nReview @notes.md carefully'
    )
    commands = resource_commands(session.resources)
    assert [(c.name, c.argument_hint) for c in commands] == [
        ("review", "<file>"),
        ("skill:hello", "[request]"),
    ]
    assert resource_commands(session.resources, skill_commands=False)[-1].name == "review"
    assert names_resource_command("/review x", session.resources)
    assert names_resource_command("/skill:hello", session.resources)
    assert not names_resource_command("/model", session.resources)


async def test_pasted_images_need_a_model_with_image_input(project: Path) -> None:
    session = await create_agent_session(SessionOptions(cwd=project, no_session=True))
    assert session.model is not None
    image = ImageContent(data="aGk=", mime_type="image/png")
    if "image" in session.model.input:
        prepared = await prepare_submission(session, "look", [image])
        assert prepared.images == [image]
    else:
        with pytest.raises(AttachmentError, match="does not accept images"):
            await prepare_submission(session, "look", [image])
