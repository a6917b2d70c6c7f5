"""The gate judges a path by where it resolves: symlinks out of the project are outside."""

from __future__ import annotations

from pathlib import Path

import pytest

from pitui.agent.tool import ToolError
from pitui.core.permissions import PermissionGate, PermissionPolicy
from pitui.core.session_setup import SessionOptions, create_agent_session
from pitui.core.tools.edit import EditTool
from pitui.core.tools.write import WriteTool
from tests.core.tools.helpers import run


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """``project/link -> outside`` with ``outside/y.txt`` already there."""
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (outside / "y.txt").write_text("old\n")
    (project / "link").symlink_to(outside)
    return project, outside


@pytest.mark.parametrize(
    ("tool", "path"),
    [
        ("write", "link/x.txt"),  # a new file: its nearest existing parent is the link
        ("write", "link/new/dir/x.txt"),
        ("edit", "link/y.txt"),
        ("write", "./link/../link/y.txt"),
    ],
)
def test_a_symlink_out_of_the_project_is_outside(
    layout: tuple[Path, Path], tool: str, path: str
) -> None:
    project, _ = layout
    assert PermissionPolicy(project, "workspace").verdict(tool, {"path": path})[0] == "deny"
    ask = PermissionPolicy(project, "ask", allow_tools=["write", "edit"])
    assert ask.verdict(tool, {"path": path}) == ("ask", "writes outside the project")


def test_a_dangling_link_counts_where_it_points(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "dangling").symlink_to(tmp_path / "not-yet")
    policy = PermissionPolicy(project, "workspace")
    assert policy.verdict("write", {"path": "dangling"})[0] == "deny"


def test_a_project_reached_through_a_symlink_is_still_inside(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "alias").symlink_to(real)
    policy = PermissionPolicy(tmp_path / "alias", "workspace")
    assert policy.verdict("write", {"path": "a.txt"})[0] == "allow"
    assert policy.verdict("write", {"path": str(real / "b.txt")})[0] == "allow"


def test_links_that_stay_inside_are_inside(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "src")
    policy = PermissionPolicy(tmp_path, "workspace")
    assert policy.verdict("edit", {"path": "alias/a"})[0] == "allow"


def test_pitui_project_folder_is_not_writable_by_tools(tmp_path: Path) -> None:
    policy = PermissionPolicy(tmp_path, "workspace")
    assert policy.verdict("write", {"path": ".pitui/settings.json"})[0] == "deny"
    assert policy.verdict("write", {"path": "pitui/settings.json"})[0] == "allow"


async def test_tools_recheck_a_path_that_became_a_symlink(layout: tuple[Path, Path]) -> None:
    """The call is judged inside; a link made before it runs must not carry it out."""
    project, outside = layout
    gate = PermissionGate(PermissionPolicy(project, "workspace"))
    assert await gate.check("call-1", "write", {"path": "later/x.txt"}) is None
    assert await gate.check("call-1", "edit", {"path": "later/y.txt"}) is None
    (project / "later").symlink_to(outside)
    with pytest.raises(ToolError, match="resolves outside the project"):
        write = WriteTool(project, check_path=gate.confirm_write)
        await run(write, path="later/x.txt", content="x")
    with pytest.raises(ToolError, match="resolves outside the project"):
        edit = EditTool(project, check_path=gate.confirm_write)
        await run(edit, path="later/y.txt", oldText="old", newText="new")
    assert not (outside / "x.txt").exists()
    assert (outside / "y.txt").read_text() == "old\n"


async def test_a_write_the_user_allowed_outside_is_not_refused(layout: tuple[Path, Path]) -> None:
    project, outside = layout
    gate = PermissionGate(PermissionPolicy(project, "all"))
    assert await gate.check("call-1", "write", {"path": "link/x.txt"}) is None
    await run(WriteTool(project, check_path=gate.confirm_write), path="link/x.txt", content="x")
    assert (outside / "x.txt").read_text() == "x"


@pytest.mark.parametrize("prompt", ["write link/x.txt: escaped", "change old to new in link/y.txt"])
async def test_print_mode_session_cannot_write_through_a_link(
    layout: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, prompt: str
) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")
    project, outside = layout
    options = SessionOptions(cwd=project, approve="workspace", no_session=True)
    session = await create_agent_session(options)
    denied: list[str] = []
    session.subscribe(lambda e: denied.append(e.type) if e.type == "tool_denied" else None)
    await session.prompt(prompt)
    await session.close()
    assert denied == ["tool_denied"]
    assert not (outside / "x.txt").exists()
    assert (outside / "y.txt").read_text() == "old\n"
