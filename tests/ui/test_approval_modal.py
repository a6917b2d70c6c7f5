"""The approval modal: preview computation, body text, and an SVG snapshot."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.pilot import Pilot
from textual.widgets import Button, Input, Static

from pitui.core.permissions import ApprovalRequest
from pitui.ui.app import PituiApp
from pitui.ui.approval_preview import ApprovalPreview, preview_change
from pitui.ui.screens.approval import (
    ARMED_HINT,
    UNARMED_HINT,
    ApprovalScreen,
    always_label,
    bash_command,
    request_body,
)
from pitui.ui.view.events import ApprovalRequested
from pitui.ui.widgets.composer import Composer
from tests.ui.flows import wait_for
from tests.ui.harness import FeedSource, burst, freeze, make_app, settle, wait_subscribed
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
                           always_rule="npm test -- --watch")  # fmt: skip
    assert bash_command(bash) == "npm test -- --watch"  # shown in the scrolling view
    assert always_label(bash) == "Always allow `npm test -- --watch` here [a]"
    long = ApprovalRequest("c3", "bash", {"command": "x" * 50}, "", always_rule="x" * 50)
    assert always_label(long) == f"Always allow `{'x' * 24}…` here [a]"
    other = ApprovalRequest("c2", "deploy", {"target": "prod"}, "mutating")
    assert '"target": "prod"' in str(request_body(other, None))
    problem = ApprovalPreview(problem="File not found: x")
    assert str(request_body(other, problem)) == "File not found: x"


def _edit_request() -> tuple[ApprovalRequest, ApprovalPreview]:
    from pitui.core.tools.edit_diff import generate_diff_string

    args = {"path": "src/config.ts", "oldText": "port = 3000", "newText": "port = 8080"}
    request = ApprovalRequest("toolu_1", "edit", args, "edit changes files", always_rule="edit")
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
    screen = ApprovalScreen(request, preview)
    await app.push_screen(screen)
    await wait_for(pilot, lambda: screen.armed, "the modal's keys to arm")
    await settle(pilot)


def test_approval_modal_snapshot(snap_compare: SnapCompare) -> None:
    source = FeedSource()
    app = make_app(source)

    async def run_before(pilot: Pilot[Any]) -> None:
        await _show_modal(pilot, source)

    assert snap_compare(app, terminal_size=(120, 36), run_before=run_before)


async def _open(pilot: Pilot[Any], screen: ApprovalScreen, answers: list[object]) -> None:
    """Push ``screen`` and wait until its keys arm."""
    await pilot.app.push_screen(screen, callback=answers.append)
    await wait_for(pilot, lambda: screen.armed, "the modal's keys to arm")


async def test_keys_answer_the_modal() -> None:
    source = FeedSource()
    app = make_app(source)
    answers: list[object] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_subscribed(pilot, source)
        request, preview = _edit_request()
        for keys in (["y"], ["a"], ["n", "w", "h", "y", "enter"], ["escape"], ["enter"],
                     ["right", "enter"]):  # fmt: skip
            # Arming is tested on its own; here a short wait keeps six openings quick.
            await _open(pilot, ApprovalScreen(request, preview, arm_delay=0.05), answers)
            await pilot.press(*keys)
            await pilot.pause()
    got = [(a.choice, a.reason) for a in answers]  # type: ignore[attr-defined]
    assert got == [
        ("allow_once", None),
        ("always", None),
        ("deny", "why"),
        ("deny", None),
        ("allow_once", None),
        ("always", None),
    ]


def _bash_request(command: str = "npm test -- --watch") -> ApprovalRequest:
    return ApprovalRequest(
        "c1", "bash", {"command": command}, "runs a shell command", always_rule=command
    )


@pytest.mark.parametrize("sentence", ["hmm wait, abort", "read a.txt", "yes always\r"])
async def test_typing_a_sentence_into_an_opening_dialog_answers_nothing(sentence: str) -> None:
    source = FeedSource()
    app = make_app(source)
    answers: list[object] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_subscribed(pilot, source)
        # A long wait: a loaded machine must not arm it between the burst and the checks.
        screen = ApprovalScreen(_bash_request("rm -rf build"), None, arm_delay=60)
        await app.push_screen(screen, callback=answers.append)
        burst(app, *sentence.replace("\r", ""), *(["enter"] if sentence.endswith("\r") else []))
        await pilot.pause()
        await pilot.pause()
        assert answers == [] and app.screen is screen
        assert screen.query_one("#approval-dialog").has_class("-unarmed")
        assert str(screen.query_one("#approval-keys", Static).content) == UNARMED_HINT
        # Nothing typed is lost: it went on into the composer underneath.
        assert app.screen_stack[0].query_one(Composer).text == sentence.replace("\r", "")
        screen._arm()  # the quiet minute is over
        await pilot.pause()
        assert str(screen.query_one("#approval-keys", Static).content) == ARMED_HINT
        await pilot.press("n", *"no", "enter")
        await pilot.pause()
    assert [(a.choice, a.reason) for a in answers] == [("deny", "no")]  # type: ignore[attr-defined]


async def test_n_then_fast_typing_stays_in_the_reason_field() -> None:
    """A burst after ``n`` (space included) never reaches the focused Allow button."""
    source = FeedSource()
    app = make_app(source)
    answers: list[object] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_subscribed(pilot, source)
        await _open(pilot, ApprovalScreen(_bash_request("rm -rf build"), None), answers)
        burst(app, "n", *"no thanks, keep it y a", "enter")
        for _ in range(3):
            await pilot.pause()
    got = [(a.choice, a.reason) for a in answers]  # type: ignore[attr-defined]
    assert got == [("deny", "no thanks, keep it y a")]


async def test_prose_typed_after_it_armed_un_arms_it() -> None:
    """Typing resumed after a pause: a letter that is no answer (or Space) disarms it."""
    source = FeedSource()
    app = make_app(source)
    answers: list[object] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_subscribed(pilot, source)
        screen = ApprovalScreen(_bash_request("npm test"), None)
        await _open(pilot, screen, answers)
        burst(app, *"hmm wait, abort", "enter")
        for _ in range(3):
            await pilot.pause()
        assert answers == [] and not screen.armed
        assert app.screen_stack[0].query_one(Composer).text == "hmm wait, abort"
        await wait_for(pilot, lambda: screen.armed, "the modal's keys to arm again")
        burst(app, " ")
        await pilot.pause()
        assert answers == [] and not screen.armed


async def test_keys_typed_before_the_dialog_appeared_never_reach_it() -> None:
    source = FeedSource()
    app = make_app(source)
    answers: list[object] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_subscribed(pilot, source)
        early = [events.Key("y", "y"), events.Key("enter", "\r")]  # made before it shows
        screen = ApprovalScreen(_bash_request(), None, arm_delay=0.01)
        await app.push_screen(screen, callback=answers.append)
        await wait_for(pilot, lambda: screen.armed, "the modal's keys to arm")
        for key in early:
            app._driver.send_message(key)  # type: ignore[union-attr]
        await pilot.pause()
        await pilot.pause()
        assert answers == [] and app.screen is screen


async def test_every_key_while_unarmed_restarts_the_wait() -> None:
    source = FeedSource()
    app = make_app(source)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_subscribed(pilot, source)
        screen = ApprovalScreen(_bash_request(), None, arm_delay=60)
        await app.push_screen(screen)
        await pilot.pause()
        timer = screen._arm_timer
        assert timer is not None
        resets: list[None] = []
        original = timer.reset

        def reset() -> None:
            resets.append(None)
            original()

        timer.reset = reset  # type: ignore[method-assign]
        await pilot.press("x", "y", "enter")
        assert len(resets) == 3 and not screen.armed


async def test_always_for_bash_shows_the_exact_rule_and_lets_the_user_edit_it() -> None:
    source = FeedSource()
    app = make_app(source)
    answers: list[object] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_subscribed(pilot, source)
        screen = ApprovalScreen(_bash_request(), None)
        await _open(pilot, screen, answers)
        always = screen.query_one("#always", Button)
        assert "npm test -- --watch" in str(always.label)
        await pilot.press("a")
        await pilot.pause()
        rule = screen.query_one("#approval-rule", Input)
        assert rule.has_focus and rule.value == "npm test -- --watch"
        burst(app, " ", "*")  # typing adds to the command, it does not replace it
        await pilot.pause()
        assert rule.value == "npm test -- --watch *"
        rule.value = "make *"
        await pilot.press("enter")
        await pilot.pause()
        error = str(screen.query_one("#approval-rule-error", Static).content)
        assert "does not cover this command" in error and answers == []
        rule.value = "npm test *"
        await pilot.press("enter")
        await pilot.pause()
    got = [(a.choice, a.rule) for a in answers]  # type: ignore[attr-defined]
    assert got == [("always", "npm test *")]


async def test_destructive_commands_offer_no_always_and_say_why() -> None:
    source = FeedSource()
    app = make_app(source)
    answers: list[object] = []
    request = ApprovalRequest(
        "c1", "bash", {"command": "rm -rf build"}, "runs a shell command",
        always_refused="this command is never remembered: `rm` deletes or overwrites data",
    )  # fmt: skip
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_subscribed(pilot, source)
        screen = ApprovalScreen(request, None)
        await _open(pilot, screen, answers)
        assert not screen.query("#always")
        assert "`rm` deletes" in str(screen.query_one("#approval-no-always", Static).content)
        await pilot.press("a")
        await pilot.pause()
        assert answers == []


def test_card_waits_for_approval_then_clears() -> None:
    from pitui.ui.view.chat_state import ChatState
    from pitui.ui.view.events import ApprovalResolved
    from pitui.ui.view.reducer import reduce_all
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
        await _open(pilot, ApprovalScreen(request, None), answers)
        assert not app.screen.query("#always")
        reason = app.screen.query_one("#approval-reason-text", Static)
        assert str(reason.content) == "writes outside the project"
        await pilot.press("a")
        await pilot.pause()
        assert answers == []
        await pilot.press("y")
        await pilot.pause()
    assert [a.choice for a in answers] == ["allow_once"]  # type: ignore[attr-defined]


def test_the_call_is_shown_without_hiding_anything() -> None:
    from pitui.ui.view.approval_text import body_lines, size_note, title_line

    command = "echo safe" + "\n" * 150 + "touch \x1b]52;c;eA==\x07 \u202eevil"
    title = title_line("bash", {"command": command})
    assert title == "$ echo safe⏎×150touch \\x1b]52;c;eA==\\x07 \\u202eevil"
    lines = body_lines(command, 20)
    assert lines[0] == "echo safe⏎" and lines[1:150] == ["⏎"] * 149
    assert "".join(lines[150:]) == "touch \\x1b]52;c;eA==\\x07 \\u202eevil"
    assert size_note(command) == f"{len(command):,} characters on 151 lines"
    assert size_note("ls") == "2 characters"
    huge = title_line("bash", {"command": "a" * 1_000_000})
    assert len(huge) == 101 and huge.endswith("…")
    path = "notes\n" * 3 + "x"
    assert title_line("write", {"path": path, "content": ""}).count("⏎") == 3
    assert body_lines("界" * 10, 8) == ["界" * 4, "界" * 4, "界" * 2]


async def test_scroll_keys_move_the_command_view() -> None:
    source = FeedSource()
    app = make_app(source)
    command = "\n".join(f"line {n}" for n in range(200))
    request = ApprovalRequest("c1", "bash", {"command": command}, "runs a shell command")
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_subscribed(pilot, source)
        screen = ApprovalScreen(request, None, arm_delay=0.05)
        await _open(pilot, screen, [])
        await settle(pilot)
        view = screen.query_one("#approval-command")
        size = screen.query_one("#approval-size", Static)
        assert "characters on 200 lines" in str(size.content)
        await pilot.press("end")
        await settle(pilot)
        assert view.scroll_y == view.max_scroll_y > 0
        await pilot.press("home")
        await settle(pilot)
        assert view.scroll_y == 0


@pytest.mark.parametrize("size", [(120, 36), (80, 24)], ids=["120x36", "80x24"])
async def test_the_first_frame_shows_the_command_and_keys_arm_only_after_it(
    size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dialog is never drawn, nor armed, without the command in its view: the rows
    are cut as the dialog is laid out, and the wait to arm starts after that frame (it
    used to start at mount, and the command came two refreshes later: under load the
    dialog armed showing only its title). A short command says no size either."""
    from pitui.ui.screens import approval

    painted: list[int] = []
    at_arm: list[list[int]] = []
    draw, arm = approval._CommandView.render_line, ApprovalScreen._arm

    def render_line(view: approval._CommandView, y: int) -> Any:
        painted.append(view.line_count)
        return draw(view, y)

    def arm_now(screen: ApprovalScreen) -> None:
        at_arm.append(list(painted))
        arm(screen)

    monkeypatch.setattr(approval._CommandView, "render_line", render_line)
    monkeypatch.setattr(ApprovalScreen, "_arm", arm_now)
    source = FeedSource()
    app = make_app(source)
    request = ApprovalRequest("c1", "bash", {"command": "ls -a"}, "runs a shell command",
                              always_rule="ls -a")  # fmt: skip
    async with app.run_test(size=size) as pilot:
        await wait_subscribed(pilot, source)
        screen = ApprovalScreen(request, None, arm_delay=0.001)
        await _open(pilot, screen, [])
        await settle(pilot)
        assert painted and min(painted) == 1  # never drawn without its row
        assert at_arm and at_arm[0] and min(at_arm[0]) == 1
        view = screen.query_one("#approval-command")
        assert view.region.height == 1
        assert not screen.query_one("#approval-size").display


