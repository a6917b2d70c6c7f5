"""A session's files: checkpoints recorded in the session file, compared and restored.

A checkpoint is a ``custom`` entry (pi keeps it, shows it in its tree as extension state,
never sends it), ``customType: "pitui.checkpoint"``, data ``{"tree", "changed",
"changedCount", "reason"}``: the shadow store's tree id and the paths that differ from
the previous checkpoint of the path (at most :data:`MAX_LISTED` of them; the trees say the
rest). An unchanged tree records nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, NamedTuple, TypeAlias

from pitui.core.checkpoints.engine import CheckpointEngine
from pitui.core.checkpoints.errors import CheckpointError
from pitui.core.checkpoints.points import CHECKPOINT_TYPE, Point, PointFinder
from pitui.core.checkpoints.snapshot import Snapshot
from pitui.core.checkpoints.store import finish_blocking
from pitui.core.checkpoints.trees import EMPTY_TREE, Change
from pitui.core.session.store import SessionStore

if TYPE_CHECKING:
    from pitui.core.checkpoints.restore import RestoreOutcome

MAX_LISTED = 200
"""Changed paths named in one checkpoint entry."""
Reason: TypeAlias = Literal["beforeTools", "runEnd", "beforeRestore", "manual"]


class Recorded(NamedTuple):
    """A checkpoint that was just recorded."""

    entry_id: str
    tree: str
    changed: list[str]
    newly_skipped: list[str]


class Prepared(NamedTuple):
    """A snapshot taken ahead of the checkpoint that records it (:meth:`SessionFiles.prepare`)."""

    snapshot: Snapshot
    compared_with: str
    """The path's last checkpoint's tree when it was taken (the empty tree: none)."""
    changed: list[str]
    """The paths that differ from that tree."""


@dataclass(frozen=True, slots=True)
class Comparison:
    """A point's files against the working tree."""

    point: Point
    current_tree: str
    changes: list[Change]
    """What a restore would do, working tree → point."""

    @property
    def count(self) -> int:
        """Files that would change."""
        return len(self.changes)


@dataclass(frozen=True, slots=True)
class RestoreResult:
    """What a restore did, and what it saved first."""

    point: Point
    pre_restore: Point
    """The checkpoint of the files as they were (recorded, or the path's latest)."""
    outside: list[str]
    """Files changed outside pitui since pitui last left them (a checkpoint or a
    restore): saved first."""
    outcome: RestoreOutcome

    def summary(self) -> str:
        """One line for the user."""
        done = len(self.outcome.written) + len(self.outcome.deleted)
        text = f"Restored {done} file{'s' if done != 1 else ''}"
        if self.outside:
            count = len(self.outside)
            text += f"; {count} file{'s' if count != 1 else ''} changed outside pitui "
            text += f"{'were' if count != 1 else 'was'} saved first"
        if self.outcome.skipped:
            text += f"; {len(self.outcome.skipped)} left alone"
        return text + f" (undo: restore {self.pre_restore.entry_id})"


