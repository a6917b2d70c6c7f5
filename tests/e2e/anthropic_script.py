"""Render a scripted model answer as an Anthropic Messages event stream.

The pi-cli fixtures record what the scripted model answered (``script-run*.json``), not
the bytes on the wire. These helpers turn each scripted answer into the SSE body an
Anthropic server sends for it (the event shapes of ``providers/anthropic_*.sse``), so
the end-to-end tests replay it from a real loopback server.
"""

from __future__ import annotations

import json
from typing import Any


def _event(name: str, data: dict[str, Any]) -> str:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n"


def _chunks(text: str, size: int = 7) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def anthropic_sse(step: dict[str, Any], message_id: str, model: str = "fake-claude") -> bytes:
    """One scripted step (``{"text": …}`` or ``{"tool_calls": […]}``) as SSE bytes."""
    usage = {"input_tokens": 1400, "output_tokens": 1, "cache_read_input_tokens": 0}
    parts = [
        _event(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "usage": usage,
                },
            },
        )
    ]
    index = 0
    if "text" in step:
        parts.append(
            _event(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
            )
        )
        for piece in _chunks(step["text"]):
            parts.append(
                _event(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": 0,
                        "delta": {"type": "text_delta", "text": piece},
                    },
                )
            )
        parts.append(_event("content_block_stop", {"type": "content_block_stop", "index": 0}))
        index = 1
    for n, call in enumerate(step.get("tool_calls", [])):
        block = {
            "type": "tool_use",
            "id": f"{message_id}_tool_{n}",
            "name": call["name"],
            "input": {},
        }
        parts.append(
            _event(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": block},
            )
        )
        for piece in _chunks(json.dumps(call["arguments"]), 9):
            parts.append(
                _event(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": piece},
                    },
                )
            )
        parts.append(_event("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    stop = "tool_use" if step.get("tool_calls") else "end_turn"
    parts.append(
        _event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 20},
            },
        )
    )
    parts.append(_event("message_stop", {"type": "message_stop"}))
    return "".join(parts).encode()
