"""SVG snapshots: the resume picker (threaded, with a fork), the compaction progress card
and the compaction result card (collapsed and expanded with its file lists).

Regenerate with ``pytest tests/ui/test_snapshots_compaction.py --snapshot-update`` and
review the SVGs.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from pitui.core.session.listing_ops import PickerScopes
from pitui.ui.screens.resume import ResumeScreen
from pitui.ui.view.events import CompactionDone, ProgressStarted, ToggleItem
from pitui.ui.widgets.progress_card import ProgressCard
from tests.ui.harness import FeedSource, freeze, make_app, settle, wait_subscribed
from tests.ui.script import Script, usage

SnapCompare = Callable[..., bool]
PICKER_ROOT = Path("/tmp/pitui-snapshot-resume")
"""A fixed place: the picker shows the selected file's path."""
NOW_MS = 1_767_268_800_000  # 2026-01-01T12:00:00Z
SUMMARY = """## Goal
- Read the port and host from the environment

## Constraints & Preferences
- Keep the defaults working without a .env file

## Progress
### Done
- [x] Read `src/config.ts`
- [x] Edited `src/config.ts`

### In Progress
- [ ] Add tests for the loader

### Blocked
- (none)

## Key Decisions
- **Plain env variables**: a YAML loader was more than needed

## Next Steps
1. Continue with: add tests for the loader

## Critical Context
- Files modified: `src/config.ts`

<read-files>
src/server.ts
</read-files>

<modified-files>
src/config.ts
</modified-files>"""


def _line(entry_type: str, entry_id: str, parent: str | None, at: int, **fields: Any) -> str:
    stamp = f"2026-01-01T{at // 60:02d}:{at % 60:02d}:00.000Z"
    data = {"type": entry_type, "id": entry_id, "parentId": parent, "timestamp": stamp, **fields}
    return json.dumps(data, separators=(",", ":"))  # as pi writes


def _session_file(
    directory: Path, name: str, first: str, minutes: int, *, parent: Path | None = None,
    title: str | None = None, messages: int = 2, cwd: str = "/home/dev/webapp",
) -> Path:  # fmt: skip
    header: dict[str, Any] = {"type": "session", "version": 3, "id": f"{name}-0000-4000-8000",
                              "timestamp": "2026-01-01T00:00:00.000Z", "cwd": cwd}  # fmt: skip
    if parent is not None:
        header["parentSession"] = str(parent)
    stamp = NOW_MS - minutes * 60_000
    lines = [json.dumps(header, separators=(",", ":"))]
    previous: str | None = None
    for n in range(messages):
        role = "user" if n % 2 == 0 else "assistant"
        text = first if n == 0 else f"reply {n}"
        message = {"role": role, "content": [{"type": "text", "text": text}], "timestamp": stamp}
        lines.append(_line("message", f"{name}{n:02d}", previous, n, message=message))
        previous = f"{name}{n:02d}"
    if title:
        lines.append(_line("session_info", f"{name}99", previous, 59, name=title))
    path = directory / f"2026-01-01T00-00-00-000Z_{name}.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _picker_files() -> PickerScopes:
    shutil.rmtree(PICKER_ROOT, ignore_errors=True)
    here = PICKER_ROOT / "--home-dev-webapp--"
    here.mkdir(parents=True)
    root = _session_file(here, "aaaa", "Refactor the session loader", 60 * 26, messages=14)
    _session_file(here, "bbbb", "Try the streaming parser instead", 180, parent=root, messages=6)
    _session_file(here, "cccc", "Profile the cold start", 90, title="Cold start", messages=8)
    _session_file(here, "dddd", "Fix the flaky resize test", 12, messages=4)
    return PickerScopes([here], [PICKER_ROOT, here])


def test_resume_picker_threaded_with_a_fork(snap_compare: SnapCompare) -> None:
    source = FeedSource()
    app = make_app(source)

    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_subscribed(pilot, source)
        screen = ResumeScreen(_picker_files())
        await app.push_screen(screen)  # mounted: its listing worker has started
        await app.workers.wait_for_complete()
        assert not screen.lists["current"].loading
        # The picker's search field came after the screen: freeze it too (its cursor
        # blinking, a loaded machine could capture the cursor's off phase).
        freeze(app)
        screen.rows.now_ms = NOW_MS
        screen.rows.refresh()
        await settle(pilot)

    assert snap_compare(app, terminal_size=(120, 36), run_before=run_before)


def _conversation() -> Script:
    s = Script().start().user("Read the port and host from the environment.")
    s.assistant().text("Both now come from the environment.").end("stop", usage=usage(2100, 120))
    return s.agent_end()


def test_compaction_progress_card(
    snap_compare: SnapCompare, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ProgressCard, "clock", staticmethod(lambda: 112.0))
    source = FeedSource()
    app = make_app(source)

    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_subscribed(pilot, source)
        freeze(app)
        source.emit(_conversation().events)
        await settle(pilot)
        started = ProgressStarted(
            "compaction", "Compacting context", 100.0, "Focus: the config loader"
        )
        await app.apply([started])
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


@pytest.mark.parametrize("expanded", [False, True], ids=["collapsed", "expanded"])
def test_compaction_result_card(snap_compare: SnapCompare, expanded: bool) -> None:
    source = FeedSource()
    app = make_app(source)

    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_subscribed(pilot, source)
        freeze(app)
        source.emit(_conversation().events)
        await settle(pilot)
        await app.apply([CompactionDone(SUMMARY, 182_340)])
        if expanded:
            await app.apply([ToggleItem(app.chat.items[-1].id)])
        await settle(pilot)

    size = (100, 66) if expanded else (80, 24)
    assert snap_compare(app, terminal_size=size, run_before=run_before)
