"""``pitui session compact|navigate``: dry-run JSON equals pi's answers; in-place runs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pitui.modes.session_cli import main

ORACLE = Path(__file__).parents[1] / "fixtures" / "pi-oracle"
COMPACT_KEYS = (
    "leafId", "firstKeptEntryId", "isSplitTurn", "tokensBefore", "messagesToSummarizeCount",
    "turnPrefixMessagesCount", "serialized", "turnPrefixSerialized",
)  # fmt: skip


@pytest.fixture(autouse=True)
def _fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, Any, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, json.loads(out) if out.startswith("{") else out, err


def _oracle(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ORACLE / name).read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize(
    ("session", "case", "extra"),
    [
        ("large-session", "large-session.compact-prep.json", []),
        (
            "large-session",
            "large-session.compact-prep.k5000.json",
            ["--keep-recent-tokens", "5000"],
        ),
        ("large-session", "large-session.compact-prep.leaf-line500.json", ["--leaf", "291b8a84"]),
        ("before-compaction", "before-compaction.compact-prep.json", []),
    ],
)
def test_compact_dry_run_json_equals_pi(
    session: str, case: str, extra: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    file = str(ORACLE / f"{session}.v3.jsonl")
    code, report, _ = _run(["compact", file, "--dry-run", "--json", *extra], capsys)
    expected = _oracle(case)
    assert code == 0
    assert {k: report[k] for k in COMPACT_KEYS} == {k: expected[k] for k in COMPACT_KEYS}
    assert report["readFiles"] == expected["fileLists"]["readFiles"]
    assert report["modifiedFiles"] == expected["fileLists"]["modifiedFiles"]
    assert list(report) == [*COMPACT_KEYS[:6], "readFiles", "modifiedFiles", *COMPACT_KEYS[6:]]


@pytest.mark.parametrize(
    ("session", "case"),
    [
        ("large-session", "large-session.branch-prep.current-to-line700.json"),
        ("before-compaction", "before-compaction.branch-prep.current-to-line400.json"),
    ],
)
def test_navigate_dry_run_json_equals_pi(
    session: str, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = _oracle(case)
    file = str(ORACLE / f"{session}.v3.jsonl")
    argv = ["navigate", file, "--to", expected["targetId"], "--from", expected["oldLeafId"]]
    code, report, _ = _run([*argv, "--summarize", "--dry-run", "--json"], capsys)
    assert code == 0
    assert report == {
        "commonAncestorId": expected["commonAncestorId"],
        "entryIds": expected["entryIds"],
        "readFiles": expected["fileLists"]["readFiles"],
        "modifiedFiles": expected["fileLists"]["modifiedFiles"],
        "serialized": expected["serialized"],
        "newLeafId": expected["navigation"]["newLeafId"],
        "editorText": expected["navigation"]["editorText"],
    }


def test_compact_in_place_with_the_demo_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "s.jsonl"
    shutil.copy(ORACLE / "large-session.v3.jsonl", file)
    code, report, _ = _run(["compact", str(file), "--model", "demo/demo", "--json"], capsys)
    assert code == 0 and report["firstKeptEntryId"] == "77e21857"
    last = json.loads(file.read_bytes().splitlines()[-1])
    assert last["type"] == "compaction" and last["id"] == report["id"]
    assert last["summary"] == report["summary"]
    code, _, err = _run(["compact", str(file), "--model", "demo/demo"], capsys)
    assert code == 1 and "Already compacted" in err


def test_navigate_in_place_with_a_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = _oracle("large-session.branch-prep.current-to-line700.json")
    file = tmp_path / "s.jsonl"
    shutil.copy(ORACLE / "large-session.v3.jsonl", file)
    argv = ["navigate", str(file), "--to", expected["targetId"], "--summarize"]
    code, report, _ = _run([*argv, "--model", "demo/demo", "--json"], capsys)
    assert code == 0
    assert report["editorText"] == expected["navigation"]["editorText"]
    last = json.loads(file.read_bytes().splitlines()[-1])
    assert last["type"] == "branch_summary" and last["id"] == report["summaryEntryId"]
    assert last["fromId"] == expected["navigation"]["newLeafId"]


def test_unknown_target_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    file = str(ORACLE / "large-session.v3.jsonl")
    code, _, err = _run(["navigate", file, "--to", "nope", "--dry-run", "--json"], capsys)
    assert code == 1 and "Entry nope not found" in err


def test_a_two_message_session_is_too_small(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Everything fits in keepRecentTokens: refused, nothing written (pi 1.6's rule)."""
    file = tmp_path / "s.jsonl"
    lines = [
        {"type": "session", "version": 3, "id": "0b7c", "timestamp": "2025-03-01T10:20:30Z",
         "cwd": str(tmp_path)},
        {"type": "message", "id": "a1", "parentId": None, "timestamp": "2025-03-01T10:20:31.000Z",
         "message": {"role": "user", "content": "hi", "timestamp": 1740824431000}},
        {"type": "message", "id": "a2", "parentId": "a1", "timestamp": "2025-03-01T10:20:32.000Z",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "hello"}],
                     "api": "demo", "provider": "demo", "model": "demo", "stopReason": "stop",
                     "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0,
                               "totalTokens": 2}, "timestamp": 1740824432000}},
    ]  # fmt: skip
    file.write_text("".join(json.dumps(line) + "\n" for line in lines))
    before = file.read_bytes()
    for extra in (["--dry-run"], ["--model", "demo/demo"]):
        code, _, err = _run(["compact", str(file), *extra], capsys)
        assert code == 1 and "Nothing to compact (session too small)" in err
    assert file.read_bytes() == before
