"""Opening a damaged file to continue it says what was skipped or cut, in one line."""

from __future__ import annotations

from pathlib import Path

from pitui.core.session.store import SessionStore
from tests.core.session.helpers import HEADER, assistant, entry, jsonl


def damaged_file(path: Path) -> Path:
    """Three garbage lines, an orphan on the current path, and a parent cycle."""
    lines = jsonl([HEADER, entry("a1", None), entry("b2", "a1", message=assistant())])
    lines += b"garbage one\n{not json\n[1, 2]\n"
    lines += jsonl([entry("c1", "c2"), entry("c2", "c1")])  # a cycle off the path
    lines += jsonl([entry("d4", "gone"), entry("e5", "d4", message=assistant("latest"))])
    path.write_bytes(lines)
    return path


async def test_damage_notice_names_what_was_skipped_and_where_the_path_is_cut(
    tmp_path: Path,
) -> None:
    path = damaged_file(tmp_path / "s.jsonl")
    store = await SessionStore.open(path, read_only=True)
    assert store.damage_notice() == (
        "Session file damaged: 3 lines skipped, 1 entry whose parent is missing, "
        "1 parent cycle cut; the current path is cut at entry d4 (entries before it are "
        f"not in the model's context); details: `pitui session check {path}`"
    )
    assert [m.role for m in store.build_context().messages] == ["user", "assistant"]


async def test_a_sound_file_and_a_torn_last_line_say_nothing(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl([HEADER, entry("a1", None)]) + b'{"type":"message","id":"b')
    store = await SessionStore.open(path, read_only=True)
    assert store.report.torn_tail
    assert store.damage_notice() is None


async def test_damage_off_the_current_path_does_not_claim_a_cut(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl([HEADER, entry("x1", "missing"), entry("a1", None), entry("b2", "a1")]))
    store = await SessionStore.open(path, read_only=True)
    assert store.damage_notice() == (
        "Session file damaged: 1 entry whose parent is missing; "
        f"details: `pitui session check {path}`"
    )


async def test_an_entry_that_fits_no_type_on_the_path_is_counted(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    bad = entry("b2", "a1", message={"role": "user", "content": 5, "timestamp": 1})
    path.write_bytes(jsonl([HEADER, entry("a1", None), bad, entry("c3", "b2")]))
    store = await SessionStore.open(path, read_only=True)
    assert store.damage_notice() is None  # nothing validated yet
    assert len(store.build_context().messages) == 2
    assert store.damage_notice() == (
        "Session file damaged: 1 entry that fits no entry type (ignored); "
        f"details: `pitui session check {path}`"
    )
