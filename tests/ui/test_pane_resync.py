"""ItemPane.resync: a new state shown as a rebuilt pane would show it, widgets reused by id."""

from __future__ import annotations

from typing import Any

import pytest

from pitui.agent.messages import AgentMessage
from pitui.ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from pitui.ui.view.replay import state_from_messages
from pitui.ui.widgets.conversation import ConversationView, ItemPane
from pitui.ui.widgets.item_resync import resync
from pitui.ui.widgets.tool_pane import ToolPane
from tests.ui.harness import FeedSource, make_app, settle


def _round(tag: str, k: int) -> list[AgentMessage]:
    call = ToolCall(id=f"call-{tag}-{k}", name="read", arguments={"path": f"{tag}{k}.py"})
    base: dict[str, Any] = {"api": "demo", "provider": "demo", "model": "demo"}
    return [
        UserMessage(content=[TextContent(text=f"{tag} question {k}")]),
        AssistantMessage(**base, content=[TextContent(text=f"{tag} look {k}"), call]),
        ToolResultMessage(
            tool_call_id=call.id, tool_name="read", content=[TextContent(text=f"{tag} body")]
        ),
        AssistantMessage(**base, content=[TextContent(text=f"## {tag} answer {k}")]),
    ]


def _branch(shared: int, tag: str, rounds: int) -> list[AgentMessage]:
    out = [m for k in range(shared) for m in _round("shared", k)]
    return out + [m for k in range(rounds) for m in _round(tag, k)]


def _shown(pane: ItemPane) -> list[tuple[str, str, str]]:
    """(item id, widget class, drawn text) of each mounted item widget, in DOM order."""
    ids = {id(w): item_id for item_id, w in pane._widgets.items()}
    out = []
    for child in pane.children:
        if id(child) in ids:
            text = getattr(child, "shown_text", None) or str(getattr(child, "item", ""))
            out.append((ids[id(child)], type(child).__name__, text))
    return out


def _tail(pane: ItemPane) -> tuple[list[tuple[str, str, str]], int]:
    """What a pane opened at its end shows: its last window of item widgets (in DOM
    order), and how many items it has in all. How many earlier items are mounted besides
    depends on where the pane was scrolled before (a pane that starts empty sits at its
    top, and a scroll to the top mounts the batch above), not on how the new state was
    put in."""
    return (_shown(pane)[-pane.TAIL_WINDOW :], pane.item_count)


@pytest.mark.parametrize(("shared", "rounds"), [(3, 2), (30, 3), (2, 30)])
async def test_resync_shows_what_a_rebuild_shows(shared: int, rounds: int) -> None:
    before = state_from_messages(_branch(shared, "a", rounds))
    after = state_from_messages(_branch(shared, "b", rounds + 1))
    app = make_app(FeedSource())
    async with app.run_test(size=(120, 36)) as pilot:
        panes = [app.query_one(ConversationView), app.query_one(ToolPane)]
        await app.rebuild(after)
        await settle(pilot)
        expected = [_tail(p) for p in panes]
        await app.rebuild(before)
        await settle(pilot)
        kept = [dict(p._widgets) for p in panes]
        for pane in panes:
            await resync(pane, after)
        await settle(pilot)
        assert [_tail(p) for p in panes] == expected
        for pane, had in zip(panes, kept, strict=True):
            assert pane.following and not pane.detached
            tail = pane._order[-pane.TAIL_WINDOW :]  # mounted above it: by fill_viewport
            for item_id in tail:
                if before.get(item_id) == after.get(item_id) and item_id in had:
                    assert pane._widgets[item_id] is had[item_id]  # unchanged: kept


async def test_tool_cards_keep_their_widgets_across_a_switch() -> None:
    """Cards are keyed by call id: a branch switch below the shared calls keeps them."""
    before = state_from_messages(_branch(4, "a", 1))
    after = state_from_messages(_branch(4, "b", 1))
    app = make_app(FeedSource())
    async with app.run_test(size=(120, 36)) as pilot:
        tools = app.query_one(ToolPane)
        await app.rebuild(before)
        await settle(pilot)
        shared = {i: w for i, w in tools._widgets.items() if "shared" in i}
        await resync(tools, after)
        await settle(pilot)
        assert shared and all(tools._widgets[i] is w for i, w in shared.items())
        assert [i for i in tools._widgets if "call-a" in i] == []
