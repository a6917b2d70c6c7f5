"""``pitui session tree|context|check``: read-only views of one session file.

``check --repair OUT`` is the only writer here, and it writes a new file, never the input.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import orjson
import pydantic_core

from pitui.ai._base import share_loaded_fields
from pitui.core.blocking import run_blocking
from pitui.core.context_report import ContextReport, NotSent, report_for_file
from pitui.core.message_text import message_preview
from pitui.core.sanitize import inert, json_inert_bytes
from pitui.core.session.bulk import bulk_allocation
from pitui.core.session.context import UNSET, LeafArg
from pitui.core.session.listing import resolve_session
from pitui.core.session.store import SessionStore, read_session_bytes
from pitui.core.session.table import encoded_list, json_fragment, plain_json
from pitui.errors import SessionError


def _open(path: Path) -> SessionStore:
    return run_blocking(SessionStore.open(path, read_only=True))


def _add_file_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE|ID", help="a session file, or an id (prefix)")
    parser.add_argument("--session-dir", metavar="DIR", help="look ids up under DIR")


def _file(args: argparse.Namespace) -> Path:
    """The session file the FILE|ID argument names."""
    directory = Path(args.session_dir) if args.session_dir else None
    return resolve_session(args.file, Path.cwd(), directory)


def cmd_tree(argv: list[str]) -> int:
    """``pitui session tree FILE [--filter MODE] [--search TEXT] [--ids]``: pi's /tree rows."""
    # Imported here, as check's below: ``session context`` needs neither.
    from pitui.core.session.tree_view import FILTER_MODES, TreeView, render_rows

    parser = argparse.ArgumentParser(prog="pitui session tree", description="Show the tree.")
    _add_file_argument(parser)
    parser.add_argument("--filter", choices=FILTER_MODES, default="default", help="pi's filters")
    parser.add_argument("--search", default="", help="keep rows holding every word")
    parser.add_argument("--ids", action="store_true", help="start each row with its entry id")
    args = parser.parse_args(argv)
    store = _open(_file(args))
    view = TreeView(store.table, store.labels(), store.get_leaf_id(), filter_mode=args.filter)
    if args.search:
        view.set_query(args.search)
    sys.stdout.write(render_rows(view, ids=args.ids))
    return 0


# --------------------------------------------------------------------------- context


def _to_json(data: Any) -> bytes:
    if isinstance(data, list) and data and isinstance(data[0], msgspec.Struct):
        # Report rows (NotSent: strings and integers, whose bytes orjson would write
        # alike), encoded from the structs without a dict per row.
        return msgspec.json.encode(data)
    if isinstance(data, list) and (joined := encoded_list(data)) is not None:
        return joined  # messages kept encoded, as orjson writes them
    try:
        # The fastest; the same bytes as pydantic_core's. Messages kept encoded are
        # written as they are.
        return orjson.dumps(data, default=json_fragment)
    except TypeError:  # an integer beyond 64 bits, a lone surrogate, a non-str key
        pass
    if isinstance(data, list):  # messages kept encoded (for orjson alone): as objects
        data = list(map(plain_json, data))
    try:
        return pydantic_core.to_json(data)
    except (ValueError, TypeError):
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()


_ROWS_PER_WRITE = 2_000


def _chunks(rows: Iterator[Any]) -> Iterator[list[Any]]:
    while chunk := list(itertools.islice(rows, _ROWS_PER_WRITE)):
        yield chunk


def _json_pieces(data: dict[str, Any]) -> Iterator[bytes]:
    """``data`` as compact JSON, in pieces: a long list (or an iterator) is encoded some
    rows at a time, so a 100k-row report never exists as one 20-50 MB string (nor its
    copy, nor, from an iterator, as 100k row objects at once) in memory."""
    yield b"{"
    for number, (key, value) in enumerate(data.items()):
        yield (b"," if number else b"") + _to_json(key) + b":"
        if not isinstance(value, Iterator) and (
            not isinstance(value, list) or len(value) <= _ROWS_PER_WRITE
        ):
            yield _to_json(value)
            continue
        yield b"["
        for count, chunk in enumerate(_chunks(iter(value))):
            yield (b"," if count else b"") + _to_json(chunk)[1:-1]
        yield b"]"
    yield b"}\n"


def _write_json(data: dict[str, Any]) -> None:
    sys.stdout.flush()
    write = sys.stdout.buffer.write
    for piece in _json_pieces(data):
        write(json_inert_bytes(piece))
    sys.stdout.flush()


def _share(report: ContextReport, tokens: int) -> str:
    share = report.share(tokens)
    return "" if share is None else f" {share:5.1f}%"


def _synthetic_before(report: ContextReport) -> dict[int, list[str]]:
    """Lines for the messages the request adds (``+``), by the transcript index of the
    message they go before (its length: after the last one)."""
    lines: dict[int, list[str]] = {}
    waiting: list[str] = []
    for sent in report.messages:
        if sent.synthetic:
            shown = f"({sent.note}) {message_preview(sent.message)}"
            waiting.append(f"{'+':>5}  {sent.message.role:<17} ~{sent.tokens:>6} tok  {shown}")
        elif waiting and sent.source is not None:
            lines[sent.source], waiting = waiting, []
    if waiting:
        lines[len(report.transcript)] = waiting
    return lines


