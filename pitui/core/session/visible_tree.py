"""The tree of the rows a filter leaves visible, and where each row is drawn.

Hidden entries' children hang under their nearest visible ancestor (pi's
recalculateVisualStructure). The links are kept in flat integer arrays indexed by entry
position, not in a dict of lists: a search keystroke rebuilds this for every row, and
thousands of small lists per keystroke would keep the garbage collector busy.

A row's :class:`Shape` (indent, connector, gutters) follows from its visible ancestors';
it is computed when the row is first drawn (:meth:`VisibleTree.shape`), so a view pays
only for the rows on screen and their ancestors. The ancestors of a row drawn at the
end of a 10,000-entry path are 10,000 rows, nearly all with one shape: each row holds
the number of its shape among the distinct ones (:class:`ShapeTable`), not a dict entry.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from typing import NamedTuple, TypeAlias

Gutters: TypeAlias = tuple[tuple[int, bool], ...]
"""(indent level, draw ``│``) for each branch point above a row."""

HIDDEN = -2
ROOT = -1


class Shape(NamedTuple):
    """Where a visible row sits: pi's indent, connector and gutters."""

    indent: int
    connector: bool
    last: bool
    gutters: Gutters
    virtual: bool
    """A root under pi's virtual root (several roots): no connector is drawn."""


class PositionSet:
    """A set of entry positions as one byte per entry (a set of 10,000 ints holds ~0.8 MB
    with the ints; this 10 KB): the active path of a tree view."""

    __slots__ = ("_flags",)

    def __init__(self, positions: Iterable[int] = (), size: int = 0) -> None:
        self._flags = flags = bytearray(size)
        for position in positions:
            if position < size:  # (a path of 10,000 entries: no method call per entry)
                flags[position] = 1
            else:
                self.add(position)

    def __contains__(self, position: object) -> bool:
        if not isinstance(position, int):
            return False
        flags = self._flags
        return 0 <= position < len(flags) and flags[position] == 1

    def count(self, positions: Iterable[int]) -> int:
        """How many of ``positions`` are in the set (no method call per position)."""
        flags = self._flags
        size = len(flags)
        return sum(1 for p in positions if p < size and flags[p])

    def add(self, position: int) -> None:
        flags = self._flags
        if position >= len(flags):
            flags.extend(bytes(position + 1 - len(flags)))
        flags[position] = 1


class Children:
    """Each entry's children in order, as two int arrays (first child, next sibling):
    a tuple or list per entry held ~0.9 MB on a 10,000-entry session, these 80 KB."""

    __slots__ = ("_first", "_last", "_next")

    def __init__(self, lists: Sequence[Sequence[int]]) -> None:
        size = len(lists)
        self._first = first = array("i", [-1]) * size
        self._last = last = array("i", [-1]) * size
        self._next = after = array("i", [-1]) * size
        for parent, kids in enumerate(lists):
            previous = -1
            for kid in kids:
                if previous < 0:
                    first[parent] = kid
                else:
                    after[previous] = kid
                previous = kid
            last[parent] = previous

    def __len__(self) -> int:
        return len(self._first)

    def __getitem__(self, position: int) -> tuple[int, ...]:
        first, after = self._first, self._next
        kid = first[position]
        if kid < 0:
            return ()
        kids = [kid]
        kid = after[kid]
        while kid >= 0:
            kids.append(kid)
            kid = after[kid]
        return tuple(kids)

    def has(self, position: int) -> bool:
        """Whether the entry has a child."""
        return self._first[position] >= 0

    def forks_on(self, path: Sequence[int]) -> list[int]:
        """The indexes ``k >= 1`` of ``path`` (a chain, root first: ``path[k - 1]`` is
        ``path[k]``'s parent) whose entry has siblings: its parent's first child has a
        next one. No tuple of children per step (a switch asks twice, on the whole path)."""
        first, after = self._first, self._next
        return [k for k in range(1, len(path)) if after[first[path[k - 1]]] >= 0]

    def depth_first(self, roots: Sequence[int], first: PositionSet) -> list[int]:
        """Every entry under ``roots`` in depth-first order, parents first; of several
        children those in ``first`` come first (else file order, as stored)."""
        first_child, after = self._first, self._next
        order: list[int] = []
        stack = list(reversed(roots))
        while stack:
            position = stack.pop()
            order.append(position)
            kid = first_child[position]
            if kid < 0:
                continue
            if after[kid] < 0:  # one child: a chain, the common case
                stack.append(kid)
                continue
            kids = self[position]
            ranked = [k for k in kids if k in first] + [k for k in kids if k not in first]
            stack.extend(reversed(ranked))
        return order

    def append_entry(self) -> None:
        """Make room for one more entry (without children)."""
        for column in (self._first, self._last, self._next):
            column.append(-1)

    def add(self, parent: int, child: int) -> None:
        """Hang ``child`` under ``parent`` as its last child."""
        last = self._last[parent]
        if last < 0:
            self._first[parent] = child
        else:
            self._next[last] = child
        self._last[parent] = child


