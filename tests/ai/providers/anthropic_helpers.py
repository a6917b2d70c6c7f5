"""Shared pieces of the anthropic adapter tests: a model, options, fixture readings, SSE."""

from __future__ import annotations

import json
from typing import Any

from pitui.ai.options import RetryPolicy, StreamOptions
from pitui.ai.types import Context, Model, ModelCost, TextContent, Tool, UserMessage
from tests.ai.providers.harness import PROVIDER_FIXTURES, load_json

API_KEY = "sk-ant-api03-SECRET-test-key-0123456789"
# Keys in which the recording clients differ from pi's own choices (PI_SPEC §2.2, pi CLI).
PI_DIFFERS = {"cache_control", "eager_input_streaming", "tool_choice", "is_error"}


def claude(model_id: str = "claude-sonnet-4-20250514", **kw: Any) -> Model:
    fields: dict[str, Any] = {
        "id": model_id,
        "api": "anthropic-messages",
        "provider": "anthropic",
        "reasoning": True,
        "input": ["text", "image"],
        "cost": ModelCost(input=3, output=15, cache_read=0.3, cache_write=3.75),
        "context_window": 200_000,
        "max_tokens": 64_000,
    }
    fields.update(kw)
    return Model(**fields)


def opts(**kw: Any) -> StreamOptions:
    kw.setdefault("api_key", API_KEY)
    kw.setdefault("retry", RetryPolicy(base_delay_ms=1))
    return StreamOptions(**kw)


def user_text(text: str) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)])


def fixture_blocks(name: str) -> dict[int, dict[str, str]]:
    """An independent reading of a fixture: per block index, its type and joined deltas."""
    blocks: dict[int, dict[str, str]] = {}
    for line in (PROVIDER_FIXTURES / name).read_text().splitlines():
        if not line.startswith("data:"):
            continue
        data = json.loads(line[5:])
        if data["type"] == "content_block_start":
            blocks[data["index"]] = {"type": data["content_block"]["type"], "text": ""}
        elif data["type"] == "content_block_delta":
            delta = data["delta"]
            piece = delta.get("text") or delta.get("thinking") or delta.get("partial_json") or ""
            blocks[data["index"]]["text"] += piece
            blocks[data["index"]]["signature"] = blocks[data["index"]].get(
                "signature", ""
            ) + delta.get("signature", "")
    return blocks


def fixture_tools(request_name: str) -> list[Tool]:
    return [
        Tool(name=t["name"], description=t["description"], parameters=t["input_schema"])
        for t in load_json(request_name).get("tools", [])
    ]


def text_context() -> Context:
    return Context(
        system_prompt="You are a helpful assistant", messages=[user_text("Say hi in Portuguese")]
    )


def offset_after(name: str, needle: bytes, occurrence: int) -> int:
    body = (PROVIDER_FIXTURES / name).read_bytes()
    at = -1
    for _ in range(occurrence):
        at = body.index(needle, at + 1)
    return body.index(b"\n\n", at) + 2


def sse(*events: dict[str, Any]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


START = {"type": "message_start", "message": {"usage": {"input_tokens": 5, "output_tokens": 1}}}


def stop_events(reason: str) -> list[dict[str, Any]]:
    return [
        {"type": "message_delta", "delta": {"stop_reason": reason}, "usage": {"output_tokens": 3}},
        {"type": "message_stop"},
    ]


def text_block(index: int, text: str) -> list[dict[str, Any]]:
    return [
        {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "text", "text": ""},
        },
        {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "text_delta", "text": text},
        },
        {"type": "content_block_stop", "index": index},
    ]
