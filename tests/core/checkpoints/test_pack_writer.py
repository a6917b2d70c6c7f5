"""pitui's own pack writer against real git: what it writes, git reads and trusts (fsck),
and the tree ids are git's own; a snapshot of many files writes no loose object."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from pitui.core.checkpoints import index_writer, snapshot
from pitui.core.checkpoints.engine import CheckpointEngine
from pitui.core.checkpoints.pack_writer import write_pack, write_tree_pack
from pitui.core.checkpoints.trees import list_tree
from tests.core.checkpoints.helpers import make_project


def _git(store: Path, *args: str, cwd: Path, stdin: bytes | None = None) -> bytes:
    env = {
        **os.environ,
        "GIT_DIR": str(store),
        "GIT_WORK_TREE": str(cwd),
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    done = subprocess.run(["git", *args], cwd=cwd, env=env, input=stdin, capture_output=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_pack_and_trees_are_what_git_would_write(tmp_path: Path) -> None:
    project = tmp_path / "p"
    files = {
        "a.txt": b"alpha\n",
        "a-b.txt": b"sorted before a/ but after a.txt\n",
        "a/inner.py": b"x = 1\n",
        "a/deeper/z.bin": bytes(range(256)) * 300,
        "same.txt": b"alpha\n",  # same content as a.txt: one object
        "empty": b"",
    }
    for name, data in files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_bytes(data)
    (project / "tool.sh").write_bytes(b"#!/bin/sh\n")
    (project / "tool.sh").chmod(0o755)
    os.symlink("a.txt", project / "link")
    os.mkfifo(project / "fifo")  # never read (it would block)
    store = tmp_path / "store"
    subprocess.run(["git", "init", "-q", "--bare", str(store)], check=True)
    listed = [*files, "tool.sh", "link", "fifo", "missing.txt"]
    packed = write_pack(store / "objects" / "pack", project, listed, limit=1 << 20)
    assert packed.objects == len(files) - 1 + 1  # same.txt shares a.txt's object; +tool.sh
    assert set(packed.files) == {*files, "tool.sh"}  # not the link, the FIFO, the missing
    stdin = b"".join(name.encode() + b"\0" for name in [*files, "tool.sh", "link"])
    _git(store, "update-index", "--add", "-z", "--stdin", cwd=project, stdin=stdin)
    loose_before = set((store / "objects").glob("??/*"))
    assert len(loose_before) == 1  # only the symlink's blob, which git wrote itself
    staged = _git(store, "ls-files", "-s", "-z", cwd=project)
    assert write_tree_pack(store / "objects" / "pack", staged) == 3  # /, a, a/deeper
    tree = _git(store, "write-tree", cwd=project).strip()
    assert set((store / "objects").glob("??/*")) == loose_before  # every tree was packed
    _git(store, "fsck", "--full", "--strict", cwd=project)
    blob = _git(store, "rev-parse", f"{tree.decode()}:a/deeper/z.bin", cwd=project).strip()
    assert _git(store, "cat-file", "blob", blob.decode(), cwd=project) == files["a/deeper/z.bin"]


async def test_a_large_first_snapshot_writes_no_loose_object(tmp_path: Path) -> None:
    names = {
        f"pkg{i % 7}/sub{i % 3}/f{i}.py": f"value = {i}\n" for i in range(snapshot.BULK_FILES * 2)
    }
    project = make_project(tmp_path / "p", names)
    engine = CheckpointEngine(project)
    snap = await engine.snapshot()
    objects = engine.store.git_dir / "objects"
    assert not list(objects.glob("??/*"))
    assert len(list((objects / "pack").glob("*.idx"))) == 2  # the files, then their trees
    assert set(await list_tree(engine.store.git, snap.tree)) == set(names)
    # pitui wrote the index: git trusts its stat data (nothing to re-hash) and reads it.
    assert (await engine.store.git.out("ls-files", "-m", "-z")) == b""
    assert len((await engine.store.git.out("ls-files", "-z")).split(b"\0")) - 1 == len(names)
    (project / "pkg0" / "sub0" / "f0.py").write_text("changed\n")
    assert (await engine.snapshot()).tree != snap.tree
    (project / "pkg0" / "sub0" / "f0.py").write_text("value = 0\n")
    assert (await engine.snapshot()).tree == snap.tree


async def test_when_update_index_refuses_add_does_the_job(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_project(tmp_path / "p", {"ok.txt": "ok\n"})
    engine = CheckpointEngine(project)
    first = await engine.snapshot()
    (project / "ok.txt").write_text("changed\n")
    (project / "new.txt").write_text("new\n")

    async def refuse(store: object, paths: list[str]) -> bool:
        return False

    monkeypatch.setattr(snapshot, "update_index", refuse)
    snap = await engine.snapshot()
    files = await list_tree(engine.store.git, snap.tree)
    assert snap.tree != first.tree and {"ok.txt", "new.txt"} <= set(files)


async def test_an_index_git_refuses_is_rebuilt_by_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = {f"d{i % 5}/f{i}.txt": f"{i}\n" for i in range(snapshot.BULK_FILES + 5)}
    project = make_project(tmp_path / "p", names)

    def broken(index: Path, files: object) -> None:
        index.write_bytes(b"DIRC not an index")

    monkeypatch.setattr(index_writer, "write_fresh_index", broken)
    engine = CheckpointEngine(project)
    snap = await engine.snapshot()
    assert set(await list_tree(engine.store.git, snap.tree)) == set(names)
    assert (await engine.store.git.out("ls-files", "-m", "-z")) == b""


def test_a_folder_of_many_files_makes_a_tree_git_reads(tmp_path: Path) -> None:
    """A tree larger than zlib's largest window (32 KB) is stored and read back."""
    from pitui.core.checkpoints.pack_writer import _trees

    store = tmp_path / "store"
    subprocess.run(["git", "init", "-q", "--bare", str(store)], check=True)
    blob = b"e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"  # the empty file
    staged = b"".join(b"100644 %s 0\tbig/f%05d.txt\0" % (blob, i) for i in range(3000))
    assert write_tree_pack(store / "objects" / "pack", staged) == 2
    root = [t.oid.hex() for t in _trees(staged)][-1]
    listing = _git(store, "ls-tree", "-r", "--name-only", "-z", root, cwd=tmp_path)
    assert listing.count(b"\0") == 3000
    _git(store, "cat-file", "-p", f"{root}:big", cwd=tmp_path)  # the 120 KB tree inflates
