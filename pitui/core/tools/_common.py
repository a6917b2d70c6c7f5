"""What every built-in tool shares: parameter base class, abort handling, result helpers."""

from __future__ import annotations

import asyncio
import errno
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias, TypeVar

import msgspec
from pydantic import BaseModel, ConfigDict

from pitui.agent.tool import AgentToolResult, ToolError
from pitui.ai._base import ON_FIRST_USE, PiModel, to_camel
from pitui.ai.abort import AbortSignal
from pitui.ai.types import TextContent

T = TypeVar("T")

ABORTED_MESSAGE = "Operation aborted"


class WriteGrant(msgspec.Struct, frozen=True):
    """The gate's last word before ``write``/``edit`` touch a file."""

    refusal: str | None = None
    """Why the file must not be touched (None: go ahead)."""
    beneath: str | None = None
    """The folder the file must be opened in without any link leading out of it
    (:mod:`confined_open`); None: anywhere (the user allowed this call outside)."""


PathCheck: TypeAlias = Callable[[str, str], Awaitable[WriteGrant]]
"""``(tool_call_id, absolute path) -> grant``: asked by ``write`` and ``edit`` right
before they touch a file (the permission gate's ``confirm_write``)."""


def _simplify_schema(schema: dict[str, Any]) -> None:
    """Make optional fields look like pi's TypeBox ``Type.Optional``: no null branch.

    pydantic renders ``x: str | None = None`` as ``anyOf[string, null]`` with
    ``default: null``; models read the plain form better and pi sends the plain form.
    """
    for prop in schema.get("properties", {}).values():
        if not isinstance(prop, dict):
            continue
        branches = prop.get("anyOf")
        if isinstance(branches, list):
            rest = [b for b in branches if b != {"type": "null"}]
            if len(rest) == 1 and len(rest) < len(branches):
                del prop["anyOf"]
                prop.update(rest[0])
        if "default" in prop and prop["default"] is None:
            del prop["default"]
        prop.pop("title", None)
    schema.pop("title", None)
    # A model's docstring is for readers of the code; pi's schemas carry no description
    # of the object itself (field descriptions are what the model reads).
    schema.pop("description", None)
    for sub in schema.get("$defs", {}).values():
        if isinstance(sub, dict):
            _simplify_schema(sub)


class ToolParams(BaseModel):
    """Base of tool parameter models: camelCase wire names, pi-like JSON schema.

    Each validator is built when its tool is first called (``defer_build``): a run calls a
    few of the enabled tools, and their JSON schemas are stored (:mod:`.schemas`)."""

    model_config = ConfigDict(
        defer_build=True,
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        json_schema_extra=lambda schema, _cls: _simplify_schema(schema),
    )


class ClosedToolParams(ToolParams):
    """Parameters whose schema is closed (``additionalProperties: false``), as pi's are."""

    model_config = ConfigDict(extra="forbid")


class ToolDetails(PiModel):
    """Base of the per-tool ``details`` models (UI-only data, never sent to the model)."""

    model_config = ON_FIRST_USE  # a tool sets them only when it has UI data

    def to_json_dict(self) -> dict[str, Any]:
        """pi's JSON: keys whose value is unset (``undefined`` in pi) are left out."""
        return {k: v for k, v in super().to_json_dict().items() if v is not None}


def text_result(text: str, details: ToolDetails | None = None) -> AgentToolResult:
    """A result with one text block and ``details`` dumped to pi's JSON (or ``None``)."""
    return AgentToolResult(
        content=[TextContent(text=text)],
        details=details.to_json_dict() if details is not None else None,
    )


async def confirm_path(check: PathCheck | None, tool_call_id: str, path: str) -> str | None:
    """Raise the refusal of ``check`` for ``path``, if it has one; else return the folder
    the file must be opened beneath (None: no gate, or allowed anywhere)."""
    if check is None:
        return None
    grant = await check(tool_call_id, path)
    if grant.refusal is not None:
        raise ToolError(grant.refusal)
    return grant.beneath


def escape_text(path: str) -> str:
    """The refusal when a confined open found a way out (a symlink, maybe swapped in)."""
    return (
        f"Permission denied: {path} leads outside the project through a symbolic link "
        "(or a hard link, or one swapped in while it was opened); nothing was changed."
    )


def check_aborted(signal: AbortSignal) -> None:
    """Raise pi's ``Operation aborted`` error if ``signal`` fired."""
    if signal.aborted:
        raise ToolError(ABORTED_MESSAGE)


async def run_abortable(work: Awaitable[T], signal: AbortSignal) -> T:
    """Await ``work``; if ``signal`` fires first, cancel it and raise ``Operation aborted``.

    Work already handed to a thread finishes in the background (as pi's does), but its
    result is dropped.
    """
    if signal.aborted:
        if inspect.iscoroutine(work):
            work.close()  # never started: close it so Python doesn't warn
        raise ToolError(ABORTED_MESSAGE)
    task = asyncio.ensure_future(work)
    waiter = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        raise
    finally:
        waiter.cancel()
    if task.done():
        return task.result()
    task.cancel()
    await asyncio.wait({task})
    if not task.cancelled():
        task.exception()  # mark it retrieved: the abort wins over a late failure
    raise ToolError(ABORTED_MESSAGE)


def node_error_text(exc: OSError, syscall: str, path: str) -> str:
    """An OS error worded like Node's (``ENOENT: no such file or directory, access '<p>'``)."""
    code = errno.errorcode.get(exc.errno or 0, "EIO")
    reason = (exc.strerror or "i/o error").lower()
    if code == "EISDIR":
        return "EISDIR: illegal operation on a directory, read"
    return f"{code}: {reason}, {syscall} '{path}'"
