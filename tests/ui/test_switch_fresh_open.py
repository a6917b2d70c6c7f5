"""Alt+←/Alt+→ rebinds the view in place; what it shows must be a fresh open of that leaf.

A sibling switch keeps the tree and every widget it can: the rows above the branch point,
the shared items' widgets, and the old tail's widgets, rebound to the new tail's items of
their kind (:mod:`pitui.ui.widgets.item_resync`). Reuse is only worth it if nothing of the
old tail shows through: these tests compare the switched screen with the same session
opened afresh at that leaf, cell by cell, and every mounted widget of both panes (the
conversation and the Tools pane, also off screen) by kind, classes, size and drawn lines.
"""

from __future__ import annotations

import difflib
import pprint
from pathlib import Path

import pytest
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget

from pitui.core.agent_session import AgentSession
from pitui.core.session_setup import SessionOptions, create_agent_session
from pitui.ui.app import PituiApp
from pitui.ui.live.session import LiveSession
from pitui.ui.theme import discover_themes
from pitui.ui.widgets.composer import Composer
from pitui.ui.widgets.conversation import ItemPane
from tests.ui.command_support import make_registry, running, settle, submit, wait_until
from tests.ui.test_branches import tree, user_entries

# The branch switched from holds a prompt and a tool call (ls) past the branch point; the
# branch switched to holds two prompts and two tool calls there (a failing read, a find):
# so the switch rebinds widgets of every kind in both panes and mounts the surplus.
SHARED = ("first prompt", "read README.md", "second prompt")
LONGER = ("read missing.txt", "third prompt", "find *.md")
SHORTER = ("changed prompt", "list files")


@pytest.fixture(autouse=True)
def _fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")


def _screen_text(app: PituiApp) -> list[str]:
    """Every cell of the screen as drawn: characters and styles, line by line."""
    strips = app.screen._compositor.render_strips()
    return ["".join(f"{s.text}\x00{s.style}" for s in strip) for strip in strips]


def _drawn(widget: Widget) -> str:
    """The lines ``widget`` draws at its size (off screen too), characters and styles."""
    width, height = widget.size
    strips = widget.render_lines(Region(0, 0, width, height))
    return "\n".join("".join(f"{s.text}\x00{s.style}" for s in strip) for strip in strips)


def _pane_text(pane: ItemPane) -> list[object]:
    """Each mounted widget of ``pane`` (nested ones too, in DOM order): its kind, item,
    classes, place and drawn lines; then where the pane is scrolled."""
    rows: list[object] = []
    for widget in pane.walk_children(Widget, with_self=False):
        kind = (type(widget).__name__, getattr(widget, "item_id", None))
        if not widget.display:
            rows.append((*kind, "hidden"))
            continue
        classes = " ".join(sorted(widget.classes))
        rows.append((*kind, classes, widget.virtual_region, _drawn(widget)))
    rows.append(("scroll", pane.scroll_y, pane.max_scroll_y))
    return rows


def _view(app: PituiApp) -> tuple[list[str], list[object], list[object]]:
    return _screen_text(app), _pane_text(app.main.conversation), _pane_text(app.main.tools)


def _same_view(fresh: object, switched: object) -> None:
    """Assert the two views are the same, showing the first lines that differ."""
    if fresh != switched:
        a = pprint.pformat(fresh, width=200).splitlines()
        b = pprint.pformat(switched, width=200).splitlines()
        diff = difflib.unified_diff(a, b, "fresh open", "after the switch", lineterm="", n=1)
        raise AssertionError("\n".join(list(diff)[:60]))


def _mounted(app: PituiApp) -> list[dict[int, Widget]]:
    """The item widgets mounted in each pane, by identity."""
    panes = (app.main.conversation, app.main.tools)
    return [{id(w): w for w in p._widgets.values()} for p in panes]


async def _fresh_view(
    session: AgentSession, path: Path, leaf: str, cwd: Path
) -> tuple[list[str], list[object], list[object]]:
    """What opening ``path`` at ``leaf`` shows (attached as a launch attaches it)."""
    options = SessionOptions(
        cwd=cwd, model="demo/demo", session_file=path, registry=session.registry
    )
    reopened = await create_agent_session(options)
    reopened.store.branch(leaf)
    reopened.rebuild_from_session()
    fresh = PituiApp(themes=discover_themes([]))
    try:
        async with fresh.run_test(size=(120, 36)) as pilot:
            await fresh.attach_session(LiveSession(reopened))
            fresh.query_one(Composer).cursor_blink = False  # as in the switched app
            await settle(pilot)
            return _view(fresh)
    finally:
        await reopened.close()


async def _switch(pilot: Pilot[None], session: AgentSession, key: str) -> str:
    """Press ``key`` and wait for the view of the leaf it moves to; that leaf."""
    leaf = session.store.get_leaf_id()
    await pilot.press(key)
    await wait_until(pilot, lambda: session.store.get_leaf_id() != leaf, "the switch")
    await settle(pilot)
    moved_to = session.store.get_leaf_id()
    assert moved_to is not None
    return moved_to


async def _demo_session(tmp_path: Path) -> tuple[AgentSession, Path]:
    """A demo-model session and its project, apart from its sessions folder: the tool turns
    checkpoint the project's files, which then are the same on both branches (no question
    about restoring them)."""
    project = tmp_path / "project"
    project.mkdir()
    options = SessionOptions(
        cwd=project, model="demo/demo", registry=make_registry(), session_dir=tmp_path / "sessions"
    )
    return await create_agent_session(options), project


