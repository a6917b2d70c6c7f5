"""The checkpoint engine of one project folder: snapshot, compare, restore.

It knows nothing of sessions: a snapshot is a tree id, a restore goes from one tree to
another. Callers that must record something between two steps (the pre-restore
checkpoint before the first file is written) hold :meth:`CheckpointEngine.locked` and
use the ``*_locked`` methods.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from pitui.core.checkpoints.git import git_problem
from pitui.core.checkpoints.index_reader import index_paths
from pitui.core.checkpoints.snapshot import Snapshot, take_snapshot, update_index
from pitui.core.checkpoints.store import Limits, ShadowStore
from pitui.core.checkpoints.trees import EMPTY_TREE, Change, diff_trees, has_tree, read_blobs

if TYPE_CHECKING:
    from pitui.core.checkpoints.restore import RestoreOutcome


class CheckpointEngine:
    """Snapshots and restores of the project folder ``cwd`` through its shadow store."""

    def __init__(self, cwd: Path, limits: Limits | None = None) -> None:
        self.store = ShadowStore(cwd, limits)

    @property
    def cwd(self) -> Path:
        """The project folder (resolved)."""
        return self.store.cwd

    @staticmethod
    async def problem() -> str | None:
        """Why checkpoints cannot work on this machine (git missing or too old)."""
        return await git_problem()

    @asynccontextmanager
    async def locked(self, then: Callable[[], None] | None = None) -> AsyncIterator[None]:
        """Hold the store for a sequence of steps (other pitui processes wait); ``then``:
        blocking work to do first, in the thread that took the lock."""

        def first() -> None:
            self.store.clean_leftovers()
            if then is not None:
                then()

        async with self.store.locked(then=first):
            yield

    async def snapshot(self) -> Snapshot:
        """Snapshot the project now."""
        async with self.locked():
            return await self.snapshot_locked()

    async def snapshot_locked(self) -> Snapshot:
        """:meth:`snapshot` for a caller holding :meth:`locked`."""
        return await take_snapshot(self.store)

    async def restore_locked(self, current: str, target: str) -> RestoreOutcome:
        """Make the files ``target``'s, given they are ``current`` (just snapshotted);
        then record the paths it wrote in the store's index, so that it matches the
        project again (their contents are in the store already)."""
        from pitui.core.checkpoints.restore import restore_tree  # restores are rare

        outcome = await restore_tree(self.store, current, target)
        if not await update_index(self.store, [*outcome.written, *outcome.deleted]):
            await take_snapshot(self.store)
        return outcome

    async def last_known(self) -> str | None:
        """The tree pitui last left the project in (a recorded checkpoint or a restore):
        what differs from it now was changed outside pitui."""
        tree = (await asyncio.to_thread(self.store.read_state)).get("lastTree")
        return tree if isinstance(tree, str) else None

    async def remember(self, tree: str) -> None:
        """Note that the project's files are ``tree`` (see :meth:`last_known`)."""
        await asyncio.to_thread(self.note_last_tree, tree)

    def note_last_tree(self, tree: str) -> None:
        """:meth:`remember`, blocking (for a caller holding :meth:`locked`)."""
        state = self.store.read_state()
        if state.get("lastTree") != tree:
            state["lastTree"] = tree
            self.store.write_state(state)

    async def changes(self, old: str, new: str) -> list[Change]:
        """What differs from tree ``old`` to tree ``new``."""
        return await diff_trees(self.store.git, old, new)

    async def changed_paths_locked(self, old: str, snapped: str) -> list[str]:
        """The paths that differ from tree ``old`` to ``snapped``, the tree the caller
        (holding :meth:`locked`) has just snapshotted: the store's index is exactly that
        tree still, so from the empty tree (a session's first checkpoint) its own list
        answers, without a git process."""
        if old == snapped:
            return []
        if old == EMPTY_TREE:
            listed = await asyncio.to_thread(index_paths, str(self.store.git_dir / "index"))
            if listed is not None:
                return listed
        return [change.path for change in await self.changes(old, snapped)]

    async def has_tree(self, tree: str) -> bool:
        """True if the store still holds ``tree``."""
        return self.store.exists() and await has_tree(self.store.git, tree)

    async def contents(self, blobs: list[str]) -> dict[str, bytes]:
        """File contents by blob id."""
        return await read_blobs(self.store.git, blobs)
