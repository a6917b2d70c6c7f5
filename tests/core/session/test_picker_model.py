"""The resume picker's core: pi's search syntax, threaded/recent/relevance rows, named
filter, progressive listing (unreadable files as rows), message text, rename, trash."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest

from pitui import paths
from pitui.core.session import listing_ops
from pitui.core.session.listing import SessionInfo, read_session_info
from pitui.core.session.listing_ops import (
    MessageTexts,
    list_progressively,
    picker_scopes,
    read_messages_text,
    rename_session,
    trash_session,
)
from pitui.core.session.listing_search import match_score, parse_search_query, search_text
from pitui.core.session.listing_view import (
    format_age,
    next_sort,
    picker_rows,
    row_details,
    row_title,
)
from pitui.core.session.writer import SessionWriter, held_elsewhere
from pitui.errors import SessionError
from tests.core.session.helpers import HEADER, ORACLE, assistant, entry, jsonl


def _info(path: str, modified: int, **kw: Any) -> SessionInfo:
    fields: dict[str, Any] = {
        "id": f"id-{path}",
        "cwd": "/p",
        "created": "",
        "message_count": 2,
        "first_message": f"first {path}",
    }
    fields.update(kw)
    return SessionInfo(path=path, modified_ms=modified, **fields)


def _write(directory: Path, name: str, *objects: dict[str, Any], **header: Any) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_bytes(jsonl([{**HEADER, **header}, *objects]))
    return path


def _chat(text: str, reply: str = "ok") -> list[dict[str, Any]]:
    user = {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 5}
    return [
        entry("a1", None, message=user),
        entry("b2", "a1", message=assistant(reply, timestamp=6)),
    ]


# --------------------------------------------------------------------------- search


def test_query_syntax_as_pi_parses_it() -> None:
    query = parse_search_query('fix "node cve" bar')
    assert [(t.kind, t.value) for t in query.tokens] == [
        ("fuzzy", "fix"),
        ("phrase", "node cve"),
        ("fuzzy", "bar"),
    ]
    unbalanced = parse_search_query('fix "node cve')
    assert [t.value for t in unbalanced.tokens] == ["fix", '"node', "cve"]
    assert parse_search_query("re:Fo+").regex is not None
    assert parse_search_query("re:").error == "Empty regex"
    assert parse_search_query("re:(").error is not None
    assert parse_search_query("   ").empty


def test_every_token_must_match() -> None:
    text = "abc-123 refactor   the Parser /home/u/proj"
    assert match_score(parse_search_query("parser refactor"), text) is not None
    assert match_score(parse_search_query("parser zebra"), text) is None
    assert match_score(parse_search_query('"refactor the parser"'), text) is not None
    assert match_score(parse_search_query('"the refactor"'), text) is None
    assert match_score(parse_search_query("re:PARS(er)"), text) == text.index("Parser") * 0.1
    assert match_score(parse_search_query("re:("), text) is None
    assert match_score(parse_search_query(""), text) == 0


def test_search_text_has_id_name_messages_and_cwd() -> None:
    info = _info("a", 1, name="Named")
    assert search_text(info, "hello there") == "id-a Named hello there /p"


# --------------------------------------------------------------------------- rows


def _sessions() -> list[SessionInfo]:
    return [
        _info("/s/root-old", 100),
        _info("/s/root-new", 300, name="Release"),
        _info("/s/fork-a", 150, parent_session_path="/s/root-old"),
        _info("/s/fork-b", 250, parent_session_path="/s/root-old"),
        _info("/s/fork-of-fork", 260, parent_session_path="/s/fork-a"),
        _info("/s/orphan", 200, parent_session_path="/s/gone"),
    ]


def test_threaded_nests_forks_under_their_parent_newest_first() -> None:
    rows = picker_rows(_sessions(), parse_search_query(""))
    assert [(Path(r.info.path).name, r.prefix) for r in rows] == [
        ("root-new", ""),
        ("orphan", ""),
        ("root-old", ""),
        ("fork-b", "   ├─ "),
        ("fork-a", "   └─ "),
        ("fork-of-fork", "      └─ "),
    ]
    assert [r.depth for r in rows] == [0, 0, 0, 1, 1, 2]


def test_recent_and_named_only_and_the_sort_cycle() -> None:
    recent = picker_rows(_sessions(), parse_search_query(""), "recent")
    assert [Path(r.info.path).name for r in recent][:3] == ["root-new", "fork-of-fork", "fork-b"]
    assert all(r.prefix == "" for r in recent)
    named = picker_rows(_sessions(), parse_search_query(""), "threaded", "named")
    assert [r.info.name for r in named] == ["Release"]
    assert [next_sort(m) for m in ("threaded", "recent", "relevance")] == [
        "recent",
        "relevance",
        "threaded",
    ]


def test_a_query_filters_and_orders_by_relevance_or_recency() -> None:
    texts = {"/s/fork-a": "we talked about parsers", "/s/root-new": "the parser is done"}
    sessions = _sessions()
    query = parse_search_query("parser")
    relevant = picker_rows(sessions, query, "threaded", messages_text=lambda i: texts.get(i.path))
    assert [Path(r.info.path).name for r in relevant] == ["root-new", "fork-a"]
    recent = picker_rows(sessions, query, "recent", messages_text=lambda i: texts.get(i.path))
    assert [Path(r.info.path).name for r in recent] == ["root-new", "fork-a"]
    # Without message text yet, the first message stands in.
    assert picker_rows(sessions, parse_search_query("first fork-b"))[0].info.path == "/s/fork-b"


def test_row_texts() -> None:
    now = 10 * 86_400_000
    info = _info("/s/x", now - 3 * 3_600_000)
    assert row_details(info, now) == "2 3h"
    assert row_title(_info("/s/y", 1, first_message="line one\nline\ttwo\x07")) == (
        "line one line two"
    )
    assert row_title(_info("/s/y", 1, name="Named")) == "Named"
    assert [format_age(now - d, now) for d in (0, 59_000, 61_000, 86_400_000 * 8)] == [
        "now",
        "now",
        "1m",
        "1w",
    ]
    assert format_age(0, 400 * 86_400_000) == "1y"


# --------------------------------------------------------------------------- listing


async def _collect(directories: list[Path], **kw: Any) -> list[listing_ops.ListingStep]:
    return [step async for step in list_progressively(directories, **kw)]


async def test_a_cold_listing_fills_in_by_steps_and_a_warm_one_is_one_step(
    tmp_path: Path,
) -> None:
    for n in range(7):
        _write(tmp_path, f"{n}.jsonl", *_chat(f"question {n}"), id=f"id-{n}")
    (tmp_path / "junk.jsonl").write_text("not json\n")
    cold = await _collect([tmp_path], batch=3)
    assert [(s.done, s.total) for s in cold] == [(3, 8), (6, 8), (8, 8)]
    rows = [r for s in cold for r in s.rows]
    assert sorted(r.id for r in rows if r.error is None) == [f"id-{n}" for n in range(7)]
    (junk,) = [r for r in rows if r.error is not None]
    assert junk.error == "not a session file (no session header)" and "junk" in row_title(junk)
    warm = await _collect([tmp_path], batch=3)
    assert len(warm) == 1 and (warm[0].done, warm[0].total) == (8, 8)
    assert sorted(r.path for r in warm[0].rows) == sorted(r.path for r in rows)


async def test_an_unreadable_file_is_a_row_never_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = _write(tmp_path, "good.jsonl", *_chat("hello"))
    bad = _write(tmp_path, "bad.jsonl", *_chat("secret"))
    real = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self == bad:
            raise PermissionError(13, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)  # root reads every file otherwise
    rows = {Path(r.path).name: r for s in await _collect([tmp_path]) for r in s.rows}
    assert rows["bad.jsonl"].error == "cannot be read: Permission denied"
    assert rows["good.jsonl"].error is None
    assert row_details(rows["bad.jsonl"], 0) == "unreadable"
    assert read_messages_text(str(bad)) == ""
    assert good.exists()


async def test_listing_pi_sessions_leaves_them_byte_identical(tmp_path: Path) -> None:
    pi_root = tmp_path / "pi" / "sessions"
    project = pi_root / "--tmp-project--"
    project.mkdir(parents=True)
    for name in ("large-session.v3.jsonl", "before-compaction.v3.jsonl"):
        shutil.copy(ORACLE / name, project / name)
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in project.iterdir()}
    scopes = picker_scopes("/tmp/project", pi_root)
    assert scopes.current == [project] and project in scopes.everywhere
    rows = [r for s in await _collect(scopes.current) for r in s.rows]
    texts = MessageTexts()
    async for _ in texts.load(rows):
        pass
    assert all(texts.get(r) for r in rows)
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in project.iterdir()} == before
    assert not list(pi_root.glob("**/*.tmp"))


def test_messages_text_is_user_and_assistant_text() -> None:
    path = ORACLE / "large-session.v3.jsonl"
    text = read_messages_text(str(path))
    info = read_session_info(path)
    assert info is not None and text.startswith(info.first_message)
    assert "toolResult" not in text[:200]


def test_scopes_without_a_session_dir(pitui_home: Path) -> None:
    scopes = picker_scopes("/home/u/proj", None)
    assert scopes.current == [paths.sessions_dir() / "--home-u-proj--"]
    assert scopes.everywhere[0] == paths.sessions_dir()


# --------------------------------------------------------------------------- rename, trash


async def test_rename_appends_session_info_to_that_file(tmp_path: Path) -> None:
    path = _write(tmp_path, "s.jsonl", *_chat("hello"))
    await rename_session(path, "  My session ")
    info = read_session_info(path)
    assert info is not None and info.name == "My session"
    assert path.read_bytes().splitlines()[-1].startswith(b'{"type":"session_info"')
    with pytest.raises(SessionError, match="cannot be empty"):
        await rename_session(path, "  ")


async def test_rename_and_delete_refuse_a_file_another_pitui_holds(tmp_path: Path) -> None:
    path = _write(tmp_path, "s.jsonl", *_chat("hello"))
    before = path.read_bytes()
    writer = await SessionWriter.open(path)
    try:
        assert held_elsewhere(path)
        with pytest.raises(SessionError, match="another pitui"):
            await rename_session(path, "x")
        with pytest.raises(SessionError, match="another pitui"):
            await trash_session(path)
    finally:
        await writer.close()
    assert not held_elsewhere(path) and path.read_bytes() == before


async def test_delete_moves_the_file_into_the_trash(tmp_path: Path, pitui_home: Path) -> None:
    project = tmp_path / "--tmp-project--"
    path = _write(project, "s.jsonl", *_chat("hello"))
    content = path.read_bytes()
    moved = await trash_session(path)
    assert not path.exists()
    assert moved == paths.trash_dir() / "--tmp-project--" / "s.jsonl"
    assert moved.read_bytes() == content
    again = _write(project, "s.jsonl", *_chat("hello again"))
    assert (await trash_session(again)).name == "s.1.jsonl"
    with pytest.raises(SessionError, match="no longer exists"):
        await trash_session(path)


async def test_message_texts_are_read_once_per_file_state(tmp_path: Path) -> None:
    path = _write(tmp_path, "s.jsonl", *_chat("find me", "sure"))
    info = read_session_info(path)
    assert info is not None
    texts = MessageTexts()
    assert texts.missing([info]) == [info]
    done = [n async for n in texts.load([info])]
    assert done == [1] and texts.get(info) == "find me sure" and not texts.missing([info])
    newer = _info(info.path, info.modified_ms + 1)
    assert texts.get(newer) is None
    await asyncio.sleep(0)


def test_a_file_written_with_other_spacing_is_counted(tmp_path: Path) -> None:
    import json

    path = tmp_path / "spaced.jsonl"
    lines = [HEADER, *_chat("hello there")]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))  # ": " and ", "
    info = read_session_info(path)
    assert info is not None and info.message_count == 2 and info.first_message == "hello there"
