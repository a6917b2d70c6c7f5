"""pitui/core/session/visible_tree.py: the helpers a leaf move reorders rows with."""

from __future__ import annotations

from pitui.core.session.visible_tree import PositionSet, VisibleTree


def test_a_position_set_counts_its_members_among_positions() -> None:
    active = PositionSet([0, 2, 5], 6)
    assert active.count([0, 1, 2, 3, 5]) == 3
    assert active.count([7, 100]) == 0  # past its size: not members
    assert active.count([]) == 0


def test_shown_of_keeps_the_rows_in_their_order() -> None:
    # 0 ─ 1 ─ 2 (hidden) ─ 3
    tree = VisibleTree.build([0, 1, 2, 3], bytearray([1, 1, 0, 1]), [-1, 0, 1, 2])
    assert tree.shown_of([3, 2, 1, 0]) == [3, 1, 0]


def test_reordering_a_subtree_gives_the_links_of_a_tree_built_in_the_new_order() -> None:
    """0 has two branches, 1 ─ 2 ─ 3 and 4 ─ 5: moving the leaf onto the second puts it
    first. Chain parents (one child each) are left as they are; the fork's first and last
    child follow the new order."""
    ppos = [-1, 0, 1, 2, 0, 4]
    shown = bytearray([1] * 6)
    tree = VisibleTree.build([0, 1, 2, 3, 4, 5], shown, ppos)
    new_order = [0, 4, 5, 1, 2, 3]
    assert tree.reorder(new_order)
    fresh = VisibleTree.build(new_order, shown, ppos)
    assert (tree.first, tree.last, tree.parent, tree.count) == (
        fresh.first,
        fresh.last,
        fresh.parent,
        fresh.count,
    )
    assert (tree.first_root, tree.last_root) == (fresh.first_root, fresh.last_root)


def test_reordering_refuses_rows_that_are_not_shown() -> None:
    tree = VisibleTree.build([0, 1, 2], bytearray([1, 0, 1]), [-1, 0, 0])
    assert not tree.reorder([0, 1, 2])
