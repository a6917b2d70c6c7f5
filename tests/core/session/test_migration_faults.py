"""Migration keeps what it cannot parse, and a header it cannot read is an error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pitui.ai.types import AssistantMessage, UserMessage
from pitui.core.session.store import SessionStore
from pitui.errors import SessionError
from tests.core.session.helpers import read_objects

V1_HEADER = {"type": "session", "id": "old-1", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/p"}


def _v1_line(text: str) -> bytes:
    message = {"role": "user", "content": text, "timestamp": 1}
    return json.dumps({"type": "message", "timestamp": "t", "message": message}).encode() + b"\n"


async def test_migration_keeps_lines_it_cannot_parse_in_their_place(tmp_path: Path) -> None:
    target = tmp_path / "s.jsonl"
    data = json.dumps(V1_HEADER).encode() + b"\n" + _v1_line("one")
    data += b"this line is garbage\n[1, 2]\n" + _v1_line("two")
    target.write_bytes(data)
    store = await SessionStore.open(target)
    assert store.report.migrated_from == 1
    await store.append_message(UserMessage(content="three", timestamp=3))
    await store.append_message(AssistantMessage(api="a", provider="p", model="m"))
    await store.close()
    lines = target.read_bytes().split(b"\n")
    assert lines[2:4] == [b"this line is garbage", b"[1, 2]"]
    assert json.loads(lines[0])["version"] == 3
    roles = [o["message"]["role"] for o in read_objects_lenient(target) if "message" in o]
    assert roles == ["user", "user", "user", "assistant"]


def read_objects_lenient(path: Path) -> list[dict[str, Any]]:
    out = []
    for line in path.read_text().splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


@pytest.mark.parametrize("version", ["3", None, 2.5, True, [3]])
async def test_a_header_version_that_is_not_a_whole_number_is_an_error(
    version: object, tmp_path: Path
) -> None:
    target = tmp_path / "s.jsonl"
    header = {**V1_HEADER, "version": version}
    data = json.dumps(header).encode() + b"\n" + _v1_line("one")
    target.write_bytes(data)
    with pytest.raises(SessionError) as info:
        await SessionStore.open(target)
    assert f"session header version must be a whole number, not {json.dumps(version)}" in str(
        info.value
    )
    assert "left untouched" in str(info.value)
    assert target.read_bytes() == data


async def test_a_whole_float_version_is_that_version(tmp_path: Path) -> None:
    target = tmp_path / "s.jsonl"
    target.write_bytes(json.dumps({**V1_HEADER, "version": 3.0}).encode() + b"\n")
    store = await SessionStore.open(target, read_only=True)
    assert store.report.migrated_from is None
    assert read_objects(target)[0]["version"] == 3.0
