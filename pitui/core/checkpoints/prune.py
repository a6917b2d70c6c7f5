"""Housekeeping: the store keeps the trees some session still names, and loses the rest.

The trees named by checkpoint entries of this project's session files (under the pitui
sessions folder, plus every file that recorded a checkpoint, wherever it is) are made
reachable from one ref; ``git gc`` then packs them and prunes what no session names any
more and is older than the grace period (a checkpoint just taken, not yet in any file,
survives). Runs in the background at most once a day; ``pitui session checkpoints
--prune`` runs it at once.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from pathlib import Path

from pitui import paths
from pitui.core.checkpoints.engine import CheckpointEngine
from pitui.core.checkpoints.points import CHECKPOINT_TYPE

GRACE = "2.weeks.ago"
"""Unreferenced objects younger than this are kept (a session being written names them
soon; a session deleted by mistake can be put back from the trash within it)."""
_MARKER = CHECKPOINT_TYPE.encode()


@dataclass(frozen=True, slots=True)
class PruneResult:
    """What a prune kept and how big the store is afterwards."""

    sessions: int
    trees: int
    store_bytes: int


def _trees_in(path: Path, cwd: Path) -> set[str] | None:
    """Trees named in the session file at ``path`` if it belongs to ``cwd``. Blocking."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    header, _, rest = data.partition(b"\n")
    try:
        if Path(json.loads(header).get("cwd", "")).resolve() != cwd:
            return None
    except (ValueError, AttributeError, OSError):
        return None
    trees: set[str] = set()
    for line in rest.splitlines():
        if _MARKER not in line:
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        tree = entry.get("data", {}).get("tree") if isinstance(entry, dict) else None
        if entry.get("customType") == CHECKPOINT_TYPE and isinstance(tree, str):
            trees.add(tree)
    return trees


def _referenced(engine: CheckpointEngine) -> tuple[int, set[str], list[str]]:
    """(session files, trees they name, recorded files still present). Blocking."""
    state = engine.store.read_state()
    recorded = [p for p in state.get("sessions", []) if isinstance(p, str)]
    candidates = {str(p) for p in paths.sessions_dir().rglob("*.jsonl")} | set(recorded)
    files, trees = 0, set()
    for candidate in sorted(candidates):
        found = _trees_in(Path(candidate), engine.cwd)
        if found is not None:
            files += 1
            trees |= found
    return files, trees, [p for p in recorded if Path(p).exists()]


def _store_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


async def prune(engine: CheckpointEngine, grace: str = GRACE) -> PruneResult:
    """Keep the referenced trees, collect the rest (older than ``grace``)."""
    store, git = engine.store, engine.store.git
    async with engine.locked():
        files, trees, still_there = await asyncio.to_thread(_referenced, engine)
        present = await _present(engine, sorted(trees))
        keep_tree = await git.out(
            "mktree", "-z", stdin=b"".join(f"040000 tree {t}\t{t}\0".encode() for t in present)
        )
        commit = await git.out("commit-tree", keep_tree.decode().strip(), "-m", "pitui: kept")
        await git.run("update-ref", "refs/pitui/keep", commit.decode().strip())

        def note() -> None:
            state = store.read_state()
            state["sessions"] = still_there
            state["lastPrune"] = time.time()
            store.write_state(state)

        await asyncio.to_thread(note)
    # Unlocked: gc works beside a running checkpoint (new objects are within the grace
    # period, the index is not gc's), so a turn never waits for a repack.
    await git.run("gc", "--quiet", f"--prune={grace}")
    size = await asyncio.to_thread(_store_bytes, store.git_dir)
    return PruneResult(files, len(present), size)


async def _present(engine: CheckpointEngine, trees: list[str]) -> list[str]:
    """The trees the store still has."""
    if not trees:
        return []
    raw = await engine.store.git.out(
        "cat-file", "--batch-check", stdin="".join(f"{t}\n" for t in trees).encode()
    )
    found = (line.split(" ") for line in raw.decode().splitlines())
    return [parts[0] for parts in found if len(parts) == 3 and parts[1] == "tree"]