def _context_text(report: ContextReport) -> str:
    model = report.model
    model_text = f"{model.provider}/{model.model_id}" if model else "(none)"
    lines = [f"leaf {report.leaf_id}  model {model_text}  thinking {report.thinking_level}"]
    sent = {m.source: m for m in report.messages if m.source is not None}
    unsent: dict[str | None, NotSent] = {n.entry_id: n for n in report.not_sent}
    inserted = _synthetic_before(report)
    for number, agent in enumerate(report.transcript, 1):
        lines += inserted.get(number - 1, [])
        message = sent.get(number - 1)
        if message is None:
            entry = unsent.get(report.transcript_entry_ids[number - 1])
            why = f"({entry.reason})" if entry else "(not sent to the model)"
            shown = f"{entry.preview} {why}" if entry and entry.preview else why
            lines.append(f"{number:>5}  {agent.role:<17} ~{0:>6} tok  {shown}")
            continue
        shown = message_preview(message.message)
        lines.append(f"{number:>5}  {agent.role:<17} ~{message.tokens:>6} tok  {shown}")
    lines += inserted.get(len(report.transcript), [])
    lines.append(f"system prompt ~{report.system_tokens} tok{_share(report, report.system_tokens)}")
    if report.skills_block:
        names = ", ".join(report.skill_names)
        lines.append(f"  skills block ~{report.skills_tokens} tok (in the system prompt): {names}")
    for tool in report.tools:
        lines.append(
            f"tool {tool.name:<12} ~{tool.tokens:>6} tok (schema ~{tool.schema_tokens})"
            f"{_share(report, tool.tokens)}"
        )
    in_transcript = set(report.transcript_entry_ids)
    outside = [n for n in report.not_sent if n.entry_id not in in_transcript]
    compacted = report.compacted
    count = len(outside) + (compacted.count if compacted else 0)
    if count:  # settings, labels, file checkpoints…: in the file, never in the context
        lines.append(f"not sent ({count} entries of the path the model never sees):")
        for entry in outside:
            lines.append(f"  {entry.entry_id or '-':<8}  {entry.preview}  {entry.reason}")
    if compacted:  # one line for what the compaction replaced, however long
        lines.append(f"  {compacted.id_range}  {compacted.describe()}  {compacted.reason}")
    total = report.total_tokens
    window = f" of {report.context_window}{_share(report, total)}" if report.context_window else ""
    lines.append(f"{len(report.transcript)} messages, ~{total} tokens (chars/4){window}")
    return "\n".join(lines) + "\n"


_KEPT: list[ContextReport] = []
"""Each report printed, with the file's table: a ``pitui session`` process ends without
freeing them (pitui.cli), which is ~90 ms of work on a 100k-entry file, at its end."""


def cmd_context(argv: list[str]) -> int:
    """``pitui session context FILE [--leaf ID] [--json]``."""
    parser = argparse.ArgumentParser(
        prog="pitui session context", description="Show what the model would receive."
    )
    _add_file_argument(parser)
    parser.add_argument("--leaf", metavar="ID", help="entry id to build the context at")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args(argv)
    leaf: LeafArg = UNSET if args.leaf is None else args.leaf
    # A context of ~25,000 messages (a 100k-entry file with few branches) is ~100,000
    # models: sharing their sets of set fields keeps ~75 MB of the peak (287 MB) away.
    share_loaded_fields()
    # A 100k-entry report is ~a million short-lived objects without cycles: the cyclic
    # collector would walk them over and over (more than the work itself).
    with bulk_allocation():
        report = run_blocking(report_for_file(_file(args), leaf, keep_json=args.json))
        _KEPT.append(report)
        if args.json:
            _write_json(report.to_json(lazy_rows=True))
        else:
            sys.stdout.write(inert(_context_text(report)))
    return 0


# --------------------------------------------------------------------------- check


def _write_copy(target: Path, data: bytes, source: Path) -> None:
    if target.exists() and target.samefile(source):
        raise SessionError("--repair writes a copy: OUT must not be the checked file")
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temp, target)


def cmd_check(argv: list[str]) -> int:
    """``pitui session check FILE|ID [--repair OUT]``.

    Exit 0 when the file is sound (crash residue is reported as warnings), 1 when it is
    corrupt.
    """
    from pitui.core.session.check import check_bytes, repaired_bytes

    parser = argparse.ArgumentParser(prog="pitui session check", description="Validate a file.")
    _add_file_argument(parser)
    parser.add_argument("--repair", metavar="OUT", help="write a repaired copy to OUT")
    args = parser.parse_args(argv)
    source = _file(args)
    data = run_blocking(read_session_bytes(source))
    result = check_bytes(data, name=str(source))
    for warning in result.warnings:
        sys.stdout.write(inert(f"{source}: warning: {warning}") + "\n")
    for problem in result.problems:
        sys.stdout.write(inert(f"{source}: {problem}") + "\n")
    if result.clean:
        entries = len(result.loaded.table)
        residue = f", {len(result.warnings)} warning(s) from a crash" if result.warnings else ""
        sys.stdout.write(f"{source}: ok ({entries} entries{residue})\n")
    if args.repair:
        _write_copy(Path(args.repair), repaired_bytes(result.loaded), source)
        sys.stdout.write(f"repaired copy written to {args.repair}\n")
    return 0 if result.clean else 1
