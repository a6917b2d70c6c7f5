"""``/export``, ``/import`` and ``/copy`` in the app, on a real AgentSession."""

from __future__ import annotations

import json
from pathlib import Path

from pitui.ui.view.state import CompactionItem
from tests.core.session.helpers import PI_SESSIONS
from tests.ui.command_support import (
    make_app,
    no_local_ollama,  # noqa: F401  (autouse fixture)
    notices,
    settle,
    submit,
    wait_until,
)
from tests.ui.conversation_support import session_on


async def test_export_html_in_the_current_theme_and_markdown(tmp_path: Path) -> None:
    app = make_app(await session_on(tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await submit(pilot, "/export")
        await wait_until(pilot, lambda: "Session exported to" in notices(app)[-1], "export")
        page = (tmp_path / "pitui-session-views.html").read_text()
        assert notices(app)[-1] == f"Session exported to: {tmp_path / 'pitui-session-views.html'}"
        assert "--page-bg:#18181e" in page and "<script" not in page
        assert "&lt;img src=x onerror=alert(1)&gt;" in page
        await submit(pilot, "/theme light")
        await submit(pilot, "/export out/light.html")
        await wait_until(pilot, lambda: "light.html" in notices(app)[-1], "export")
        assert "--page-bg:#f8f8f8" in (tmp_path / "out" / "light.html").read_text()
        await submit(pilot, "/export notes.md")
        await wait_until(pilot, lambda: "notes.md" in notices(app)[-1], "export")
        assert (tmp_path / "notes.md").read_text().startswith("# Port work")
        await submit(pilot, "/export notes.pdf")
        await wait_until(pilot, lambda: "unknown export format" in notices(app)[-1], "error")


async def test_import_copies_the_file_and_continues_in_it(tmp_path: Path) -> None:
    session = await session_on(tmp_path)
    app = make_app(session)
    source = PI_SESSIONS / "before-compaction.jsonl"  # pi's own file (v1)
    header = json.loads(source.read_text().splitlines()[0])
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await submit(pilot, f"/import {source}")
        await wait_until(pilot, lambda: "Session imported from" in notices(app)[-1], "import")
        assert session.store.session_id == header["id"]
        assert session.store.path is not None and session.store.path.name == source.name
        stored = json.loads(session.store.path.read_text().splitlines()[0])
        assert (stored["id"], stored["cwd"]) == (header["id"], header["cwd"])
        assert source.read_text().splitlines()[0] == json.dumps(header, separators=(",", ":"))
        await settle(pilot)
        assert any(isinstance(i, CompactionItem) for i in app.chat.items)  # view rebuilt
        assert any("tools keep working in" in text for text in notices(app))


async def test_import_refuses_a_broken_file_and_keeps_the_session(tmp_path: Path) -> None:
    session = await session_on(tmp_path)
    app = make_app(session)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type":"session","version":3,"id":"x","timestamp":"t","cwd":"/"}\n{nope\n')
    before = session.store.session_id
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await submit(pilot, "/import")
        assert notices(app)[-1] == "Usage: /import <path.jsonl>"
        await submit(pilot, "/import bad.jsonl")
        await wait_until(pilot, lambda: "does not parse" in notices(app)[-1], "refusal")
        assert session.store.session_id == before


async def test_copy_puts_the_last_reply_on_the_clipboard(tmp_path: Path) -> None:
    session = await session_on(tmp_path)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await submit(pilot, "/copy")
        assert app.clipboard == "You're welcome."
        assert notices(app)[-1] == "Copied last agent message to clipboard"
