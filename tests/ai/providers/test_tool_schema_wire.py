"""Every built-in tool's schema reaches every API self-contained (no ``$ref``/``$defs``).

A server that cannot resolve references (llama.cpp's ``llama-server`` answers
``cannot resolve $ref #/$defs/EditItem, $defs not found``) rejected every request that
carried the ``edit`` tool. The schemas are read from the request bodies the adapters
really sent to a loopback server.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pitui.ai.options import StreamOptions
from pitui.ai.schema import self_contained
from pitui.ai.stream import complete
from pitui.ai.types import Context, Model, Tool, UserMessage
from pitui.core.tools import ALL_TOOL_NAMES, create_tools
from tests.replay_server import ReplayServer, Reply

# api → (replayed reply, path prefix of the base URL, where the schema sits in a tool)
APIS = {
    "anthropic-messages": ("anthropic_text.sse", "", ("input_schema",)),
    "openai-completions": ("openai_chat_text.sse", "/v1", ("function", "parameters")),
    "openai-responses": ("openai_responses_text.sse", "/v1", ("parameters",)),
}


def _keys(node: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(path, key) of every object key anywhere in ``node``."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield path, key
            yield from _keys(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _keys(value, f"{path}/{i}")


async def _sent_tools(api: str, tmp_path: Any) -> list[dict[str, Any]]:
    fixture, prefix, _ = APIS[api]
    server = ReplayServer().add(Reply.sse_file(fixture)).start()
    try:
        model = Model(id="tiny", api=api, provider="loop", base_url=server.url + prefix)
        tools = [t.to_tool() for t in create_tools(tmp_path, ALL_TOOL_NAMES)]
        context = Context(system_prompt="sys", messages=[UserMessage(content="hi")], tools=tools)
        await complete(model, context, StreamOptions(api_key="k"))
        body: dict[str, Any] = server.requests[0].json()
    finally:
        server.stop()
    sent: list[dict[str, Any]] = body["tools"]
    return sent


def _schema(api: str, tool: dict[str, Any]) -> dict[str, Any]:
    node: Any = tool
    for key in APIS[api][2]:
        node = node[key]
    assert isinstance(node, dict)
    return node


@pytest.mark.parametrize("api", list(APIS))
async def test_no_tool_schema_on_the_wire_has_a_reference(api: str, tmp_path: Any) -> None:
    sent = await _sent_tools(api, tmp_path)
    assert len(sent) == len(ALL_TOOL_NAMES)
    for tool in sent:
        refs = [(p, k) for p, k in _keys(tool) if k in ("$ref", "$defs", "definitions")]
        assert refs == [], f"{api}: {tool.get('name') or tool['function']['name']}: {refs}"


@pytest.mark.parametrize("api", list(APIS))
async def test_edit_items_are_written_out_as_pi_sends_them(api: str, tmp_path: Any) -> None:
    sent = await _sent_tools(api, tmp_path)
    edit = next(t for t in sent if (t.get("name") or t["function"]["name"]) == "edit")
    items = _schema(api, edit)["properties"]["edits"]["items"]
    # pi 0.73.1's wire shape (tests/fixtures/pi-cli): a closed object, no title/description.
    assert items == {
        "additionalProperties": False,
        "properties": {
            "oldText": {
                "description": (
                    "Exact text for one targeted replacement. It must be unique in the original "
                    "file and must not overlap with any other edits[].oldText in the same call."
                ),
                "type": "string",
            },
            "newText": {
                "description": "Replacement text for this targeted edit.",
                "type": "string",
            },
        },
        "required": ["oldText", "newText"],
        "type": "object",
    }


def test_self_contained_inlines_nested_and_recursive_references() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/A"},
            "list": {"type": "array", "items": {"$ref": "#/definitions/B"}},
            "node": {"$ref": "#/$defs/Node"},
            "wrapped": {"allOf": [{"$ref": "#/$defs/A"}], "description": "kept"},
        },
        "$defs": {
            "A": {"type": "object", "properties": {"b": {"$ref": "#/definitions/B"}}},
            "Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}},
        },
        "definitions": {"B": {"type": "string"}},
    }
    out = self_contained(schema)
    assert [k for _, k in _keys(out) if k in ("$ref", "$defs", "definitions")] == []
    assert out["properties"]["a"] == {"type": "object", "properties": {"b": {"type": "string"}}}
    assert out["properties"]["list"]["items"] == {"type": "string"}
    assert out["properties"]["wrapped"] == {
        "type": "object",
        "properties": {"b": {"type": "string"}},
        "description": "kept",
    }
    # A recursive reference cannot be written out: below the first level it accepts anything.
    assert out["properties"]["node"] == {"type": "object", "properties": {"next": {}}}
    assert "$defs" in schema  # the input is not changed


def test_self_contained_returns_a_plain_schema_unchanged() -> None:
    schema = {"type": "object", "properties": {"p": {"type": "string"}}}
    assert self_contained(schema) is schema


def test_unresolvable_reference_becomes_an_open_schema() -> None:
    schema = {"type": "object", "properties": {"x": {"$ref": "https://example.com/s.json"}}}
    assert self_contained(schema)["properties"]["x"] == {}


def test_a_tool_given_with_references_is_sent_self_contained() -> None:
    from pitui.ai.providers.anthropic_request import convert_tools

    tool = Tool(
        name="t",
        description="d",
        parameters={
            "type": "object",
            "properties": {"x": {"$ref": "#/$defs/X"}},
            "required": ["x"],
            "$defs": {"X": {"type": "integer"}},
        },
    )
    [entry] = convert_tools([tool], oauth=False, eager=False, control=None)
    assert entry["input_schema"]["properties"] == {"x": {"type": "integer"}}
