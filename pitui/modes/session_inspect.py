"""``pitui session tree|context|check``: read-only views of one session file.

``check --repair OUT`` is the only writer here, and it writes a new file, never the input.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import pydantic_core

from pitui.agent.messages import AgentMessage
from pitui.ai.types import Message
from pitui.core.messages import convert_to_llm
from pitui.core.sanitize import inert, json_inert_bytes
from pitui.core.session.check import check_bytes, repaired_bytes
from pitui.core.session.context import UNSET, LeafArg, SessionContext
from pitui.core.session.store import SessionStore
from pitui.core.session.tree_view import FILTER_MODES, TreeView, render_rows
from pitui.errors import SessionError


def _open(path: str) -> SessionStore:
    return asyncio.run(SessionStore.open(path, read_only=True))


def _require_file(path: str) -> None:
    if not os.path.isfile(path):
        raise SessionError(f"{path}: no such session file")


def cmd_tree(argv: list[str]) -> int:
    """``pitui session tree FILE [--filter MODE] [--search TEXT] [--ids]``: pi's /tree rows."""
    parser = argparse.ArgumentParser(prog="pitui session tree", description="Show the tree.")
    parser.add_argument("file")
    parser.add_argument("--filter", choices=FILTER_MODES, default="default", help="pi's filters")
    parser.add_argument("--search", default="", help="keep rows holding every word")
    parser.add_argument("--ids", action="store_true", help="start each row with its entry id")
    args = parser.parse_args(argv)
    _require_file(args.file)
    store = _open(args.file)
    view = TreeView(store.table, store.labels(), store.get_leaf_id(), filter_mode=args.filter)
    if args.search:
        view.set_query(args.search)
    sys.stdout.write(render_rows(view, ids=args.ids))
    return 0


# --------------------------------------------------------------------------- context


def _dump(
    messages: list[AgentMessage] | list[Message], source: dict[int, dict[str, Any]]
) -> list[Any]:
    # A loaded message dumps to exactly the JSON it was read from (the round-trip tests
    # prove it), so that JSON is used as is; built ones (summaries …) are dumped.
    return [source.get(id(m)) or m.to_json_dict() for m in messages]


def _context_json(store: SessionStore, context: SessionContext) -> dict[str, Any]:
    source = context.message_json
    return {
        "leafId": context.leaf_id,
        "entryCount": store.entry_count(),
        "model": context.model.to_json_dict() if context.model else None,
        "thinkingLevel": context.thinking_level,
        "agentMessages": _dump(context.messages, source),
        "llmMessages": _dump(convert_to_llm(context.messages), source),
    }


def _to_json(data: dict[str, Any]) -> bytes:
    try:
        return pydantic_core.to_json(data) + b"\n"  # Rust: several times json.dumps' speed
    except (ValueError, TypeError):  # e.g. an integer beyond 64 bits
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def _estimate_tokens(message: Message) -> int:
    chars = 0
    content = message.content
    if isinstance(content, str):
        chars = len(content)
    else:
        for block in content:
            data = block.to_json_dict()
            chars += sum(len(v) for k, v in data.items() if isinstance(v, str) and k != "type")
            if block.type == "toolCall":
                chars += len(json.dumps(data.get("arguments", {})))
    return math.ceil(chars / 4)


def _preview(message: Message) -> str:
    content = message.content
    if isinstance(content, str):
        text = content
    else:
        parts = []
        for block in content:
            data = block.to_json_dict()
            if block.type == "toolCall":
                parts.append(f"→ {data.get('name')}({json.dumps(data.get('arguments'))})")
            else:
                parts.append(str(data.get("text") or data.get("thinking") or f"[{block.type}]"))
        text = " ".join(parts)
    flat = " ".join(text.split())
    return flat if len(flat) <= 80 else flat[:79] + "…"


def _context_text(store: SessionStore, context: SessionContext) -> str:
    model = context.model
    model_text = f"{model.provider}/{model.model_id}" if model else "(none)"
    lines = [
        f"leaf {context.leaf_id}  model {model_text}  thinking {context.thinking_level}",
    ]
    total = 0
    for number, (agent, llm) in enumerate(_paired(context.messages), 1):
        tokens = _estimate_tokens(llm) if llm is not None else 0
        total += tokens
        shown = _preview(llm) if llm is not None else "(not sent to the model)"
        lines.append(f"{number:>5}  {agent.role:<17} ~{tokens:>6} tok  {shown}")
    lines.append(f"{len(context.messages)} messages, ~{total} tokens (chars/4)")
    return "\n".join(lines) + "\n"


def _paired(messages: list[AgentMessage]) -> list[tuple[AgentMessage, Message | None]]:
    return [(m, next(iter(convert_to_llm([m])), None)) for m in messages]


def cmd_context(argv: list[str]) -> int:
    """``pitui session context FILE [--leaf ID] [--json]``."""
    parser = argparse.ArgumentParser(
        prog="pitui session context", description="Show what the model would receive."
    )
    parser.add_argument("file")
    parser.add_argument("--leaf", metavar="ID", help="entry id to build the context at")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args(argv)
    _require_file(args.file)
    store = _open(args.file)
    leaf: LeafArg = UNSET
    if args.leaf is not None:
        if store.get_entry(args.leaf) is None:
            raise SessionError(f"Entry {args.leaf} not found")
        leaf = args.leaf
    context = store.build_context(leaf, keep_json=args.json)
    if args.json:
        sys.stdout.flush()
        sys.stdout.buffer.write(json_inert_bytes(_to_json(_context_json(store, context))))
        sys.stdout.flush()
    else:
        sys.stdout.write(inert(_context_text(store, context)))
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
    """``pitui session check FILE [--repair OUT]``: exit 0 when clean, 1 with a report."""
    parser = argparse.ArgumentParser(prog="pitui session check", description="Validate a file.")
    parser.add_argument("file")
    parser.add_argument("--repair", metavar="OUT", help="write a repaired copy to OUT")
    args = parser.parse_args(argv)
    _require_file(args.file)
    source = Path(args.file)
    result = check_bytes(source.read_bytes(), name=str(source))
    for problem in result.problems:
        sys.stdout.write(inert(f"{source}: {problem}") + "\n")
    if result.clean:
        sys.stdout.write(f"{source}: ok ({len(result.loaded.table)} entries)\n")
    if args.repair:
        _write_copy(Path(args.repair), repaired_bytes(result.loaded), source)
        sys.stdout.write(f"repaired copy written to {args.repair}\n")
    return 0 if result.clean else 1