async def test_the_screen_after_a_switch_is_a_fresh_open_of_that_leaf(tmp_path: Path) -> None:
    """Alt+← moves the tree and the view in place (the rows above the branch point and the
    shared items' widgets are kept, the old tail's widgets rebound, only the surplus made):
    what the screen shows then (conversation and Tools pane, all their mounted widgets,
    tree cursor and marks, ‹ i/n ›, status) is what opening the session at that leaf shows;
    the model's context is that leaf's. Alt+→ back (a shorter tail: the excess removed)
    is a fresh open of the first leaf."""
    session, project = await _demo_session(tmp_path)
    async with running(session, *SHARED, *LONGER) as (app, pilot):
        app.query_one(Composer).cursor_blink = False  # the cursor drawn, whatever the clock
        await session.navigate(user_entries(session)[3].id)  # at "second prompt"'s reply
        for prompt in SHORTER:
            await submit(pilot, prompt)
        await settle(pilot)
        other = tree(app).state
        assert other is not None
        first_widget = app.main.conversation.widget_for(app.chat.items[0].id)
        shared_card = app.main.tools.widget_for(next(iter(app.main.tools._widgets)))
        tree(app).refresh()  # every row drawn (a focus change let the old lines go)
        await pilot.pause()
        drawn = tree(app).rendered_rows
        before = _mounted(app)
        old_ids = {id(w): getattr(w, "item_id", None) for pane in before for w in pane.values()}

        longer = await _switch(pilot, session, "alt+left")
        assert tree(app).state is other  # moved in place, not a new tree
        assert app.main.conversation.widget_for(app.chat.items[0].id) is first_widget
        assert app.main.tools.widget_for(next(iter(app.main.tools._widgets))) is shared_card
        assert tree(app).rendered_rows - drawn <= 16  # the rows from the branch point down
        # Reuse: no widget of the shorter view is thrown away; those of its tail now
        # show the longer tail's items; only the longer tail's surplus is made.
        after = _mounted(app)
        for had, has in zip(before, after, strict=True):
            lost = [(type(w).__name__, old_ids[i]) for i, w in had.items() if i not in has]
            assert not lost
            assert 0 < len(has) - len(had) == len(set(has) - set(had))
        rebound = [
            w
            for pane in after
            for key, w in pane.items()
            if key in old_ids and old_ids[key] != getattr(w, "item_id", None)
        ]
        assert len(rebound) >= 5  # a prompt, a reply, a tool reference, a card…
        at_longer = _view(app)
        context_longer = [m.to_json_dict() for m in session.messages]

        shorter = await _switch(pilot, session, "alt+right")
        assert "changed prompt" in [getattr(i, "text", None) for i in app.chat.items]
        back = _mounted(app)
        for had, has in zip(after, back, strict=True):  # the excess removed, no new widget
            assert has.keys() <= had.keys() and len(has) < len(had)
        at_shorter = _view(app)
    path = session.session_file
    await session.close()
    assert path is not None
    _same_view(await _fresh_view(session, path, longer, project), at_longer)
    _same_view(await _fresh_view(session, path, shorter, project), at_shorter)
    options = SessionOptions(
        cwd=project, model="demo/demo", session_file=path, registry=session.registry
    )
    reopened = await create_agent_session(options)
    reopened.store.branch(longer)
    reopened.rebuild_from_session()
    assert [m.to_json_dict() for m in reopened.messages] == context_longer
    await reopened.close()


async def _navigate(pilot: Pilot[None], app: PituiApp, session: AgentSession, to: str) -> None:
    """Enter on ``to``'s row with no summary (``skipPrompt``), as the tree pane runs it."""
    session.settings.branch_summary.skip_prompt = True
    app.branches.navigate(to)
    await wait_until(pilot, lambda: session.store.get_leaf_id() == to, "the navigation")
    await settle(pilot)


async def test_the_screen_after_a_navigation_is_a_fresh_open_of_that_leaf(tmp_path: Path) -> None:
    """Navigating in the tree moves its rows in place (the subtree of the common entry
    reordered) and resyncs the view: to the other branch's end, then up to a reply in
    the shared part, each screen is what opening the session at that entry shows."""
    session, project = await _demo_session(tmp_path)
    async with running(session, *SHARED, *LONGER) as (app, pilot):
        app.query_one(Composer).cursor_blink = False
        other_end = session.store.get_leaf_id()
        assert other_end is not None
        await session.navigate(user_entries(session)[3].id)
        for prompt in SHORTER:
            await submit(pilot, prompt)
        await settle(pilot)
        state = tree(app).state
        await _navigate(pilot, app, session, other_end)
        assert tree(app).state is state  # moved in place, not a new tree
        at_end = _view(app)
        shared = user_entries(session)[1]  # "read README.md": its reply, a shared entry
        reply = next(e for e in session.store.get_entries() if e.parent_id == shared.id)
        await _navigate(pilot, app, session, reply.id)
        at_reply = _view(app)
    path = session.session_file
    await session.close()
    assert path is not None
    _same_view(await _fresh_view(session, path, other_end, project), at_end)
    _same_view(await _fresh_view(session, path, reply.id, project), at_reply)
