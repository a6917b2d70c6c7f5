"""pi's /tree rows as a headless model: order, connectors, filters, search, folds, live sync."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pitui.core.session.table import EntryTable
from pitui.core.session.tree_view import FILTER_MODES, TreeRow, TreeView, render_rows


def _message(role: str, text: str = "", **extra: Any) -> dict[str, Any]:
    content: Any = text if role == "user" else [{"type": "text", "text": text}] if text else []
    return {"role": role, "content": content, **extra}


class Builder:
    """A session table built entry by entry (timestamps increase with each entry)."""

    def __init__(self) -> None:
        self.table = EntryTable()
        self.labels: dict[str, str] = {}

    def add(self, entry_id: str, parent: str | None, kind: str = "message", **fields: Any) -> str:
        stamp = f"2026-01-01T00:00:{len(self.table):02d}.000Z"
        raw = {"type": kind, "id": entry_id, "parentId": parent, "timestamp": stamp, **fields}
        role = fields["message"]["role"] if kind == "message" else None
        self.table.add_raw(raw, entry_id, parent, kind, role)
        if kind == "label":
            if fields.get("label"):
                self.labels[fields["targetId"]] = fields["label"]
            else:
                self.labels.pop(fields["targetId"], None)
        return entry_id

    def user(self, entry_id: str, parent: str | None, text: str = "") -> str:
        return self.add(entry_id, parent, message=_message("user", text or f"ask {entry_id}"))

    def reply(self, entry_id: str, parent: str | None, text: str = "", **extra: Any) -> str:
        return self.add(entry_id, parent, message=_message("assistant", text, **extra))


def branchy() -> Builder:
    """u1 ─ a1 ─┬ u2 ─ a2 (calls read) ─ r2 ─ a3
    └ u3 ─ a4 ─┬ u4 ─ a5        (leaf: a5)
               └ u5"""
    b = Builder()
    b.user("u1", None, "start here")
    b.reply("a1", "u1", "hello")
    b.user("u2", "a1", "first idea")
    call = {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "x.py"}}
    b.add("a2", "u2", message={"role": "assistant", "content": [call], "stopReason": "toolUse"})
    b.add("r2", "a2", message={"role": "toolResult", "toolCallId": "c1", "toolName": "read"})
    b.reply("a3", "r2", "read it")
    b.user("u3", "a1", "second idea")
    b.reply("a4", "u3", "sure")
    b.user("u4", "a4", "deeper")
    b.reply("a5", "u4", "done")
    b.user("u5", "a4", "other")
    return b


def lines(view: TreeView) -> list[str]:
    return [view.row(i).line() for i in range(len(view))]


def test_active_branch_first_connectors_only_at_branch_points() -> None:
    b = branchy()
    view = TreeView(b.table, b.labels, "a5")
    assert lines(view) == [
        "• user: start here",
        "• assistant: hello",
        "├⊟ • user: second idea",
        "│     • assistant: sure",
        "│     ├⊟ • user: deeper",
        "│     │     • assistant: done ←",
        "│     └─ user: other",
        "└⊟ user: first idea",
        "      [read: x.py]",
        "      assistant: read it",
    ]
    assert view.footer(view.leaf_row() or 0) == "(6/10)"


def test_filters_hide_what_pi_hides() -> None:
    b = branchy()
    b.add("m1", "a5", kind="model_change", provider="p", modelId="big")
    b.add("l1", "m1", kind="label", targetId="u3", label="plan B")
    view = TreeView(b.table, b.labels, "l1")
    assert "[model: big]" not in render_rows(view)
    assert "[plan B] user: second idea" in render_rows(view)
    view.set_filter("no-tools")
    assert "[read: x.py]" not in render_rows(view)
    view.set_filter("user-only")
    assert all("user:" in line for line in lines(view))
    view.set_filter("labeled-only")
    assert lines(view) == ["• [plan B] user: second idea ←"]  # the leaf's nearest visible row
    view.set_filter("all")
    text = render_rows(view)
    assert "[model: big]" in text and "[label: plan B] ←" in text and "[read: x.py]" in text
    # the text-less tool-call reply is hidden in every mode (it is not the leaf)
    assert "assistant: (no content)" not in text
    view.toggle_filter("all")
    mode: str = view.filter_mode
    assert mode == "default"
    view.cycle_filter(-1)
    assert view.filter_mode == "all"


def test_search_keeps_rows_with_every_token_case_insensitively() -> None:
    b = branchy()
    view = TreeView(b.table, b.labels, "a5")
    view.set_query("USER idea")  # two visible roots now: pi draws them without connectors
    assert lines(view) == ["• user: second idea ←", "user: first idea"]
    view.set_query("")
    assert len(view) == 10


def test_fold_hides_descendants_and_jumps_between_segments() -> None:
    b = branchy()
    view = TreeView(b.table, b.labels, "a5")
    u3 = view.index_of("u3")
    assert u3 is not None
    assert view.row(u3).prefix == "├⊟ "
    selected = view.fold_or_up(u3)
    assert view.row(selected).entry_id == "u3" and view.row(selected).prefix == "├⊞ "
    assert "assistant: sure" not in render_rows(view)
    selected = view.unfold_or_down(selected)
    assert "assistant: sure" in render_rows(view)
    # not foldable: jump to the next segment start, then back up
    a4 = view.index_of("a4")
    assert a4 is not None
    down = view.unfold_or_down(a4)
    assert view.row(down).entry_id == "u4"
    up = view.fold_or_up(view.index_of("a5") or 0)
    assert view.row(up).entry_id == "u4"
    # a root folds with a marker of its own
    root = view.fold_or_up(0)
    assert lines(view) == ["⊞ • user: start here ←"] and root == 0


def test_multiple_roots_and_broken_links_are_separate_marked_roots() -> None:
    b = Builder()
    b.user("u1", None)
    b.reply("a1", "u1", "one")
    b.user("o1", "missing", "orphan")
    view = TreeView(b.table, b.labels, "a1")
    assert lines(view) == [
        "• user: ask u1",
        "   • assistant: one ←",
        "⚠ broken link: user: orphan",
    ]


def test_rows_are_inert_and_tool_calls_worded_as_pi() -> None:
    b = Builder()
    b.user("u1", None, "hi \x1b]52;c;ZXZpbA==\x07there\nnext")
    long = "x" * 60
    calls = [
        {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": long}},
        {
            "type": "toolCall",
            "id": "c2",
            "name": "read",
            "arguments": {"path": "a", "offset": 5, "limit": 10},
        },
        {"type": "toolCall", "id": "c3", "name": "grep", "arguments": {"pattern": "def"}},
    ]
    b.add("a1", "u1", message={"role": "assistant", "content": calls, "stopReason": "toolUse"})
    parent = "a1"
    for number, call in enumerate(calls):
        rid = f"r{number}"
        b.add(rid, parent, message={"role": "toolResult", "toolCallId": call["id"]})
        parent = rid
    b.add("k1", parent, kind="compaction", summary="s", firstKeptEntryId="u1", tokensBefore=12345)
    b.add("s1", "k1", kind="branch_summary", fromId="k1", summary="went\nelsewhere")
    b.add("x1", "s1", message={"role": "bashExecution", "command": "ls -la", "output": ""})
    b.reply("a2", "x1", stopReason="aborted")
    view = TreeView(b.table, b.labels, "a2")
    assert lines(view)[0] == "• user: hi therenext"[:0] + "• user: hi there next"
    assert lines(view)[1:] == [
        f"• [bash: {'x' * 50}...]",
        "• [read: a:5-14]",
        "• [grep: /def/ in .]",
        "• [compaction: 12k tokens]",
        "• [branch summary]: went elsewhere",
        "• [bash]: ls -la",
        "• assistant: (aborted) ←",
    ]


# --------------------------------------------------------------------------- live sync


def test_append_under_the_leaf_touches_only_the_rows_it_changes() -> None:
    b = branchy()
    view = TreeView(b.table, b.labels, "a5")
    b.user("u6", "a5", "more")
    change = view.sync(b.labels, "u6")
    assert not change.reset and change.inserted == [6] and change.updated == [5]
    call = {"type": "toolCall", "id": "c9", "name": "ls", "arguments": {}}
    b.add("a6", "u6", message={"role": "assistant", "content": [call], "stopReason": "toolUse"})
    change = view.sync(b.labels, "a6")
    assert view.row(7).line() == "│     │     • assistant: (no content) ←"
    b.add("r6", "a6", message={"role": "toolResult", "toolCallId": "c9"})
    change = view.sync(b.labels, "r6")  # the text-less reply hides; the result takes its row
    assert not change.reset and change.updated == [7] and not change.inserted
    assert lines(view) == lines(TreeView(b.table, b.labels, "r6"))


def test_labels_update_their_row() -> None:
    b = branchy()
    view = TreeView(b.table, b.labels, "a5")
    b.add("l1", "a5", kind="label", targetId="u1", label="top")
    change = view.sync(b.labels, "l1")
    assert not change.reset and 0 in change.updated
    assert view.row(0).line() == "• [top] user: start here"
    assert lines(view) == lines(TreeView(b.table, b.labels, "l1"))


def test_branching_from_an_earlier_entry_rebuilds() -> None:
    b = branchy()
    view = TreeView(b.table, b.labels, "a5")
    view.sync(b.labels, "a1")  # navigated: the leaf moved
    b.user("u7", "a1", "third idea")
    change = view.sync(b.labels, "u7")
    assert change.reset
    assert lines(view)[2] == "├─ • user: third idea ←"


_KINDS = st.sampled_from(["user", "reply", "tools", "result", "label", "model", "empty"])


@settings(max_examples=150)
@given(
    steps=st.lists(st.tuples(_KINDS, st.integers(0, 30), st.booleans()), max_size=40),
    mode=st.sampled_from(FILTER_MODES),
    query=st.sampled_from(["", "ask", "user 1"]),
)
def test_live_sync_always_equals_a_fresh_view(
    steps: list[tuple[str, int, bool]], mode: Any, query: str
) -> None:
    """Whatever is appended (under the leaf or elsewhere), the synced rows are a fresh
    view's rows."""
    b = Builder()
    leaf = b.user("e0", None)
    view = TreeView(b.table, b.labels, leaf, filter_mode=mode)
    view.set_query(query)
    for number, (kind, back, under_leaf) in enumerate(steps, start=1):
        parent = leaf if under_leaf else b.table.ids[max(0, len(b.table) - 1 - back)]
        eid = f"e{number}"
        if kind == "user":
            b.user(eid, parent)
        elif kind == "reply":
            b.reply(eid, parent, f"answer {number}")
        elif kind == "tools":
            call = {"type": "toolCall", "id": f"c{number}", "name": "ls", "arguments": {}}
            b.add(eid, parent, message={"role": "assistant", "content": [call]})
        elif kind == "result":
            b.add(eid, parent, message={"role": "toolResult", "toolCallId": f"c{number - 1}"})
        elif kind == "label":
            b.add(eid, parent, kind="label", targetId=b.table.ids[back % len(b.table)], label="L")
        elif kind == "model":
            b.add(eid, parent, kind="model_change", provider="p", modelId="m")
        else:
            b.reply(eid, parent, stopReason="error", errorMessage="boom")
        leaf = eid
        view.sync(b.labels, leaf)
        fresh = TreeView(b.table, b.labels, leaf, filter_mode=mode)
        fresh.set_query(query)
        assert lines(view) == lines(fresh)
        assert view.leaf_row() == fresh.leaf_row()


