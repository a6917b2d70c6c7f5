"""Tools the user installed in a temp dir and put on ``PATH`` (a venv, a node_modules'
``.bin``, a ``/tmp/x/bin``) work in sandboxed bash, read-only, though the sandbox gives
each command private temp dirs; the rest of the real ``/tmp`` stays out of its sight.
Real backends, skipped when the machine has none (or Landlock has no namespace)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pitui.core.sandbox import SandboxKind, path_tools
from tests.core.sandbox_support import NAMESPACES, backends, output_of, sandboxed_bash


def _private_temp(kind: SandboxKind) -> None:
    if kind == "landlock" and not NAMESPACES:
        pytest.skip("Landlock has no mount namespace here: /tmp is the machine's own")


def _install(root: Path) -> tuple[Path, Path]:
    """A tool with a ``bin`` folder and a file of its own beside it; a folder of links
    to a script of another install. Returns the two ``PATH`` entries."""
    bin_dir = root / "tool" / "bin"
    bin_dir.mkdir(parents=True)
    (root / "tool" / "share").mkdir()
    (root / "tool" / "share" / "greeting.txt").write_text("hello from the tool\n")
    script = bin_dir / "hello-tool"
    script.write_text(f'#!/bin/sh\ncat "{root}/tool/share/greeting.txt"\n')
    script.chmod(0o755)
    dist = root / "pkg" / "dist"
    dist.mkdir(parents=True)
    (dist / "linked.sh").write_text("#!/bin/sh\necho linked tool ran\n")
    (dist / "linked.sh").chmod(0o755)
    links = root / "links"
    links.mkdir()
    (links / "linked-tool").symlink_to(dist / "linked.sh")
    return bin_dir, links


def test_the_path_entries_in_a_temp_dir_and_what_their_links_need(tmp_path: Path) -> None:
    root = Path(os.path.realpath(tmp_path))
    bin_dir, links = _install(root)
    entries = os.pathsep.join([str(bin_dir), str(links), "/usr/bin", "relative/bin", "/tmp"])
    assert path_tools(entries) == (str(root / "tool"), str(links), str(root / "pkg" / "dist"))


@pytest.fixture
def installed(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(the real tmp_path, the two ``PATH`` entries), a secret and a project beside."""
    root = Path(os.path.realpath(tmp_path))
    bin_dir, links = _install(root)
    (root / "secret.txt").write_text("not for the sandbox\n")
    (root / "project").mkdir()
    return root, bin_dir, links


@pytest.mark.parametrize("kind", backends())
async def test_a_tool_on_path_in_tmp_runs_read_only_and_the_rest_stays_hidden(
    kind: SandboxKind, installed: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _private_temp(kind)
    root, bin_dir, links = installed
    project = root / "project"
    monkeypatch.setenv("PATH", os.pathsep.join([str(bin_dir), str(links), os.environ["PATH"]]))
    tool = sandboxed_bash(kind, project)
    assert "hello from the tool" in await output_of(tool, "hello-tool")
    assert "linked tool ran" in await output_of(tool, "linked-tool")
    hidden = await output_of(tool, f"cat {root}/secret.txt || echo HIDDEN")
    assert "HIDDEN" in hidden and "not for the sandbox" not in hidden
    refused = await output_of(tool, f"touch {bin_dir}/new && echo WROTE || echo REFUSED")
    assert "REFUSED" in refused and not (bin_dir / "new").exists()