class ShapeTable:
    """Position → :class:`Shape`, each row holding the number of its shape among the
    distinct shape objects (a chain's rows share their parent's object)."""

    __slots__ = ("_ids", "_number", "_shapes")

    def __init__(self, size: int) -> None:
        self._number = array("i", [-1]) * size
        self._shapes: list[Shape] = []
        self._ids: dict[int, int] = {}
        """id of a shape → its number (the shape is kept alive in ``_shapes``)."""

    def __contains__(self, position: int) -> bool:
        return 0 <= position < len(self._number) and self._number[position] >= 0

    def __getitem__(self, position: int) -> Shape:
        number = self._number[position] if 0 <= position < len(self._number) else -1
        if number < 0:
            raise KeyError(position)
        return self._shapes[number]

    def __setitem__(self, position: int, shape: Shape) -> None:
        number = self._ids.get(id(shape))
        if number is None:
            number = self._ids[id(shape)] = len(self._shapes)
            self._shapes.append(shape)
        if position >= len(self._number):
            self._number.extend([-1] * (position + 1 - len(self._number)))
        self._number[position] = number

    def grow(self, size: int) -> None:
        """Make room for entries appended to the table."""
        if size > len(self._number):
            self._number.extend([-1] * (size - len(self._number)))

    def forget(self, positions: Iterable[int]) -> None:
        """The shapes of ``positions`` are computed again when next asked for."""
        number = self._number
        for position in positions:
            if 0 <= position < len(number):
                number[position] = -1

    def __len__(self) -> int:
        """How many distinct shapes are kept."""
        return len(self._shapes)

    def move(self, old: int, new: int) -> None:
        """``new`` takes ``old``'s shape (if it has one); ``old`` has none after."""
        if old in self:
            self[new] = self[old]
            self._number[old] = -1


