"""Session listing: pi's fields, fast scan equal to a full parse, ordering, recent session."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from pitui.core.session import listing
from pitui.core.session.listing import (
    list_sessions,
    most_recent_session,
    read_session_info,
)
from tests.core.session.helpers import HEADER, NAMES, ORACLE, PI_SESSIONS, assistant, entry, jsonl


def _session(directory: Path, name: str, *objects: dict[str, Any]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_bytes(jsonl([HEADER, *objects]))
    return path


@pytest.mark.parametrize(
    "path", [ORACLE / f"{n}.v3.jsonl" for n in NAMES] + [PI_SESSIONS / f"{n}.jsonl" for n in NAMES]
)
def test_fast_scan_equals_full_parse_on_pi_files(path: Path) -> None:
    data = path.read_bytes()
    fast = listing._fast_scan(data)
    full = listing._full_scan(data)
    assert fast is not None
    assert (fast.count, fast.first, fast.last_ms, fast.name) == (
        full.count,
        full.first,
        full.last_ms,
        full.name,
    )
    info = read_session_info(path)
    assert info is not None and info.message_count == sum(
        1 for line in data.splitlines() if b'"type":"message"' in line[:20]
    )


def test_fields_name_modified_first_message(tmp_path: Path) -> None:
    user = {
        "role": "user",
        "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        "timestamp": 1_800_000_000_000,
    }
    path = _session(
        tmp_path,
        "s.jsonl",
        entry("a1", None, message={"role": "user", "content": "", "timestamp": 5}),
        entry("b2", "a1", message=user),
        entry("c3", "b2", message=assistant(timestamp=1_800_000_000_500)),
        entry("d4", "c3", kind="session_info", name=" first "),
        entry("e5", "d4", kind="session_info", name=""),
        entry(
            "f6",
            "e5",
            message={
                "role": "toolResult",
                "toolCallId": "x",
                "toolName": "t",
                "content": [],
                "isError": False,
                "timestamp": 1_900_000_000_000,
            },
        ),
    )
    os.utime(path, (1, 1))  # modified comes from the messages, not the mtime
    info = read_session_info(path)
    assert info is not None
    assert info.first_message == "a b"
    assert info.message_count == 4
    assert info.modified_ms == 1_800_000_000_500
    assert info.name == "first"
    assert info.to_json()["modified"] == "2027-01-15T08:00:00.500Z"


def test_no_messages_and_invalid_files(tmp_path: Path) -> None:
    _session(tmp_path, "empty.jsonl")
    (tmp_path / "bad.jsonl").write_text("garbage\n")
    (tmp_path / "other.txt").write_text("x")
    infos = list_sessions(session_dir=tmp_path)
    assert [i.first_message for i in infos] == ["(no messages)"]
    assert infos[0].modified == HEADER["timestamp"]


def test_sorted_newest_first_and_all_projects(pitui_home: Path) -> None:
    root = pitui_home / "sessions"
    for number, project in enumerate(["--a--", "--b--", "--a--"]):
        stamp = 1_700_000_000_000 + number
        _session(
            root / project, f"{number}.jsonl", entry("a1", None, message=assistant(timestamp=stamp))
        )
    assert [Path(i.path).name for i in list_sessions(all_projects=True)] == [
        "2.jsonl",
        "1.jsonl",
        "0.jsonl",
    ]
    assert [Path(i.path).name for i in list_sessions(cwd="/a")] == ["2.jsonl", "0.jsonl"]


def test_non_pi_layout_falls_back_to_full_parse(tmp_path: Path) -> None:
    reordered = {
        "id": "a1",
        "type": "message",
        "parentId": None,
        "message": {"role": "user", "content": "hey", "timestamp": 3},
    }
    path = _session(tmp_path, "s.jsonl", reordered)
    assert listing._fast_scan(path.read_bytes()) is None
    info = read_session_info(path)
    assert info is not None and info.message_count == 1 and info.first_message == "hey"


def test_most_recent_by_mtime_valid_only(tmp_path: Path) -> None:
    old = _session(tmp_path, "old.jsonl")
    new = _session(tmp_path, "new.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("nope\n")
    os.utime(old, (100, 100))
    os.utime(new, (200, 200))
    os.utime(bad, (300, 300))
    assert most_recent_session(tmp_path) == new
    shutil.rmtree(tmp_path)
    assert most_recent_session(tmp_path) is None


def test_cache_reuses_rows_of_unchanged_files_and_refreshes_changed_ones(
    tmp_path: Path, pitui_home: Path
) -> None:
    path = _session(tmp_path, "s.jsonl", entry("a1", None, message=assistant(timestamp=5)))
    first = list_sessions(session_dir=tmp_path)
    assert (pitui_home / "cache" / "session-list.json").exists()
    stat = path.stat()
    # Same size and mtime: the cached row is used, the file is not read again.
    path.write_bytes(path.read_bytes().replace(b"claude-x", b"claude-y"))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert list_sessions(session_dir=tmp_path)[0].modified_ms == first[0].modified_ms
    with path.open("ab") as handle:
        handle.write(jsonl([entry("b2", "a1", message=assistant(timestamp=9))]))
    assert list_sessions(session_dir=tmp_path)[0].modified_ms == 9
    assert list_sessions(session_dir=tmp_path, use_cache=False)[0].message_count == 2
    path.unlink()
    assert list_sessions(session_dir=tmp_path) == []
    cache = (pitui_home / "cache" / "session-list.json").read_text()
    assert "s.jsonl" not in cache
