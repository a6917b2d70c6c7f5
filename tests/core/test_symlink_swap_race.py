"""``write``/``edit`` never land outside the project, even while a process swaps links in.

A real background process keeps swapping a project file for a symlink to a file outside
(and a project folder for a symlink to a folder outside), atomically, while the tools
write through the gate hundreds of times. Before the confined open, about 1 write in 60
went through the link (issue 21 item 11); now none may, whether the kernel has
``openat2`` or the ``O_NOFOLLOW`` walk is used.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pitui.agent.tool import ToolError
from pitui.ai.abort import AbortSignal
from pitui.core.permissions import PermissionGate, PermissionPolicy
from pitui.core.tools import confined_open
from pitui.core.tools.edit import EditParams, EditTool
from pitui.core.tools.write import WriteParams, WriteTool

SWAPPER = """
import os, shutil, sys
project, outside = sys.argv[1], sys.argv[2]
os.chdir(project)
while True:
    try:  # the file and the folder become links out...
        os.symlink(os.path.join(outside, "secret.txt"), ".link")
        os.replace(".link", "target.txt")
        shutil.rmtree("dir", ignore_errors=True)
        os.symlink(os.path.join(outside, "d"), "dir")
    except OSError:
        pass
    try:  # ... and plain again
        with open(".file", "w") as f:
            f.write("old\\n")
        os.replace(".file", "target.txt")
        os.unlink("dir")
        os.mkdir("dir")
    except OSError:
        pass
"""

ROUNDS = 300


@pytest.fixture
def layout(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    (outside / "d").mkdir(parents=True)
    (outside / "secret.txt").write_text("old\n")
    (project / "target.txt").write_text("old\n")
    (project / "dir").mkdir()
    swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, str(project), str(outside)])
    try:
        yield project, outside
    finally:
        swapper.kill()
        swapper.wait()


async def _hammer(project: Path) -> tuple[int, int]:
    gate = PermissionGate(PermissionPolicy(project, "workspace"))
    write = WriteTool(project, check_path=gate.confirm_write)
    edit = EditTool(project, check_path=gate.confirm_write)
    signal = AbortSignal()
    done = refused = 0
    for n in range(ROUNDS):
        for tool, params in (
            (write, WriteParams(path="target.txt", content=f"w{n}\n")),
            (write, WriteParams(path="dir/f.txt", content=f"w{n}\n")),
            (edit, EditParams(path="target.txt", old_text="old", new_text="new")),
        ):
            call = f"c{n}-{tool.name}-{params.path}"
            if await gate.check(call, tool.name, {"path": params.path}) is not None:
                refused += 1
                continue
            try:
                await tool.execute(call, params, signal, lambda _update: None)
                done += 1
            except ToolError:
                refused += 1
    return done, refused


def _untouched(outside: Path) -> None:
    assert (outside / "secret.txt").read_text() == "old\n"
    assert list((outside / "d").iterdir()) == []


async def test_a_swapped_in_symlink_never_carries_a_write_out(layout: tuple[Path, Path]) -> None:
    project, outside = layout
    done, refused = await _hammer(project)
    _untouched(outside)
    assert done > 0 and refused > 0  # the race really ran both ways


async def test_the_walk_without_openat2_holds_too(
    layout: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(confined_open, "_openat2_missing", True)
    project, outside = layout
    done, refused = await _hammer(project)
    _untouched(outside)
    assert done > 0 and refused > 0


async def test_links_that_stay_inside_still_work(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "alias").symlink_to("src")
    (tmp_path / "src" / "a.txt").write_text("old\n")
    gate = PermissionGate(PermissionPolicy(tmp_path, "workspace"))
    write = WriteTool(tmp_path, check_path=gate.confirm_write)
    assert await gate.check("c1", "write", {"path": "alias/b/c.txt"}) is None
    await write.execute("c1", WriteParams(path="alias/b/c.txt", content="x"), AbortSignal(), print)
    assert (tmp_path / "src" / "b" / "c.txt").read_text() == "x"
    edit = EditTool(tmp_path, check_path=gate.confirm_write)
    assert await gate.check("c2", "edit", {"path": "alias/a.txt"}) is None
    params = EditParams(path="alias/a.txt", old_text="old", new_text="new")
    await edit.execute("c2", params, AbortSignal(), print)
    assert (tmp_path / "src" / "a.txt").read_text() == "new\n"


async def test_a_hard_link_or_a_fifo_is_refused(tmp_path: Path) -> None:
    import os

    outside = tmp_path / "outside.txt"
    outside.write_text("old\n")
    project = tmp_path / "project"
    project.mkdir()
    os.link(outside, project / "hard.txt")
    os.mkfifo(project / "pipe")
    gate = PermissionGate(PermissionPolicy(project, "workspace"))
    write = WriteTool(project, check_path=gate.confirm_write)
    for name in ("hard.txt", "pipe"):
        assert await gate.check(name, "write", {"path": name}) is None
        with pytest.raises(ToolError):
            await write.execute(name, WriteParams(path=name, content="x"), AbortSignal(), print)
    assert outside.read_text() == "old\n"