class VisibleTree:
    """Visible parent, child count, first and last child of every visible row."""

    def __init__(self, size: int) -> None:
        self.parent = array("i", [HIDDEN]) * size
        """Visible parent position, ``ROOT`` for a visible root, ``HIDDEN`` if not shown."""
        self.count = array("i", [0]) * size
        self.first = array("i", [-1]) * size
        self.last = array("i", [-1]) * size
        self.root_count = 0
        self.first_root = -1
        self.last_root = -1
        self.shapes = ShapeTable(size)

    @classmethod
    def build(cls, order: Sequence[int], shown: bytearray, ppos: Sequence[int]) -> VisibleTree:
        """From the entries in row order (parents first), which are shown, and each entry's
        parent position (-1 for a root)."""
        tree = cls(len(ppos))
        nearest = array("i", [-1]) * len(ppos)  # nearest visible ancestor-or-self
        for position in order:
            parent = ppos[position]
            above = nearest[parent] if parent >= 0 else -1
            if shown[position]:
                tree.link(above, position)
                nearest[position] = position
            else:
                nearest[position] = above
        return tree

    def grow(self, size: int) -> None:
        """Make room for entries appended to the table."""
        extra = size - len(self.parent)
        if extra > 0:
            self.parent.extend([HIDDEN] * extra)
            self.count.extend([0] * extra)
            self.first.extend([-1] * extra)
            self.last.extend([-1] * extra)
        self.shapes.grow(size)

    # ------------------------------------------------------------------ links

    def link(self, parent: int, child: int) -> None:
        """Hang ``child`` under ``parent`` (``ROOT``: a root) as its last child."""
        self.parent[child] = parent
        if parent < 0:
            self.parent[child] = ROOT
            self.root_count += 1
            if self.first_root < 0:
                self.first_root = child
            self.last_root = child
            return
        self.count[parent] += 1
        if self.first[parent] < 0:
            self.first[parent] = child
        self.last[parent] = child

    def replace(self, old: int, new: int) -> None:
        """``new`` takes the place of ``old``, a row without visible children."""
        parent = self.parent[old]
        self.parent[new] = parent
        self.parent[old] = HIDDEN
        if parent == ROOT:
            self.first_root = new if self.first_root == old else self.first_root
            self.last_root = new if self.last_root == old else self.last_root
        else:
            self.first[parent] = new if self.first[parent] == old else self.first[parent]
            self.last[parent] = new if self.last[parent] == old else self.last[parent]
        self.shapes.move(old, new)

    def reorder(self, rows: Sequence[int]) -> bool:
        """The visible ``rows`` of one subtree (contiguous in row order) are in a new
        order, with the same visible parents (a leaf move reorders the children on its
        path): each parent's first and last child follow it. A parent outside the
        subtree (its nearest visible ancestor) has the subtree's rows first, its other
        children after; False (nothing changed) if the tree is not so."""
        parents, count = self.parent, self.count
        # parent -> its children among ``rows``, in order; a parent of one child (most
        # rows: a branch is a chain) keeps its first and last child, whatever the order.
        inside: dict[int, list[int]] = {}
        for row in rows:
            parent = parents[row]
            if parent == HIDDEN:
                return False
            if parent == ROOT or count[parent] > 1:
                inside.setdefault(parent, []).append(row)
        members: set[int] | None = None
        for parent, kids in inside.items():
            whole = len(kids) == self.children(parent)
            if whole:
                continue
            members = set(rows) if members is None else members
            last = self.last_root if parent == ROOT else self.last[parent]
            if self.first_child(parent) not in members or last in members:
                return False  # children outside the subtree come first: not a leaf move
        for parent, kids in inside.items():
            whole = len(kids) == self.children(parent)
            if parent == ROOT:
                self.first_root = kids[0]
                self.last_root = kids[-1] if whole else self.last_root
            else:
                self.first[parent] = kids[0]
                self.last[parent] = kids[-1] if whole else self.last[parent]
        return True

    # ------------------------------------------------------------------ queries

    def shown(self, position: int) -> bool:
        return self.parent[position] != HIDDEN

    def shown_of(self, positions: Iterable[int]) -> list[int]:
        """The ``positions`` that are rows, in their order."""
        parents = self.parent
        return [p for p in positions if parents[p] != HIDDEN]

    def children(self, position: int) -> int:
        """How many visible children a row (``ROOT``: the roots) has."""
        return self.root_count if position == ROOT else self.count[position]

    def first_child(self, position: int) -> int:
        return self.first_root if position == ROOT else self.first[position]

    def is_last(self, position: int) -> bool:
        parent = self.parent[position]
        return (self.last_root if parent == ROOT else self.last[parent]) == position

    @property
    def multiple_roots(self) -> bool:
        return self.root_count > 1

    def foldable(self, position: int) -> bool:
        """A row with visible children that is a root or starts a branch segment."""
        if not self.count[position]:
            return False
        parent = self.parent[position]
        return parent == ROOT or self.count[parent] > 1

    # ------------------------------------------------------------------ shapes

    def shape(self, position: int) -> Shape:
        """The row's shape, from its visible ancestors' (each computed once)."""
        shapes = self.shapes
        number, parents = shapes._number, self.parent  # one table, read in place: the
        chain: list[int] = []  # first row drawn at the end of a long path walks it all
        current = position
        while number[current] < 0:
            chain.append(current)
            current = parents[current]
            if current < 0:
                break
        many = self.multiple_roots
        for row in reversed(chain):
            parent = parents[row]
            if parent < 0:
                shapes[row] = Shape(1 if many else 0, many, self.last_root == row, (), many)
            else:
                above = shapes._shapes[number[parent]]
                shapes[row] = child_shape(above, self.count[parent], self.is_last(row), many)
        return shapes[position]

    def prefix(self, position: int, folded: bool) -> str:
        """The gutters and connector drawn before a row (the fold glyph in the connector)."""
        shape = self.shape(position)
        connector = shape.connector and not shape.virtual
        shown = max(0, shape.indent - 1) if self.multiple_roots else shape.indent
        gutters: dict[int, bool] = {}
        for level, show in shape.gutters:
            gutters.setdefault(level, show)  # pi takes the first gutter at a level
        cells: list[str] = []
        for level in range(shown):
            if level in gutters:
                cells.append("│  " if gutters[level] else "   ")
            elif connector and level == shown - 1:
                glyph = "⊞" if folded else "⊟" if self.foldable(position) else "─"
                cells.append(("└" if shape.last else "├") + glyph + " ")
            else:
                cells.append("   ")
        return "".join(cells)


def child_shape(parent: Shape, siblings: int, last: bool, multiple_roots: bool) -> Shape:
    """A child's shape under ``parent`` among ``siblings`` visible children."""
    if siblings == 1 and parent.last and not parent.connector and not parent.virtual:
        return parent  # a chain: the same shape all the way down (no new object)
    branching = siblings > 1
    # A branch point shifts its children right, and so does the first row after one
    # (``parent.connector``: the parent's own parent branched); chains stay flat.
    shift = branching or (parent.connector and parent.indent > 0)
    indent = parent.indent + 1 if shift else parent.indent
    gutters = parent.gutters
    if parent.connector and not parent.virtual:
        shown = max(0, parent.indent - 1) if multiple_roots else parent.indent
        gutters = (*gutters, (max(0, shown - 1), not parent.last))
    return Shape(indent, branching, last, gutters, False)
