"""Generated mutants of a real session file, for the crash fuzz test (issue 22 item 4).

The base is a pi session (the first entries of ``pi-oracle/before-compaction.v3.jsonl``,
long texts shortened) with a compaction and a label added, so every entry kind the
readers branch on is present. A mutant changes one thing: one field (anywhere, at any
depth) gets a value of the wrong type, a field is removed, a line becomes deeply nested
JSON, or the header's version changes. Seeded: the same mutants every run.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator, Sequence
from typing import Any

from tests.core.session.helpers import ORACLE

_BASE_LINES = 30
_TEXT_LIMIT = 120

WRONG_VALUES: tuple[Any, ...] = (
    0,
    -1,
    1.5,
    10**30,
    "",
    "x",
    [],
    ["user"],
    {},
    {"a": 1},
    None,
    True,
)
DEEP = b"[" * 100_000
"""One line of 100k nested ``[``: parsing it recursively overflows Python's stack."""


def _shorten(value: Any) -> Any:
    if isinstance(value, str):
        return value[:_TEXT_LIMIT]
    if isinstance(value, list):
        return [_shorten(v) for v in value]
    if isinstance(value, dict):
        return {k: _shorten(v) for k, v in value.items()}
    return value


def base_objects() -> list[dict[str, Any]]:
    """The base session: header, 30 real entries, a compaction, a label, two more turns."""
    lines = (ORACLE / "before-compaction.v3.jsonl").read_bytes().splitlines()
    objects = [_shorten(json.loads(line)) for line in lines[: _BASE_LINES + 1]]
    compaction = _shorten(json.loads(lines[359]))
    last = objects[-1]["id"]
    kept = objects[20]["id"]
    compaction.update(id="c0ffee01", parentId=last, firstKeptEntryId=kept)
    label = {
        "type": "label",
        "id": "1abe1001",
        "parentId": "c0ffee01",
        "timestamp": compaction["timestamp"],
        "targetId": objects[1]["id"],
        "label": "start",
    }
    user = copy.deepcopy(objects[1])
    user.update(id="05e40001", parentId="1abe1001")
    reply = copy.deepcopy(
        objects[-2] if objects[-2]["message"]["role"] == "assistant" else objects[2]
    )
    reply.update(id="0a5e0001", parentId="05e40001")
    return [*objects, compaction, label, user, reply]


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(value, dict):
        for key, child in value.items():
            yield (*prefix, key)
            yield from _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield (*prefix, index)
            yield from _paths(child, (*prefix, index))


def _set(target: Any, path: tuple[Any, ...], value: Any, *, delete: bool = False) -> None:
    for key in path[:-1]:
        target = target[key]
    if delete and isinstance(target, dict):
        del target[path[-1]]
    else:
        target[path[-1]] = value


def _encode(objects: Sequence[dict[str, Any] | bytes]) -> bytes:
    return b"".join(
        (o if isinstance(o, bytes) else json.dumps(o, separators=(",", ":")).encode()) + b"\n"
        for o in objects
    )


_NAMED: tuple[tuple[int, tuple[Any, ...], Any], ...] = (
    # The faults issue 22 found, by line (0: the header), field path and value.
    (0, ("cwd",), 0),
    (0, ("timestamp",), -1),
    (0, ("parentSession",), ["x"]),
    (1, ("timestamp",), -1),
    (2, ("parentId",), 0),
    (1, ("message", "role"), ["user"]),
    (2, ("message", "role"), ["assistant"]),
    (2, ("message", "stopReason"), []),
    (2, ("message", "content"), {"type": "text"}),
    (2, ("message", "usage"), []),
    (3, ("message", "toolCallId"), []),
    (-4, ("firstKeptEntryId",), []),
    (-3, ("targetId",), {}),
)


def _named(base: list[dict[str, Any]]) -> Iterator[tuple[str, bytes]]:
    for line, path, value in _NAMED:
        objects = copy.deepcopy(base)
        _set(objects[line], path, value)
        yield f"line {line}: {'.'.join(path)} = {json.dumps(value)}", _encode(objects)


def mutants(count: int, seed: int = 22) -> Iterator[tuple[str, bytes]]:
    """``count`` (description, file bytes) pairs."""
    rng = random.Random(seed)
    base = base_objects()
    for version in (0, 1, -1, None, "3", 2.5):
        header = dict(base[0])
        if version is None:
            del header["version"]
        else:
            header["version"] = version
        yield f"header version {version!r}", _encode([header, *base[1:]])
    yield "a line of 100k nested [", _encode([*base[:5], DEEP, *base[5:]])
    deep_field = copy.deepcopy(base)
    deep_field[2]["message"]["content"] = "@DEEP@"
    data = _encode(deep_field).replace(b'"@DEEP@"', b"[" * 50_000 + b"]" * 50_000)
    yield "100k nested [] in a message", data
    yield from _named(base)
    made = 8 + len(_NAMED)
    while made < count:
        objects = copy.deepcopy(base)
        line = rng.randrange(len(objects)) if rng.random() < 0.8 else 0
        paths = list(_paths(objects[line]))
        path = rng.choice(paths)
        if rng.random() < 0.15:
            _set(objects[line], path, None, delete=True)
            what = f"line {line + 1}: {'.'.join(map(str, path))} removed"
        else:
            value = rng.choice(WRONG_VALUES)
            _set(objects[line], path, copy.deepcopy(value))
            what = f"line {line + 1}: {'.'.join(map(str, path))} = {json.dumps(value)}"
        made += 1
        yield what, _encode(objects)