def test_branch_switches_and_sibling_leaves() -> None:
    b = branchy()
    view = TreeView(b.table, b.labels, "a5")
    # siblings in time order
    assert view.branch_switches() == [("u1", 1, 1), ("u3", 2, 2), ("u4", 1, 2)]
    assert view.sibling_leaf("u3", 1) == "a3"  # the newest entry of u2's branch
    assert view.sibling_leaf("u4", -1) == "u5"
    assert view.sibling_leaf("a4", 1) is None
    view.sync(b.labels, "a3")
    assert view.branch_switches() == [("u1", 1, 1), ("u2", 1, 2)]


def test_typing_on_narrows_to_what_a_fresh_search_finds() -> None:
    b = branchy()
    typed = TreeView(b.table, b.labels, "a5")
    for end in range(1, len("user ide") + 1):
        typed.set_query("user ide"[:end])
        fresh = TreeView(b.table, b.labels, "a5")
        fresh.set_query("user ide"[:end])
        assert lines(typed) == lines(fresh)
    typed.set_query("hello")  # not an extension: searches everything again
    assert lines(typed) == ["• assistant: hello ←"]  # the leaf's nearest visible row


@settings(max_examples=120)
@given(
    shape=st.lists(
        st.tuples(st.sampled_from(["user", "reply", "tools", "result"]), st.integers(0, 12)),
        min_size=2,
        max_size=30,
    ),
    moves=st.lists(st.tuples(st.integers(0, 40), st.booleans()), min_size=1, max_size=8),
    mode=st.sampled_from(FILTER_MODES),
)
def test_leaf_moves_always_equal_a_fresh_view(
    shape: list[tuple[str, int]], moves: list[tuple[int, bool]], mode: Any
) -> None:
    """Moving the leaf anywhere in a branching tree (a sibling switch, a navigation),
    with prompts sent between moves, gives a fresh view's rows, whether the move is
    applied in place or rebuilt."""
    b = Builder()
    b.user("e0", None)
    for number, (kind, back) in enumerate(shape, start=1):
        parent = b.table.ids[max(0, len(b.table) - 1 - back)]
        if kind == "user":
            b.user(f"e{number}", parent)
        elif kind == "reply":
            b.reply(f"e{number}", parent, f"answer {number}")
        elif kind == "tools":
            call = {"type": "toolCall", "id": f"c{number}", "name": "ls", "arguments": {}}
            b.add(f"e{number}", parent, message={"role": "assistant", "content": [call]})
        else:
            b.add(f"e{number}", parent, message={"role": "toolResult", "toolCallId": "c1"})
    view = TreeView(b.table, b.labels, b.table.ids[-1], filter_mode=mode)
    for number, (move, send) in enumerate(moves):
        for index in range(len(view)):  # rows and shapes drawn before the move are kept
            view.row(index)
        leaf = b.table.ids[move % len(b.table)]
        view.sync(b.labels, leaf)
        if send:  # a prompt under the new leaf, then the next move
            leaf = b.user(f"sent{number}", leaf)
            view.sync(b.labels, leaf)
        fresh = TreeView(b.table, b.labels, leaf, filter_mode=mode)
        assert lines(view) == lines(fresh)
        assert view.leaf_row() == fresh.leaf_row()
        assert view.branch_switches() == fresh.branch_switches()


def test_a_sibling_switch_reorders_only_the_branch_points_subtree() -> None:
    """Alt+→ on a long session: the rows above the branch point are kept as they were
    (not made again), and the tree is not rebuilt."""
    b = branchy()
    view = TreeView(b.table, b.labels, "a5")
    kept = [view.row(i) for i in range(2)]  # u1, a1: above the branch point
    rebuilt: list[str] = []
    view.rebuild = lambda: rebuilt.append("rebuild")  # type: ignore[method-assign]
    made: list[int] = []
    make_row = view._make_row

    def counted(position: int) -> TreeRow:
        made.append(position)
        return make_row(position)

    view._make_row = counted  # type: ignore[method-assign]
    view.sync(b.labels, "a3")  # u3's sibling u2, at its newest entry
    assert not rebuilt
    assert lines(view) == lines(TreeView(b.table, b.labels, "a3"))
    assert all(view.row(i) is row for i, row in enumerate(kept))
    assert made and not {b.table.ids[p] for p in made} & {"u1", "a1"}
