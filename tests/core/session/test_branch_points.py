"""Sibling branches at every kind of branch point: both directions are one relation.

From any branch of a point, switching by +1 / -1 (wrapping) reaches the others, and the
switch is shown on the branch's first user message when it starts with one."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pitui.core.session.branch_points import PathBranch
from pitui.core.session.tree_view import TreeView
from tests.core.session.test_tree_view import Builder


def _view(b: Builder, leaf: str) -> TreeView:
    return TreeView(b.table, b.labels, leaf)


def _call(b: Builder, entry_id: str, parent: str) -> None:
    call = {"type": "toolCall", "id": f"c-{entry_id}", "name": "ls", "arguments": {}}
    b.add(entry_id, parent, message={"role": "assistant", "content": [call]})


def _result(b: Builder, entry_id: str, parent: str) -> None:
    b.add(entry_id, parent, message={"role": "toolResult", "toolCallId": f"c-{parent}"})


def _assert_round_trip(b: Builder, leaves: list[str]) -> None:
    """From the branch ending at each leaf, +1 goes to the next leaf and -1 back: the
    same at every point, in both directions (the fault: one side said no branch)."""
    for number, leaf in enumerate(leaves):
        view = _view(b, leaf)
        deepest = view.path_branches()[-1]
        assert deepest.count == len(leaves)
        assert deepest.index == number + 1
        after, before = leaves[(number + 1) % len(leaves)], leaves[number - 1]
        assert view.sibling_leaf(deepest.child, 1) == after
        assert view.sibling_leaf(deepest.child, -1) == before


@pytest.mark.parametrize("siblings", [2, 3])
def test_under_a_user_message(siblings: int) -> None:
    """A prompt answered again (a retry): the replies are the branches; no marker."""
    b = Builder()
    b.user("u1", None)
    leaves = [b.reply(f"a{n}", "u1", f"answer {n}") for n in range(siblings)]
    _assert_round_trip(b, leaves)
    assert all(p.user is None for p in _view(b, leaves[0]).path_branches())


@pytest.mark.parametrize("siblings", [2, 3])
def test_under_an_assistant_message(siblings: int) -> None:
    """A prompt edited from the tree: the user messages are the branches, marked."""
    b = Builder()
    b.user("u1", None)
    b.reply("a1", "u1", "hello")
    leaves = []
    for n in range(siblings):
        b.user(f"u{n + 2}", "a1")
        leaves.append(b.reply(f"r{n}", f"u{n + 2}", f"reply {n}"))
    _assert_round_trip(b, leaves)
    view = _view(b, leaves[1])
    assert view.path_branches() == [PathBranch("u3", 2, siblings, "u3")]
    assert view.branch_switches() == [("u1", 1, 1), ("u3", 2, siblings)]


@pytest.mark.parametrize("siblings", [2, 3])
def test_under_a_tool_result(siblings: int) -> None:
    """The fault: after a tool result, the model's reply (the old branch) and prompts
    the user sent from there (new branches). Both sides switch; the prompts are marked,
    the reply carries its marker itself."""
    b = Builder()
    b.user("u1", None)
    _call(b, "a1", "u1")
    _result(b, "t1", "a1")
    leaves = [b.reply("a2", "t1", "the files are")]
    for n in range(1, siblings):
        b.user(f"u{n + 1}", "t1")
        leaves.append(b.reply(f"r{n}", f"u{n + 1}", f"reply {n}"))
    _assert_round_trip(b, leaves)
    old = _view(b, "a2")
    assert old.path_branches() == [PathBranch("a2", 1, siblings, None, "a2")]
    assert old.branch_switches() == [("u1", 1, 1)]
    assert old.branch_switches("assistant") == [("a1", 1, 1), ("a2", 1, siblings)]
    assert _view(b, leaves[1]).branch_switches("assistant") == [("a1", 1, 1), ("r1", 1, 1)]
    assert _view(b, leaves[1]).branch_switches() == [("u1", 1, 1), ("u2", 2, siblings)]


@pytest.mark.parametrize(
    ("kind", "fields"),
    [
        ("compaction", {"summary": "s", "firstKeptEntryId": "u1", "tokensBefore": 9}),
        ("branch_summary", {"fromId": "u1", "summary": "s"}),
        ("label", {"targetId": "u1", "label": "here"}),
        ("model_change", {"provider": "p", "modelId": "m"}),
        ("thinking_level_change", {"thinkingLevel": "high"}),
    ],
)
@pytest.mark.parametrize("siblings", [2, 3])
def test_under_other_entries(kind: str, fields: dict[str, Any], siblings: int) -> None:
    """A compaction, a branch summary, a label or a model change continued two or
    three ways: the prompts under it are the branches, each marked."""
    b = Builder()
    b.user("u1", None)
    b.reply("a1", "u1", "hello")
    b.add("x", "a1", kind=kind, **fields)
    leaves = []
    for n in range(siblings):
        b.user(f"v{n}", "x")
        leaves.append(b.reply(f"r{n}", f"v{n}", f"reply {n}"))
    _assert_round_trip(b, leaves)
    assert _view(b, leaves[-1]).branch_switches()[-1] == (
        "v" + str(siblings - 1),
        siblings,
        siblings,
    )


def test_a_model_change_before_the_new_prompt_keeps_the_marker_on_the_prompt() -> None:
    """The user went back to a reply, picked another model and sent a new version: the
    point's children are the old prompt and the model change; the marker sits on the
    new prompt past it (it used to be on the old side only, and one-sided)."""
    b = Builder()
    b.user("u1", None)
    b.reply("a1", "u1", "hello")
    b.user("u2", "a1")
    b.reply("a2", "u2", "old")
    b.add("m", "a1", kind="model_change", provider="p", modelId="m")
    b.add("t", "m", kind="thinking_level_change", thinkingLevel="low")
    b.user("u3", "t")
    b.reply("a3", "u3", "new")
    _assert_round_trip(b, ["a2", "a3"])
    assert _view(b, "a2").branch_switches()[-1] == ("u2", 1, 2)
    assert _view(b, "a3").branch_switches()[-1] == ("u3", 2, 2)
    assert _view(b, "a3").path_branches() == [PathBranch("m", 2, 2, "u3")]


def test_nested_points_and_several_roots() -> None:
    """Points inside a branch of another point, and two roots: each point of the path
    has its own switch, root first; switching at the outer one goes to the newest entry
    of the other branch."""
    b = Builder()
    b.user("u1", None)
    b.reply("a1", "u1", "hello")
    b.user("u2", "a1")
    b.reply("a2", "u2", "two")
    b.user("u3", "a2")
    b.reply("a3", "u3", "three")
    b.user("u4", "a2")
    b.reply("a4", "u4", "four")
    b.user("u5", "a1")
    b.reply("a5", "u5", "five")
    b.user("root2", None)
    view = _view(b, "a3")
    assert view.path_branches() == [
        PathBranch("u1", 1, 2, "u1"),
        PathBranch("u2", 1, 2, "u2"),
        PathBranch("u3", 1, 2, "u3"),
    ]
    assert view.sibling_leaf("u2", 1) == "a5"
    assert view.sibling_leaf("u3", 1) == "a4"
    assert view.sibling_leaf("u1", 1) == "root2"
    assert _view(b, "a5").sibling_leaf("u5", -1) == "a4"  # u2's newest entry


@settings(max_examples=80)
@given(
    shape=st.lists(
        st.tuples(
            st.sampled_from(["user", "reply", "tools", "result", "model", "label"]),
            st.integers(0, 10),
        ),
        min_size=1,
        max_size=25,
    )
)
def test_every_point_is_symmetric(shape: list[tuple[str, int]]) -> None:
    """In any tree: for each leaf and each point of its path, stepping +1 then, from the
    branch reached, -1 at the same point comes back to the branch left (the newest
    entry of its subtree); every marked message starts a branch of its point."""
    b = Builder()
    b.user("e0", None)
    for number, (kind, back) in enumerate(shape, start=1):
        parent = b.table.ids[max(0, len(b.table) - 1 - back)]
        eid = f"e{number}"
        if kind == "user":
            b.user(eid, parent)
        elif kind == "reply":
            b.reply(eid, parent, f"answer {number}")
        elif kind == "tools":
            _call(b, eid, parent)
        elif kind == "result":
            _result(b, eid, parent)
        elif kind == "model":
            b.add(eid, parent, kind="model_change", provider="p", modelId="m")
        else:
            b.add(eid, parent, kind="label", targetId="e0", label="L")
    parents = set(b.table.parents)
    for leaf in (i for i in b.table.ids if i not in parents):
        view = _view(b, leaf)
        for point in view.path_branches():
            there = view.sibling_leaf(point.child, 1)
            assert there is not None
            other = _view(b, there)
            same = [p for p in other.path_branches() if p.count == point.count]
            returns = {other.sibling_leaf(p.child, -1) for p in same}
            newest_here = view.sibling_leaf(point.child, point.count)  # a full turn
            assert newest_here in returns