@pytest.mark.parametrize("size", [(120, 36), (80, 24), (60, 24)], ids=["120x36", "80x24", "60x24"])
async def test_a_long_command_says_its_size_and_the_foot_covers_none_of_it(
    size: tuple[int, int],
) -> None:
    source = FeedSource()
    app = make_app(source)
    command = "\n".join(f"line {n}" for n in range(200))
    request = ApprovalRequest("c1", "bash", {"command": command}, "runs a shell command")
    async with app.run_test(size=size) as pilot:
        await wait_subscribed(pilot, source)
        screen = ApprovalScreen(request, None, arm_delay=0.05)
        await _open(pilot, screen, [])
        await settle(pilot)
        view = screen.query_one("#approval-command")
        foot = screen.query_one("#approval-foot")
        assert screen.query_one("#approval-size").display
        assert view.region.height >= 3 and view.region.bottom <= foot.region.y
        assert screen.query_one("#allow_once").region.height == 1


@pytest.mark.parametrize(
    "size", [(120, 36), (80, 24), (60, 24), (60, 36)], ids=["120x36", "80x24", "60x24", "60x36"]
)
async def test_every_choice_is_inside_the_dialog_however_narrow(size: tuple[int, int]) -> None:
    """A long command makes a long "always" button: when the three choices do not fit
    one row they go one under another ("Deny [n]" was cut off at 80 columns)."""
    source = FeedSource()
    app = make_app(source)
    command = "echo " + " ".join(f"word{n:04d}" for n in range(50))
    request = ApprovalRequest("c1", "bash", {"command": command}, "runs a shell command",
                              always_rule=command)  # fmt: skip
    async with app.run_test(size=size) as pilot:
        await wait_subscribed(pilot, source)
        screen = ApprovalScreen(request, None, arm_delay=0.05)
        await _open(pilot, screen, [])
        await settle(pilot)
        inside = screen.query_one("#approval-dialog").content_region
        for choice in ("allow_once", "always", "deny"):
            region = screen.query_one(f"#{choice}").region
            assert region.height and inside.contains_region(region), (choice, region, inside)
        view = screen.query_one("#approval-command")
        assert view.region.bottom <= screen.query_one("#approval-foot").region.y


@pytest.mark.parametrize("size", [(120, 36), (60, 24)], ids=["120x36", "60x24"])
async def test_the_armed_key_row_is_never_cut(size: tuple[int, int]) -> None:
    """At 60 columns the full row lost its "esc deny": a short one is shown there."""
    source = FeedSource()
    app = make_app(source)
    request = ApprovalRequest("c1", "bash", {"command": "ls -a"}, "runs a shell command",
                              always_rule="ls -a")  # fmt: skip
    async with app.run_test(size=size) as pilot:
        await wait_subscribed(pilot, source)
        screen = ApprovalScreen(request, None, arm_delay=0.01)
        await _open(pilot, screen, [])
        await wait_for(pilot, lambda: screen.armed, "armed")
        await settle(pilot)
        keys = screen.query_one("#approval-keys", Static)
        shown = str(keys.content)
        assert len(shown) <= keys.size.width and shown.endswith("esc deny")
        assert (shown == ARMED_HINT) == (size[0] == 120)
