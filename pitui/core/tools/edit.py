"""The ``edit`` tool: exact-text replacement (single ``oldText``/``newText`` or ``edits[]``)."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field, model_validator

from pitui.agent.tool import AgentTool, AgentToolResult, ToolError, UpdateCallback, store_schema
from pitui.ai.abort import AbortSignal
from pitui.core.tools._common import (
    ClosedToolParams,
    PathCheck,
    ToolDetails,
    ToolParams,
    check_aborted,
    confirm_path,
    escape_text,
    node_error_text,
    run_abortable,
    text_result,
)
from pitui.core.tools.confined_open import EscapeError, open_file, read_all, replace_contents
from pitui.core.tools.path_utils import resolve_to_cwd
from pitui.core.tools.schemas import SCHEMAS

if TYPE_CHECKING:
    from pitui.core.tools.edit_diff import Edit


class EditItem(ClosedToolParams):
    """One targeted replacement of the ``edits`` form."""

    old_text: str = Field(
        description=(
            "Exact text for one targeted replacement. It must be unique in the original file "
            "and must not overlap with any other edits[].oldText in the same call."
        )
    )
    new_text: str = Field(description="Replacement text for this targeted edit.")


class EditParams(ClosedToolParams):
    """Arguments of ``edit``: ``oldText``/``newText``, or ``edits``, or both (merged)."""

    path: str = Field(description="Path to the file to edit (relative or absolute)")
    old_text: str | None = Field(
        default=None, description="Exact text to find and replace (must match exactly)"
    )
    new_text: str | None = Field(default=None, description="New text to replace the old text with")
    edits: list[EditItem] | None = Field(
        default=None,
        description=(
            "One or more targeted replacements. Each edit is matched against the original "
            "file, not incrementally. Do not include overlapping or nested edits. If two "
            "changes touch the same block or nearby lines, merge them into one edit instead."
        ),
    )

    @model_validator(mode="before")
    @classmethod
    def _edits_as_json_string(cls, data: Any) -> Any:
        # Some models send the array JSON-encoded; pi accepts that too.
        if isinstance(data, dict) and isinstance(data.get("edits"), str):
            try:
                parsed = json.loads(data["edits"])
            except ValueError:
                return data
            if isinstance(parsed, list):
                return {**data, "edits": parsed}
        return data

    def all_edits(self) -> list[Edit]:
        """``edits`` followed by the single ``oldText``/``newText`` pair when both are given."""
        from pitui.core.tools.edit_diff import Edit  # the diff machinery: on first edit only

        result = [Edit(e.old_text, e.new_text) for e in self.edits or []]
        if self.old_text is not None and self.new_text is not None:
            result.append(Edit(self.old_text, self.new_text))
        return result


class EditDetails(ToolDetails):
    """UI data of ``edit``: pi's numbered diff, a unified patch, and the first changed line."""

    diff: str
    patch: str
    first_changed_line: int | None = None


class EditTool(AgentTool):
    """Replace exact text in one file, keeping its BOM and line endings."""

    name: ClassVar[str] = "edit"
    label: ClassVar[str] = "edit"
    description: ClassVar[str] = (
        "Edit a file by replacing exact text. The oldText must match exactly (including "
        "whitespace). Use this for precise, surgical edits. To change several separate places "
        "in one file, pass edits: [{oldText, newText}, ...]; every oldText must match a unique, "
        "non-overlapping region of the original file."
    )
    parameters: ClassVar[type[ToolParams]] = EditParams

    def __init__(self, cwd: Path | str, *, check_path: PathCheck | None = None) -> None:
        self.cwd = Path(cwd)
        self.check_path = check_path

    async def execute(
        self, tool_call_id: str, params: Any, cancel: AbortSignal, on_update: UpdateCallback
    ) -> AgentToolResult:
        """Apply the edits in ``params`` to ``params.path``."""
        assert isinstance(params, EditParams)
        edits = params.all_edits()
        if not edits:
            raise ToolError(
                "Edit tool input is invalid. edits must contain at least one replacement."
            )
        work = self._edit(tool_call_id, params.path, edits, cancel)
        return await run_abortable(work, cancel)

    async def _edit(
        self, tool_call_id: str, shown: str, edits: list[Edit], cancel: AbortSignal
    ) -> AgentToolResult:
        from pitui.core.tools.edit_diff import (  # on first edit only (difflib & co.)
            apply_edits,
            detect_line_ending,
            generate_diff_string,
            generate_unified_patch,
            normalize_to_lf,
            restore_line_endings,
            strip_bom,
        )

        path = resolve_to_cwd(shown, self.cwd)
        beneath = await confirm_path(self.check_path, tool_call_id, path)
        # One open for the read and the write: the file changed is the file read, and
        # (confined beneath the project) no link can have swapped it for another.
        fd = await _open_for_edit(path, beneath, shown)
        try:
            try:
                raw = (await asyncio.to_thread(read_all, fd)).decode("utf-8", "replace")
            except OSError as exc:
                raise ToolError(node_error_text(exc, "open", path)) from exc
            check_aborted(cancel)
            bom, content = strip_bom(raw)
            ending = detect_line_ending(content)
            base, new = apply_edits(normalize_to_lf(content), edits, shown)
            final = bom + restore_line_endings(new, ending)
            try:
                await asyncio.to_thread(replace_contents, fd, final.encode("utf-8"))
            except OSError as exc:
                raise ToolError(node_error_text(exc, "open", path)) from exc
        finally:
            os.close(fd)
        diff, first_changed = generate_diff_string(base, new)
        details = EditDetails(
            diff=diff,
            patch=generate_unified_patch(shown, base, new),
            first_changed_line=first_changed,
        )
        if len(edits) == 1:
            text = f"Successfully replaced text in {shown}."
        else:
            text = f"Successfully replaced {len(edits)} block(s) in {shown}."
        return text_result(text, details)


async def _open_for_edit(path: str, beneath: str | None, shown: str) -> int:
    """The file to edit, open for reading and writing (see :mod:`confined_open`)."""
    try:
        return await asyncio.to_thread(open_file, path, beneath, os.O_RDWR)
    except EscapeError as exc:
        raise ToolError(escape_text(path)) from exc
    except (FileNotFoundError, PermissionError) as exc:  # pi: not readable and writable
        raise ToolError(f"File not found: {shown}") from exc
    except OSError as exc:
        raise ToolError(node_error_text(exc, "open", path)) from exc


store_schema(EditParams, SCHEMAS["edit"])
