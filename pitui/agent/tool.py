"""AgentTool: a tool the agent can run, with typed parameters and streamed progress."""

from __future__ import annotations

import copy
import functools
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar, Literal, TypeAlias

from pydantic import BaseModel, Field

from pitui.ai._base import PiModel, empty_list
from pitui.ai.abort import AbortSignal
from pitui.ai.types import Tool, ToolResultContent

ExecutionMode: TypeAlias = Literal["parallel", "sequential"]


class AgentToolResult(PiModel):
    """What a tool returns: ``content`` reaches the model, ``details`` only the UI and logs."""

    content: list[ToolResultContent] = Field(default_factory=empty_list)
    details: Any = None


UpdateCallback: TypeAlias = Callable[[AgentToolResult], None]


class ToolError(Exception):
    """Raised by a tool to fail with a message the model should read verbatim."""


class AgentTool(ABC):
    """Base class of every tool.

    Subclasses set ``name``, ``label``, ``description`` and ``parameters`` (a pydantic
    model whose JSON schema is what the model sees), and implement :meth:`execute`.
    Raising from :meth:`execute` produces an error result with the exception text.
    """

    name: ClassVar[str]
    label: ClassVar[str]
    description: ClassVar[str]
    parameters: ClassVar[type[BaseModel]]
    execution_mode: ClassVar[ExecutionMode] = "parallel"

    @abstractmethod
    async def execute(
        self,
        tool_call_id: str,
        params: Any,
        cancel: AbortSignal,
        on_update: UpdateCallback,
    ) -> AgentToolResult:
        """Run the tool with validated ``params`` (an instance of ``parameters``)."""

    def parameters_schema(self) -> dict[str, Any]:
        """The JSON schema of the parameters, as sent to the model.

        Computed once per parameters model (or stored ahead of time, see
        :func:`store_schema`); treat the returned dict as read-only.
        """
        return _schema_of(self.parameters)

    def to_tool(self) -> Tool:
        """The model-facing definition (with its own copy of the schema)."""
        return Tool(
            name=self.name,
            description=self.description,
            parameters=copy.deepcopy(self.parameters_schema()),
        )


_stored: dict[type[BaseModel], dict[str, Any]] = {}


def store_schema(parameters: type[BaseModel], schema: dict[str, Any]) -> None:
    """Use ``schema`` as ``parameters``' JSON schema, computed ahead of time (the built-in
    tools': pydantic makes one in ~3 M instructions; a test checks it against the model)."""
    _stored[parameters] = schema


def _schema_of(parameters: type[BaseModel]) -> dict[str, Any]:
    stored = _stored.get(parameters)
    return stored if stored is not None else computed_schema(parameters)


@functools.cache
def computed_schema(parameters: type[BaseModel]) -> dict[str, Any]:
    """What pydantic makes of ``parameters``, without titles (pi's schemas have none)."""
    schema = parameters.model_json_schema(by_alias=True)
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        if isinstance(prop, dict):
            prop.pop("title", None)
    return schema
