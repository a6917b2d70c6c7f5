"""The context inspector shows what ``pitui session context FILE --json`` prints."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, TextArea

from pitui.core.context_report import report_for_file
from pitui.core.session_setup import SessionOptions, create_agent_session
from pitui.ui.app import PituiApp
from pitui.ui.screens.context import ContextDetailScreen, ContextScreen
from pitui.ui.view.context_rows import DISPLAY_NOTE, inspector_rows, row_detail, summary_line
from pitui.ui.view.format import format_tokens
from tests.core.session.helpers import ORACLE
from tests.core.test_context_report import VIEWS, copy_with_cwd
from tests.ui.command_support import (
    make_app,
    make_registry,
    no_local_ollama,  # noqa: F401  (autouse fixture)
    settle,
    submit,
    wait_until,
)

COMPACTED = ORACLE / "before-compaction.v3.jsonl"
ROOT = Path(__file__).parents[2]


async def _open(tmp: Path, source: Path) -> tuple[PituiApp, Path]:
    path = copy_with_cwd(source, tmp / "s.jsonl", tmp)
    options = SessionOptions(cwd=tmp, session_file=path, registry=make_registry())
    return make_app(await create_agent_session(options)), path


async def _cli_json(path: Path) -> dict[str, Any]:
    """What ``pitui session context FILE --json`` prints (a real process: the app holds
    this one's stdout)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pitui", "session", "context", str(path), "--json",
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    data: dict[str, Any] = json.loads(out)
    return data


def _column(table: DataTable[Any], prefix: str, column: int) -> list[str]:
    return [
        str(table.get_row(key)[column])
        for key in (row.key for row in table.ordered_rows)
        if key.value is not None and key.value.startswith(prefix)
    ]


@pytest.mark.parametrize("source", [VIEWS, COMPACTED], ids=["bash-and-custom", "compacted"])
async def test_inspector_equals_the_cli_json(tmp_path: Path, source: Path) -> None:
    app, path = await _open(tmp_path, source)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await submit(pilot, "/context")
        await wait_until(pilot, lambda: isinstance(app.screen, ContextScreen), "the inspector")
        screen = app.screen
        assert isinstance(screen, ContextScreen)
        cli = await _cli_json(path)
        assert json.loads(json.dumps(screen.report.to_json())) == cli
        table = screen.query_one(DataTable)
        messages = cli["messages"]
        assert _column(table, "message:", 1) == [m["role"] for m in messages]
        assert _column(table, "message:", 3) == [m["entryId"] or "" for m in messages]
        assert _column(table, "message:", 4) == [format_tokens(m["tokens"]) for m in messages]
        assert _column(table, "unsent:", 3) == [n["entryId"] or "" for n in cli["notSent"]]
        compacted = cli["compacted"]
        assert _column(table, "compacted", 3) == (
            [f"{compacted['firstEntryId']}..{compacted['lastEntryId']}"] if compacted else []
        )
        assert (compacted is not None) == (source is COMPACTED)
        assert _column(table, "tool:", 2) == [t["name"] for t in cli["tools"]]


async def test_enter_shows_a_message_whole_as_sent(tmp_path: Path) -> None:
    app, _ = await _open(tmp_path, VIEWS)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await submit(pilot, "/context")
        await wait_until(pilot, lambda: isinstance(app.screen, ContextScreen), "the inspector")
        screen = app.screen
        assert isinstance(screen, ContextScreen)
        table = screen.query_one(DataTable)
        keys = [row.key.value for row in table.ordered_rows]
        hidden = next(i for i, m in enumerate(screen.report.messages) if m.source_role == "custom")
        table.move_cursor(row=keys.index(f"message:{hidden}"))
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ContextDetailScreen), "detail")
        text = app.screen.query_one(TextArea).text
        assert text.startswith("user\n\n── text ──\nHidden from the conversation, but the model")
        await pilot.press("escape")
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, ContextScreen | ContextDetailScreen)
        assert DISPLAY_NOTE in [str(table.get_row(k)[6]) for k in keys if k == "note:display"]


async def test_what_a_compaction_replaced_is_one_row_with_its_detail() -> None:
    report = await report_for_file(COMPACTED)
    compacted = report.compacted
    assert compacted is not None
    rows = [row for row in inspector_rows(report) if row.kind == "unsent"]
    grouped = [row for row in rows if row.key == "compacted"]
    assert len(grouped) == 1 and len(rows) == len(report.not_sent) + 1
    assert grouped[0].cells[3] == f"{compacted.first_entry_id}..{compacted.last_entry_id}"
    assert grouped[0].cells[4] == format_tokens(compacted.tokens)
    assert f"{compacted.count} compacted away" in summary_line(report)
    detail = row_detail(report, "compacted")
    assert detail is not None and compacted.compaction_id in detail[0]
    assert compacted.describe() in detail[1]
