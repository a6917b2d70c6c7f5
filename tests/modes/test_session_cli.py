"""``pitui session ls|tree|context|check``: outputs, exit codes, and pi's oracle."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pitui.modes import session_cli
from pitui.modes.session_cli import main
from tests.core.session.helpers import (
    HEADER,
    NAMES,
    ORACLE,
    ORACLE_LEAVES,
    PI_SESSIONS,
    assistant,
    entry,
    jsonl,
    read_objects,
)

ROOT = Path(__file__).parents[2]


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _cases() -> list[tuple[str, str, str | None]]:
    return [(n, s, leaf) for n, leaves in ORACLE_LEAVES.items() for s, leaf in leaves.items()]


@pytest.mark.parametrize(("name", "suffix", "leaf"), _cases())
def test_context_json_equals_pis_oracle(
    name: str, suffix: str, leaf: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["context", str(ORACLE / f"{name}.v3.jsonl"), "--json"]
    code, out, _ = _run(argv + (["--leaf", leaf] if leaf else []), capsys)
    assert code == 0
    got: dict[str, Any] = json.loads(out)
    expected = json.loads((ORACLE / f"{name}.{suffix}.json").read_text())
    for key in ("leafId", "model", "thinkingLevel", "agentMessages", "llmMessages"):
        assert got[key] == expected[key], key


@pytest.mark.parametrize("name", NAMES)
def test_context_of_v1_file_is_read_only_and_equals_oracle(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "v1.jsonl"
    original = (PI_SESSIONS / f"{name}.jsonl").read_bytes()
    copy.write_bytes(original)
    code, out, _ = _run(["context", str(copy), "--json"], capsys)
    expected = json.loads((ORACLE / f"{name}.v3.context.json").read_text())
    assert code == 0 and json.loads(out)["llmMessages"] == expected["llmMessages"]
    assert copy.read_bytes() == original  # read-only: never migrated on disk


def test_context_text_lists_roles_tokens_and_previews(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["context", str(ORACLE / "before-compaction.v3.jsonl")], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("leaf a677ad87  model anthropic/claude-opus-4-5  thinking off")
    assert "compactionSummary" in lines[1] and "tok" in lines[1]
    assert lines[-1].startswith("446 messages, ~")
    # What the compaction replaced is one line, not one per entry.
    summarised = [line for line in lines if "summarised away by compaction" in line]
    assert summarised == [
        "  a6685f3b..a9fb6571  546 entries, ~237,984 tok, 1 earlier compaction among them"
        "  summarised away by compaction b6c618f5: the model sees its summary"
    ]


def test_context_unknown_leaf_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["context", str(ORACLE / "large-session.v3.jsonl"), "--leaf", "zz"], capsys)
    assert code == 1 and "Entry zz not found" in err


def _branched(tmp_path: Path) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_bytes(
        jsonl(
            [
                HEADER,
                entry("a1", None),
                entry("b2", "a1", message=assistant("first answer")),
                entry("c3", "a1", message=assistant("second answer")),
                entry("d4", "c3", kind="label", targetId="a1", label="start"),
            ]
        )
    )
    return path


def test_tree_marks_active_path_leaf_and_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(["tree", str(_branched(tmp_path))], capsys)
    assert code == 0
    assert out.splitlines() == [
        "• [start] user: text a1",
        "├─ • assistant: second answer ←",
        "└─ assistant: first answer",
        "(2/3)",
    ]
    code, out, _ = _run(["tree", str(_branched(tmp_path)), "--filter", "all", "--ids"], capsys)
    assert out.splitlines() == [
        "a1       • [start] user: text a1",
        "c3       ├⊟ • assistant: second answer",
        "d4       │     • [label: start] ←",
        "b2       └─ assistant: first answer",
        "(3/4) [all]",
    ]


def test_check_clean_and_problems_and_repair(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clean = _branched(tmp_path)
    code, out, _ = _run(["check", str(clean)], capsys)
    assert code == 0 and out.endswith("ok (4 entries)\n")
    call = assistant(content=[{"type": "toolCall", "id": "t1", "name": "read", "arguments": {}}])
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(
        jsonl([HEADER, entry("a1", "c3"), entry("c3", "a1"), entry("d4", "zz", message=call)])
        + jsonl([entry("x1", "y2"), entry("y2", "x1"), entry("m1", "d4", kind="model_change")])
        + b"junk\n"
        + jsonl([HEADER, entry("a1", None), entry("e5", "d4")])
        + b'{"type":"mes'
    )
    before = broken.read_bytes()
    repaired = tmp_path / "fixed.jsonl"
    code, out, _ = _run(["check", str(broken), "--repair", str(repaired)], capsys)
    assert code == 1
    for fragment in (
        "not JSON",
        "torn",
        "duplicate session header",
        "duplicate entry id a1",
        "parent not found",
        "cycle",
        "unanswered",
        "line 7: entry m1 (model_change) is ignored: provider: required; modelId: required",
    ):
        assert fragment in out, fragment
    assert broken.read_bytes() == before
    objects = read_objects(repaired)
    assert [o["type"] for o in objects].count("session") == 1
    assert len({o["id"] for o in objects[1:]}) == len(objects) - 1
    code, out, _ = _run(["check", str(repaired)], capsys)
    assert "cycle" not in out and "duplicate" not in out and "not JSON" not in out


def test_check_repair_refuses_in_place(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _branched(tmp_path)
    code, _, err = _run(["check", str(path), "--repair", str(path)], capsys)
    assert code == 1 and "must not be the checked file" in err


def test_ls_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _branched(tmp_path)
    code, out, _ = _run(["ls", "--session-dir", str(tmp_path)], capsys)
    assert code == 0 and "11111111" in out and "text a1" in out and "3 msgs" in out
    code, out, _ = _run(["ls", "--session-dir", str(tmp_path), "--json"], capsys)
    rows = json.loads(out)
    assert rows[0]["id"] == HEADER["id"] and rows[0]["messageCount"] == 3
    assert set(rows[0]) == {
        "path",
        "id",
        "cwd",
        "created",
        "modified",
        "messageCount",
        "firstMessage",
    }


def test_usage_unknown_and_unavailable_commands(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _run(["--help"], capsys)[0] == 0
    assert _run(["bogus"], capsys)[0] == 2
    monkeypatch.setitem(session_cli.SUBCOMMANDS, "later", ("pitui.modes.not_there:run", "x"))
    code, _, err = _run(["later"], capsys)
    assert code == 2 and "not available" in err


def test_ls_process_never_imports_pydantic(tmp_path: Path) -> None:
    _branched(tmp_path)
    script = (
        "import sys; from pitui.cli import main; code = main(['session', 'ls', '--session-dir', "
        f"{str(tmp_path)!r}]); assert 'pydantic' not in sys.modules, 'pydantic imported'; "
        "sys.exit(code)"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    assert "text a1" in result.stdout


def test_context_json_reports_the_request_and_what_stays_out(
    capsys: pytest.CaptureFixture[str],
) -> None:
    views = Path(__file__).parents[1] / "fixtures" / "context" / "views.jsonl"
    code, out, _ = _run(["context", str(views), "--json"], capsys)
    assert code == 0
    got = json.loads(out)
    assert len(got["messages"]) == len(got["llmMessages"]) == 11
    assert [t["name"] for t in got["tools"]] == ["read", "bash", "edit", "write"]
    assert all(t["schemaTokens"] < t["tokens"] for t in got["tools"])
    assert got["systemPrompt"]["text"].startswith("You are an expert coding assistant")
    reasons = {n["preview"]: n["reason"] for n in got["notSent"]}
    assert reasons["$ ls -la"].startswith("!! command")
    assert {c["customType"]: (c["display"], c["sentToModel"]) for c in got["customMessages"]} == {
        "reminder": (False, True),
        "ui-note": (True, False),
    }
    parts = got["systemPrompt"]["tokens"] + sum(t["tokens"] for t in got["tools"])
    assert got["total"]["tokens"] == parts + sum(m["tokens"] for m in got["messages"])
    assert got["total"]["contextWindow"] == 200_000


def test_context_text_lists_system_prompt_tools_and_unsent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    views = Path(__file__).parents[1] / "fixtures" / "context" / "views.jsonl"
    code, out, _ = _run(["context", str(views)], capsys)
    assert code == 0
    assert "(!! command: shown to you, kept from the model)" in out
    assert "\nsystem prompt ~" in out and "\ntool edit " in out
    assert out.splitlines()[-1].startswith("13 messages, ~")
