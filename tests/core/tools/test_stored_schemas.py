"""The built-in tools' stored parameter schemas are what pydantic makes of their models.

They are stored (pitui/core/tools/schemas.py) so a turn does not generate them; after a
parameters model changes, ``python -m tests.core.tools.test_stored_schemas`` rewrites it.
"""

from __future__ import annotations

import pprint
from pathlib import Path
from typing import Any

from pitui.agent.tool import AgentTool, computed_schema
from pitui.core.tools import schemas
from pitui.core.tools.bash import BashTool
from pitui.core.tools.edit import EditTool
from pitui.core.tools.find import FindTool
from pitui.core.tools.grep import GrepTool
from pitui.core.tools.ls import LsTool
from pitui.core.tools.read import ReadTool
from pitui.core.tools.write import WriteTool

BUILTIN: list[type[AgentTool]] = [
    ReadTool,
    BashTool,
    EditTool,
    WriteTool,
    GrepTool,
    FindTool,
    LsTool,
]


def computed_schemas() -> dict[str, dict[str, Any]]:
    """What pydantic makes of each built-in tool's parameters model now."""
    return {cls.name: computed_schema(cls.parameters) for cls in BUILTIN}


def test_every_stored_schema_is_the_models_own() -> None:
    assert computed_schemas() == schemas.SCHEMAS, (
        "run: python -m tests.core.tools.test_stored_schemas"
    )


def test_every_builtin_tool_sends_its_stored_schema() -> None:
    for cls in BUILTIN:
        tool = cls.__new__(cls)  # the schema is the class's: no cwd needed
        assert tool.parameters_schema() is schemas.SCHEMAS[cls.name]
        assert tool.to_tool().parameters == schemas.SCHEMAS[cls.name]


def rewrite() -> None:
    """Write the models' schemas into pitui/core/tools/schemas.py (then ruff format it)."""
    path = Path(schemas.__file__)
    source = path.read_text(encoding="utf-8")
    marker = "SCHEMAS: dict[str, dict[str, Any]] = "
    head, rest = source.split(marker, 1)
    tail = rest[rest.index('\n"""Tool name') :]
    table = pprint.pformat(computed_schemas(), width=92, sort_dicts=False)
    path.write_text(f"{head}{marker}{table}{tail}", encoding="utf-8")


if __name__ == "__main__":
    rewrite()
