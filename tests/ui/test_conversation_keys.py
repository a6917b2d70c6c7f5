"""Keyboard navigation of the conversation: select, fold, copy, jump to the tool card."""

from __future__ import annotations

from pathlib import Path

from pitui.ui.view.state import AssistantItem, BranchSummaryItem, ThinkingItem, UserItem
from pitui.ui.widgets.composer import Composer
from pitui.ui.widgets.conversation import ConversationView
from tests.ui.command_support import (
    make_app,
    no_local_ollama,  # noqa: F401  (autouse fixture)
    settle,
)
from tests.ui.conversation_support import long_session_file, session_on


def _selected(app: object) -> str | None:
    conversation = app.main.conversation  # type: ignore[attr-defined]
    assert isinstance(conversation, ConversationView)
    return conversation.selected


async def test_focus_move_fold_and_back_to_the_composer(tmp_path: Path) -> None:
    app = make_app(await session_on(tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        conversation = app.main.conversation
        await pilot.press("ctrl+up")
        await settle(pilot)
        assert app.focused is conversation
        last = app.chat.items[-1]
        assert _selected(app) == last.id
        widget = conversation.widget_for(last.id)
        assert widget is not None and widget.has_class("-selected")
        # up to the branch summary card, then fold it open with Enter
        summary = next(i for i in app.chat.items if isinstance(i, BranchSummaryItem))
        for _ in range(app.chat.index[last.id] - app.chat.index[summary.id]):
            await pilot.press("up")
        await settle(pilot)
        assert _selected(app) == summary.id
        await pilot.press("enter")
        await settle(pilot)
        card = app.chat.get(summary.id)
        assert isinstance(card, BranchSummaryItem) and card.expanded
        assert conversation.widget_for(summary.id).has_class("-selected")  # type: ignore[union-attr]
        await pilot.press("enter")
        await settle(pilot)
        assert not app.chat.get(summary.id).expanded  # type: ignore[union-attr]
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.focused, Composer)
        card_widget = conversation.widget_for(summary.id)
        assert card_widget is not None and not card_widget.has_class("-selected")


async def test_tab_from_the_composer_reaches_the_conversation(tmp_path: Path) -> None:
    app = make_app(await session_on(tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert isinstance(app.focused, Composer)
        await pilot.press("tab")
        await settle(pilot)
        focused: object = app.focused
        assert focused is app.main.conversation and _selected(app) is not None


async def test_typing_in_the_conversation_goes_to_the_composer(tmp_path: Path) -> None:
    app = make_app(await session_on(tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+up")
        await pilot.press("h", "e", "y", "space", "c")
        await settle(pilot)
        composer = app.main.query_one(Composer)
        assert app.focused is composer and composer.text == "hey c"


async def test_copy_item_and_code_block(tmp_path: Path) -> None:
    app = make_app(await session_on(tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        conversation = app.main.conversation
        reply = next(i for i in app.chat.items if isinstance(i, AssistantItem) and "```" in i.text)
        conversation.focus()
        await settle(pilot)
        await conversation.select_item(reply.id)
        await pilot.press("c")
        await settle(pilot)
        assert app.clipboard == reply.text
        assert any("Copied reply (markdown)" in str(n.message) for n in app._notifications)
        await pilot.press("C")
        await settle(pilot)
        assert app.clipboard == "PORT = 8080\n"
        user = next(i for i in app.chat.items if isinstance(i, UserItem))
        await conversation.select_item(user.id)
        await pilot.press("C")
        await settle(pilot)
        assert app.clipboard == "PORT = 8080\n"  # no code block there: nothing copied
        assert any("No code block" in str(n.message) for n in app._notifications)
        assert app.focused is conversation  # c and C stay in the conversation


async def test_t_jumps_to_the_tool_card(tmp_path: Path) -> None:
    app = make_app(await session_on(tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        conversation = app.main.conversation
        thinking = next(i for i in app.chat.items if isinstance(i, ThinkingItem))
        conversation.focus()
        await settle(pilot)
        await conversation.select_item(thinking.id)
        await pilot.press("t")
        await settle(pilot)
        card = app.main.tools.widget_for("tool:toolu_01")
        assert card is not None and card.has_class("-selected")
        assert app.focused is app.main.tools


async def test_navigation_reaches_unmounted_items(tmp_path: Path) -> None:
    path = await long_session_file(tmp_path, 150)
    app = make_app(await session_on(tmp_path, path))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        conversation = app.main.conversation
        first = app.chat.items[0].id
        assert conversation.widget_for(first) is None  # bounded DOM: not mounted
        await pilot.press("ctrl+up", "home")
        await settle(pilot)
        assert _selected(app) == first
        widget = conversation.widget_for(first)
        assert widget is not None and widget.has_class("-selected")
        assert conversation.mounted_count <= 2 * ConversationView.MAX_MOUNTED
        assert conversation.detached
        await pilot.press("down", "down")
        await settle(pilot)
        assert _selected(app) == app.chat.items[2].id
        await pilot.press("end")
        await settle(pilot)
        assert _selected(app) == app.chat.items[-1].id
        assert conversation.widget_for(app.chat.items[-1].id) is not None


async def test_a_burst_typed_in_the_conversation_reaches_the_composer_whole(
    tmp_path: Path,
) -> None:
    """Keys arriving together (as from a fast typist or a paste-like burst): the ones
    queued in the conversation before the focus moved, ``c`` and ``t`` included, are typed."""
    from textual import events

    app = make_app(await session_on(tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+up")
        await settle(pilot)
        clipboard = app.clipboard
        for character in "cut that":
            key = "space" if character == " " else character
            app.post_message(events.Key(key, character))
        await settle(pilot)
        composer = app.main.query_one(Composer)
        # the first c is the conversation's own key (copy); the rest is typing
        assert composer.text == "ut that"
        assert app.clipboard != clipboard
