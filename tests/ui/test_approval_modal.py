"""The approval modal: preview computation, body text, and an SVG snapshot."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from pitui.core.permissions import ApprovalRequest
from pitui.ui.app import PituiApp
from pitui.ui.approval_preview import ApprovalPreview, preview_change
from pitui.ui.screens.approval import ApprovalScreen, always_label, request_body
from pitui.ui.view.events import ApprovalRequested
from tests.ui.harness import FeedSource, freeze, make_app, settle, wait_subscribed
from tests.ui.script import Script

SnapCompare = Callable[..., bool]
SOURCE = "import { serve } from './server';\n\nexport const host = 'localhost';\n"
SOURCE += "export const port = 3000;\n\nserve(host, port);\n"


async def test_edit_preview_is_the_edit_tools_diff(tmp_path: Path) -> None:
    (tmp_path / "config.ts").write_text(SOURCE)
    args = {"path": "config.ts", "oldText": "port = 3000", "newText": "port = 8080"}
    preview = await preview_change("edit", args, tmp_path)
    assert preview is not None and not preview.problem
    assert "-4 export const port = 3000;" in preview.diff
    assert "+4 export const port = 8080;" in preview.diff
    edits = {"path": "config.ts", "edits": [{"oldText": "nope", "newText": "x"}]}
    missing = await preview_change("edit", edits, tmp_path)
    assert missing is not None and "Could not find the exact text" in missing.problem
    gone = await preview_change("edit", {**args, "path": "gone.ts"}, tmp_path)
    assert gone is not None and gone.problem == "File not found: gone.ts"


async def test_write_preview_new_and_existing_file(tmp_path: Path) -> None:
    new = await preview_change("write", {"path": "a/new.txt", "content": "one\ntwo\n"}, tmp_path)
    assert new is not None and new.new_file and "+1 one" in new.diff
    (tmp_path / "old.txt").write_text("one\ntwo\n")
    changed = await preview_change("write", {"path": "old.txt", "content": "one\n2\n"}, tmp_path)
    assert changed is not None and not changed.new_file
    assert "-2 two" in changed.diff and "+2 2" in changed.diff
    assert await preview_change("bash", {"command": "ls"}, tmp_path) is None


def test_body_for_bash_and_other_tools() -> None:
    bash = ApprovalRequest("c1", "bash", {"command": "npm test -- --watch"}, "runs a shell command",
                           command_prefix="npm test")  # fmt: skip
    assert str(request_body(bash, None)) == "$ npm test -- --watch"
    assert always_label(bash) == "Always allow `npm test` here [a]"
    other = ApprovalRequest("c2", "deploy", {"target": "prod"}, "mutating")
    assert '"target": "prod"' in str(request_body(other, None))
    problem = ApprovalPreview(problem="File not found: x")
    assert str(request_body(other, problem)) == "File not found: x"


def _edit_request() -> tuple[ApprovalRequest, ApprovalPreview]:
    from pitui.core.tools.edit_diff import generate_diff_string

    args = {"path": "src/config.ts", "oldText": "port = 3000", "newText": "port = 8080"}
    request = ApprovalRequest("toolu_1", "edit", args, "edit changes files")
    diff, _ = generate_diff_string(SOURCE, SOURCE.replace("3000", "8080"))
    return request, ApprovalPreview(diff=diff)


async def _show_modal(pilot: Pilot[Any], source: FeedSource) -> None:
    app = pilot.app
    assert isinstance(app, PituiApp)
    await wait_subscribed(pilot, source)
    freeze(app)
    app.animation_level = "none"  # no spinner frames in the snapshot
    request, preview = _edit_request()
    s = Script().start().user("Change the port to 8080.").assistant()
    s.tool_call("toolu_1", "edit", request.args).end("toolUse")
    s.tool_start("toolu_1", "edit", request.args)
    source.emit(s.events)
    await settle(pilot)
    await app.apply([ApprovalRequested("toolu_1", "edit", request.args)])
    await app.push_screen(ApprovalScreen(request, preview))
    await settle(pilot)


def test_approval_modal_snapshot(snap_compare: SnapCompare) -> None:
    source = FeedSource()
    app = make_app(source)

    async def run_before(pilot: Pilot[Any]) -> None:
        await _show_modal(pilot, source)

    assert snap_compare(app, terminal_size=(120, 36), run_before=run_before)


async def test_keys_answer_the_modal() -> None:
    source = FeedSource()
    app = make_app(source)
    answers: list[object] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_subscribed(pilot, source)
        request, preview = _edit_request()
        for keys in (["y"], ["a"], ["n", "w", "h", "y", "enter"], ["escape"], ["tab", "enter"]):
            await app.push_screen(ApprovalScreen(request, preview), callback=answers.append)
            await pilot.pause()
            await pilot.press(*keys)
            await pilot.pause()
    got = [(a.choice, a.reason) for a in answers]  # type: ignore[attr-defined]
    assert got == [
        ("allow_once", None),
        ("always", None),
        ("deny", "why"),
        ("deny", None),
        ("always", None),
    ]


def test_card_waits_for_approval_then_clears() -> None:
    from pitui.ui.view.events import ApprovalResolved
    from pitui.ui.view.reducer import reduce_all
    from pitui.ui.view.state import ChatState
    from pitui.ui.view.ui_handlers import WAITING_FOR_APPROVAL

    s = Script().start().user("q").assistant().tool_call("c1", "bash", {"command": "make"})
    s.end("toolUse").tool_start("c1", "bash", {"command": "make"})
    state = reduce_all(ChatState(), [*s.events, ApprovalRequested("c1", "bash", {})])
    card = state.tool_card("c1")
    assert card is not None and card.output == WAITING_FOR_APPROVAL
    state = reduce_all(state, [ApprovalResolved("c1", allowed=True)])
    card = state.tool_card("c1")
    assert card is not None and card.output == "" and card.state == "running"


async def test_outside_the_project_offers_no_always() -> None:
    source = FeedSource()
    app = make_app(source)
    answers: list[object] = []
    request = ApprovalRequest(
        "c9", "write", {"path": "/etc/x", "content": "y"}, "writes outside the project",
        outside_workspace=True,
    )  # fmt: skip
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_subscribed(pilot, source)
        await app.push_screen(ApprovalScreen(request, None), callback=answers.append)
        await pilot.pause()
        assert not app.screen.query("#always")
        reason = app.screen.query_one("#approval-reason-text", Static)
        assert str(reason.content) == "writes outside the project"
        await pilot.press("a")
        await pilot.pause()
        assert answers == []
        await pilot.press("y")
        await pilot.pause()
    assert [a.choice for a in answers] == ["allow_once"]  # type: ignore[attr-defined]
