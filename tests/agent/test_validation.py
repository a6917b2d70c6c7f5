"""PI_SPEC §3.9: argument validation behaves and words its errors like pi's AJV setup.

``ajv_oracle.json`` holds what AJV 8 (pi's validator, same options) answered for each case.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

from pitui.agent.tool import AgentTool, AgentToolResult, UpdateCallback
from pitui.agent.validation import ToolArgumentsError, js_json_dumps, validate_tool_arguments
from pitui.ai.abort import AbortSignal
from pitui.ai.types import ToolCall

ORACLE = json.loads((Path(__file__).parent / "ajv_oracle.json").read_text(encoding="utf-8"))


class Nested(BaseModel):
    name: str
    tags: list[str] = []


class Params(BaseModel):
    path: str
    count: int = 0
    ratio: float = 1.0
    flag: bool = False
    mode: Literal["a", "b"] = "a"
    limit: int | None = Field(default=None, ge=1, le=100)
    short: str = Field(default="", max_length=3)
    item: Nested | None = None
    items: list[Nested] = []


class ParamsTool(AgentTool):
    name = "t"
    label = "T"
    description = "A tool with every kind of field."
    parameters = Params

    async def execute(
        self, tool_call_id: str, params: Any, cancel: AbortSignal, on_update: UpdateCallback
    ) -> AgentToolResult:
        raise NotImplementedError


def _call(args: dict[str, Any]) -> ToolCall:
    return ToolCall(id="c1", name="t", arguments=args)


def test_schema_is_the_one_the_oracle_saw() -> None:
    assert ParamsTool().parameters_schema() == ORACLE["schema"]


@pytest.mark.parametrize("case", ORACLE["cases"], ids=lambda c: json.dumps(c["args"])[:60])
def test_matches_ajv(case: dict[str, Any]) -> None:
    call = _call(case["args"])
    before = json.dumps(call.arguments)
    if "error" in case:
        with pytest.raises(ToolArgumentsError) as info:
            validate_tool_arguments(ParamsTool(), call)
        assert str(info.value) == case["error"]
    else:
        params = validate_tool_arguments(ParamsTool(), call)
        dumped = params.model_dump(exclude_unset=True)
        for key, value in case["ok"].items():
            assert dumped[key] == value, key
    assert json.dumps(call.arguments) == before  # validated on a copy


def test_string_number_is_coerced() -> None:
    params = validate_tool_arguments(ParamsTool(), _call({"path": "a", "count": "5"}))
    assert isinstance(params, Params) and params.count == 5


def test_missing_required_text() -> None:
    with pytest.raises(ToolArgumentsError) as info:
        validate_tool_arguments(ParamsTool(), _call({}))
    assert str(info.value) == (
        'Validation failed for tool "t":\n'
        "  - path: must have required property 'path'\n\n"
        "Received arguments:\n{}"
    )


def test_js_json_dumps_prints_like_json_stringify() -> None:
    assert js_json_dumps({"a": 5.0, "b": [1.5, "é"], "c": {}}) == (
        '{\n  "a": 5,\n  "b": [\n    1.5,\n    "é"\n  ],\n  "c": {}\n}'
    )