class SessionFiles:
    """Checkpoints of one session (``store``) in one project (``engine``)."""

    def __init__(self, engine: CheckpointEngine, store: SessionStore) -> None:
        self.engine = engine
        self.store = store
        self._finder: PointFinder | None = None
        self._noted = False

    @property
    def finder(self) -> PointFinder:
        """Which checkpoint an entry stands for."""
        if self._finder is None or self._finder.table is not self.store.table:
            self._finder = PointFinder(self.store.table)
        return self._finder

    def latest(self) -> Point | None:
        """The last checkpoint on the current path."""
        return self.finder.latest(self.store.get_leaf_id())

    async def prepare(self) -> Prepared:
        """Snapshot the project now, for a checkpoint recorded later (:meth:`record`):
        the files of a moment before the tools that will change them."""
        async with self.engine.locked():
            return await self._prepare_locked()

    async def _prepare_locked(self) -> Prepared:
        snap = await self.engine.snapshot_locked()
        previous = self.latest()
        old = previous.tree if previous else EMPTY_TREE
        return Prepared(snap, old, await self.engine.changed_paths_locked(old, snap.tree))

    async def record(self, reason: Reason, ahead: Prepared | None = None) -> Recorded | None:
        """Snapshot the project (or take ``ahead``, made by :meth:`prepare`); record it
        when it differs from the path's last checkpoint."""
        if ahead is not None:
            prepared = ahead
            async with self.engine.locked(then=lambda: self._note(ahead.snapshot.tree)):
                pass  # the note is all the lock is taken for
        else:
            async with self.engine.locked():
                prepared = await self._prepare_locked()
                await finish_blocking(self._note, prepared.snapshot.tree)
        snap = prepared.snapshot
        known = (prepared.compared_with, prepared.changed)
        return await self._append(snap.tree, reason, snap.newly_skipped, known=known)

    def _note(self, tree: str) -> None:
        """The files are ``tree`` now; this session names the store's trees. Blocking,
        with the store locked."""
        self.engine.note_last_tree(tree)
        if not self._noted and self.store.path is not None:
            self._noted = True
            self.engine.store.note_session(self.store.path)

    async def _append(
        self,
        tree: str,
        reason: Reason,
        newly_skipped: list[str] | None = None,
        known: tuple[str, list[str]] | None = None,
    ) -> Recorded | None:
        """Record ``tree`` unless it is the path's last checkpoint; ``known``: a
        comparison already made, (old tree, paths changed old → ``tree``)."""
        previous = self.latest()
        if previous is not None and previous.tree == tree:
            return None
        old = previous.tree if previous else EMPTY_TREE
        if known is not None and known[0] == old:
            paths = known[1]
        else:
            paths = [change.path for change in await self.engine.changes(old, tree)]
        data = {
            "tree": tree,
            "changed": paths[:MAX_LISTED],
            "changedCount": len(paths),
            "reason": reason,
        }
        entry_id = await self.store.append_custom_entry(CHECKPOINT_TYPE, data)
        return Recorded(entry_id, tree, paths, newly_skipped or [])

    def point_for(self, entry_id: str, *, before: bool | None = None) -> Point | None:
        """The checkpoint of ``entry_id``: as a move there brings (None), or just before
        it (True), or with it as the leaf (False)."""
        finder = self.finder
        if before is None:
            return finder.for_target(entry_id)
        return finder.before(entry_id) if before else finder.at(entry_id)

    async def compare(self, point: Point) -> Comparison:
        """The working tree against ``point`` (the snapshot taken for it records nothing).

        Raises:
            CheckpointError: the store no longer holds the point's files.
        """
        await self._require(point)
        snap = await self.engine.snapshot()
        return Comparison(point, snap.tree, await self.engine.changes(snap.tree, point.tree))

    async def differs(self) -> bool:
        """True when the working tree is not the current point's checkpoint."""
        leaf = self.store.get_leaf_id()
        point = self.finder.at(leaf) if leaf is not None else None
        if point is None:
            return False
        snap = await self.engine.snapshot()
        return snap.tree != point.tree

    async def restore(self, point: Point) -> RestoreResult:
        """Checkpoint the working tree (recorded at the leaf), then make the files ``point``'s.

        Raises:
            CheckpointError: the store lacks the point's files, or git failed.
        """
        await self._require(point)
        engine = self.engine
        async with engine.locked():
            pre = await engine.snapshot_locked()
            previous = self.latest()
            known = await engine.last_known() or (previous.tree if previous else None)
            outside: list[Change] = []
            if known is not None and known != pre.tree and await engine.has_tree(known):
                outside = await engine.changes(known, pre.tree)
            compared = (known, [c.path for c in outside]) if known is not None else None
            recorded = await self._append(pre.tree, "beforeRestore", known=compared)
            await self.store.flush()  # on disk before the first file is written
            if recorded is not None:
                pre_point = Point(recorded.entry_id, recorded.tree)
            else:
                pre_point = previous or Point("", pre.tree)
            outcome = await engine.restore_locked(pre.tree, point.tree)
            await engine.remember(point.tree)
        return RestoreResult(point, pre_point, [c.path for c in outside], outcome)

    async def _require(self, point: Point) -> None:
        if not await self.engine.has_tree(point.tree):
            raise CheckpointError(
                f"The files of checkpoint {point.entry_id} are not in the checkpoint store "
                f"{self.engine.store.git_dir} (pruned, or the session comes from elsewhere)"
            )
