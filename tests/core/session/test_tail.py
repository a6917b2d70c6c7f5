"""The end of a session's branch read from the end of its file, against the full load."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pitui.core.session import tail
from pitui.core.session.store import SessionStore
from pitui.core.session.tail import read_branch_tail, resumed_file
from pitui.ui.view.replay import state_from_messages
from pitui.ui.view.replay_json import state_from_json
from tests.core.compaction.sessions import generate, write
from tests.ui.test_replay import _fields


async def _context_view(path: Path, last: int) -> dict[str, object]:
    store = await SessionStore.open(path, read_only=True)
    messages = store.build_context().messages
    return _fields(state_from_messages(messages[-last:]))


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("last", [1, 7, 40, 10_000])
async def test_the_tail_shows_what_the_loaded_context_ends_with(
    tmp_path: Path, seed: int, last: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tail, "FIRST_READ", 2048)  # several reads, each a bigger one
    path = write(tmp_path / "s.jsonl", generate(seed, turns=40))
    found = read_branch_tail(path, max_messages=last)
    assert found is not None
    assert found.leaf_id == json.loads(path.read_text().splitlines()[-1])["id"]
    assert _fields(state_from_json(found.messages)) == await _context_view(path, last)


async def test_damaged_lines_are_skipped(tmp_path: Path) -> None:
    entries = generate(3, turns=10)
    lines = [json.dumps(e) for e in entries]
    lines.insert(len(lines) - 3, "{not json")
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + '\n{"type":"message","id":"torn","parentId"')
    found = read_branch_tail(path, max_messages=5)
    assert found is not None and found.leaf_id == entries[-1]["id"]
    assert _fields(state_from_json(found.messages)) == await _context_view(path, 5)


def test_a_bound_on_bytes_gives_the_messages_read_so_far(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", generate(5, turns=40))
    everything = read_branch_tail(path, max_messages=10_000)
    some = read_branch_tail(path, max_messages=10_000, max_bytes=tail.FIRST_READ // 64)
    assert everything is not None and some is not None
    assert 0 < len(some.messages) < len(everything.messages)
    assert some.messages == everything.messages[-len(some.messages) :]


@pytest.mark.parametrize(
    "head",
    [
        '{"type":"session","version":2,"id":"x"}',  # migrated on load: ids change
        '{"type":"session","id":"x"}',  # v1
        '{"type":"session","version":true,"id":"x"}',
        '{"type":"message","id":"a"}',
        "not json",
        "",
    ],
)
def test_no_preview_of_a_file_the_loader_would_migrate_or_refuse(tmp_path: Path, head: str) -> None:
    body = json.dumps({"type": "message", "id": "a", "parentId": None,
                       "message": {"role": "user", "content": "hi"}})  # fmt: skip
    path = tmp_path / "s.jsonl"
    path.write_text(f"{head}\n{body}\n")
    assert read_branch_tail(path) is None


def test_a_header_alone_has_nothing_to_show(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"type":"session","version":3,"id":"x"}\n')
    assert read_branch_tail(path) is None
    assert read_branch_tail(tmp_path / "missing.jsonl") is None


def test_resumed_file(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", generate(1, turns=2))
    assert resumed_file(tmp_path, path, None, False) == path
    assert resumed_file(tmp_path, None, tmp_path, True) == path
    assert resumed_file(tmp_path, None, tmp_path / "none", True) is None
    assert resumed_file(tmp_path, None, None, False) is None
