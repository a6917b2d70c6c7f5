"""Test-only helpers shared by the two OpenAI adapter test modules."""

from __future__ import annotations

import json
from typing import Any

from pitui.ai.options import RetryPolicy, StreamOptions
from pitui.ai.types import AssistantMessage, Model, Tool, Usage
from tests.ai.providers.harness import text_content_canon
from tests.replay_server import ReplayServer

WEATHER = Tool(
    name="weather",
    description="Get weather information for a location",
    parameters={
        "properties": {"location": {"description": "the city", "type": "string"}},
        "required": ["location"],
        "type": "object",
    },
)


def _number_tool(name: str, description: str) -> Tool:
    number = {"type": "integer"}
    return Tool(
        name=name,
        description=description,
        parameters={
            "properties": {
                "a": {"description": "first number", **number},
                "b": {"description": "second number", **number},
            },
            "required": ["a", "b"],
            "type": "object",
        },
    )


ADD = _number_tool("add", "Add two numbers")
MULTIPLY = _number_tool("multiply", "Multiply two numbers")
BOTH_TOOLS_PROMPT = (
    "You are a helpful assistant. Always use both add and multiply at the same time."
)


def model(api: str, provider: str, model_id: str, **extra: Any) -> Model:
    """A model pointed at ``/v1`` on the replay server (the harness prefixes its URL)."""
    return Model(id=model_id, api=api, provider=provider, base_url="/v1", **extra)


def fast_options(**kwargs: Any) -> StreamOptions:
    """Options with a key and millisecond retry delays, so fault tests stay fast."""
    kwargs.setdefault("api_key", "sk-test-key-123456")
    return StreamOptions(retry=RetryPolicy(base_delay_ms=1), **kwargs)


def assistant(api: str, provider: str, model_id: str, *content: Any, **extra: Any) -> Any:
    """A finished assistant message of ``provider/model_id`` for a replayed history."""
    return AssistantMessage(
        api=api, provider=provider, model=model_id, content=list(content), **extra
    )


def usage_tuple(usage: Usage) -> tuple[int, int, int, int, int]:
    """``(input, output, cacheRead, cacheWrite, totalTokens)``."""
    return (usage.input, usage.output, usage.cache_read, usage.cache_write, usage.total_tokens)


def protocol_canon(key: str, value: Any) -> Any:
    """Harness canon plus: JSON-string tool arguments compared as parsed JSON."""
    if key == "arguments" and isinstance(value, str):
        return json.loads(value)
    return text_content_canon(key, value)


def last_body(server: ReplayServer) -> dict[str, Any]:
    """The JSON body of the last request the server received."""
    body: dict[str, Any] = server.requests[-1].json()
    return body


def sse_body(*payloads: dict[str, Any] | str, named: bool = False) -> bytes:
    """An SSE body: one ``data:`` event per payload (a dict as JSON, a str verbatim).

    With ``named``, each dict event also gets an ``event:`` line with its ``type``
    (the Responses framing).
    """
    out: list[str] = []
    for payload in payloads:
        if isinstance(payload, str):
            out.append(f"data: {payload}\n\n")
            continue
        name = f"event: {payload['type']}\n" if named else ""
        out.append(f"{name}data: {json.dumps(payload)}\n\n")
    return "".join(out).encode()
