"""SVG snapshots of single cards: diffs, bash truncation, thinking, errors, summaries.

Every scene ends with the run finished (no spinner, no activity line) and the cursor frozen,
so the pictures are deterministic. Regenerate with
``pytest tests/ui/test_snapshots_cards.py --snapshot-update`` and review the SVGs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from textual.pilot import Pilot

from pitui.agent.events import AgentEvent
from pitui.core.messages import BranchSummaryMessage, CompactionSummaryMessage
from pitui.ui.app import PituiApp
from pitui.ui.view.events import ToggleAllThinking, ToggleAllTools, ToggleItem, UiEvent
from tests.ui.harness import FeedSource, freeze, make_app, settle, wait_subscribed
from tests.ui.script import Script, usage

SnapCompare = Callable[..., bool]
WIDE = (120, 36)

EDIT_DIFF = "\n".join(
    [
        "  8 import { serve } from './server';",
        "  9 ",
        "-10 export const port = 3000;",
        "-11 export const host = '0.0.0.0';",
        "+10 export const port = Number(process.env.PORT ?? 8080);",
        "+11 export const host = process.env.HOST ?? 'localhost';",
        " 12 ",
        " 13 serve({ host, port });",
    ]
)
BASH_LOG = "/tmp/pi-bash-3f9c2a1b.log"


def _scene(
    events: Sequence[AgentEvent], ui: Sequence[UiEvent] = ()
) -> tuple[PituiApp, Callable[[Pilot[Any]], Any]]:
    source = FeedSource()
    app = make_app(source)

    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_subscribed(pilot, source)
        freeze(app)
        source.emit(events)
        await settle(pilot)
        if ui:
            await app.apply(ui)
            await settle(pilot)

    return app, run_before


def _edit_run() -> Script:
    args = {
        "path": "src/config.ts",
        "oldText": "export const port = 3000;\nexport const host = '0.0.0.0';",
        "newText": "export const port = Number(process.env.PORT ?? 8080);\n"
        "export const host = process.env.HOST ?? 'localhost';",
    }
    s = Script().start().user("Read the port and host from the environment.")
    s.assistant().text("I'll update both constants.").tool_call("call_e", "edit", args)
    s.end("toolUse", usage=usage(2100, 120, 3800, 0.004)).tool_start("call_e", "edit", args)
    s.tool_end(
        "call_e",
        "edit",
        "Successfully replaced text in src/config.ts.",
        details={"diff": EDIT_DIFF, "firstChangedLine": 10},
    )
    s.turn_end().assistant().text("Both now come from the environment.").end("stop")
    return s.agent_end()


def test_edit_card_with_diff_expanded(snap_compare: SnapCompare) -> None:
    app, run_before = _scene(_edit_run().events, [ToggleAllTools()])
    assert snap_compare(app, terminal_size=WIDE, run_before=run_before)


def _bash_run() -> Script:
    lines = [f"PASS tests/unit/case_{n:03}.test.ts" for n in range(1, 121)]
    shown = "\n".join(lines[-40:])
    output = f"{shown}\n\n[Showing lines 81-120 of 120. Full output: {BASH_LOG}]"
    args = {"command": "npm test -- --reporter=dot"}
    s = Script().start().user("Run the test suite.")
    s.assistant().tool_call("call_b", "bash", args).end("toolUse").tool_start(
        "call_b", "bash", args
    )
    s.tool_end("call_b", "bash", output, details={"fullOutputPath": BASH_LOG})
    s.turn_end().assistant().text("All 120 tests pass.").end("stop")
    return s.agent_end()


def test_bash_card_truncated_with_full_output_path(snap_compare: SnapCompare) -> None:
    app, run_before = _scene(_bash_run().events)
    assert snap_compare(app, terminal_size=WIDE, run_before=run_before)


def _thinking_run() -> Script:
    s = Script().start().user("Why does the build fail on CI only?")
    s.assistant().thinking(
        "CI runs a clean install, so the lockfile matters.\n",
        "Locally node_modules still has the old version.\n",
        "Check the lockfile diff first.",
    )
    s.text("CI installs from the lockfile, which still pins the old **esbuild**.").end("stop")
    return s.agent_end()


def test_thinking_collapsed(snap_compare: SnapCompare) -> None:
    app, run_before = _scene(_thinking_run().events)
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_thinking_expanded(snap_compare: SnapCompare) -> None:
    app, run_before = _scene(_thinking_run().events, [ToggleAllThinking()])
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_error_and_aborted_replies(snap_compare: SnapCompare) -> None:
    s = Script().start().user("Summarise the changelog.")
    s.assistant().text("The changelog lists").end(
        "error", error_message='429 {"type":"error","error":{"type":"rate_limit_error"}}'
    )
    s.agent_end().start().user("Try again, shorter.")
    s.assistant().text("Version 2 adds").end("aborted")
    s.agent_end()
    app, run_before = _scene(s.events)
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_compaction_and_branch_summary_cards(snap_compare: SnapCompare) -> None:
    compaction = CompactionSummaryMessage(
        summary="## Goal\nPort the config loader.\n\n## Progress\n- [x] env variables",
        tokens_before=182_431,
        timestamp=1_700_000_000_500,
    )
    branch = BranchSummaryMessage(
        summary="Tried a YAML loader; dropped it for plain env variables.",
        from_id="a1b2c3d4",
        timestamp=1_700_000_000_600,
    )
    s = Script().custom(compaction).custom(branch).start().user("Continue with the tests.")
    s.assistant().text("Adding tests for the loader next.").end("stop").agent_end()
    app, run_before = _scene(s.events)

    async def expand_compaction(pilot: Pilot[Any]) -> None:
        await run_before(pilot)
        await app.apply([ToggleItem(app.chat.items[0].id)])
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=expand_compaction)
