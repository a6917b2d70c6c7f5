"""create_tools, tool names and the model-facing definitions."""

from __future__ import annotations

from pathlib import Path

import pytest

from pitui.core.tools import ALL_TOOL_NAMES, READ_ONLY_TOOLS, create_tools
from pitui.core.tools.bash import BashTool


def test_defaults_and_selection(tmp_path: Path) -> None:
    assert [t.name for t in create_tools(tmp_path)] == ["read", "bash", "edit", "write"]
    picked = create_tools(tmp_path, ["grep", "find", "ls", "grep"])
    assert [t.name for t in picked] == ["grep", "find", "ls"]
    assert [t.name for t in create_tools(tmp_path, [])] == []
    assert set(ALL_TOOL_NAMES) == {"read", "bash", "edit", "write", "grep", "find", "ls"}
    assert {"read", "grep", "find", "ls"} == READ_ONLY_TOOLS
    with pytest.raises(ValueError, match="Unknown tool: nope"):
        create_tools(tmp_path, ["nope"])


def test_shell_path_reaches_bash(tmp_path: Path) -> None:
    (bash,) = create_tools(tmp_path, ["bash"], shell_path="/bin/sh")
    assert isinstance(bash, BashTool)
    assert bash.shell_path == "/bin/sh"


def test_schemas_use_pi_names_and_descriptions(tmp_path: Path) -> None:
    tools = {t.name: t.to_tool() for t in create_tools(tmp_path, ALL_TOOL_NAMES)}
    read = tools["read"].parameters
    assert read["required"] == ["path"]
    assert read["properties"]["offset"] == {
        "type": "integer",
        "description": "Line number to start reading from (1-indexed)",
    }
    grep = tools["grep"].parameters["properties"]
    assert set(grep) == {"pattern", "path", "glob", "ignoreCase", "literal", "context", "limit"}
    assert tools["bash"].parameters["properties"]["timeout"]["type"] == "number"
    assert "2000 lines or 50KB" in tools["read"].description
    assert "truncated to 100 matches or 50KB" in tools["grep"].description
    for tool in tools.values():
        for prop in tool.parameters["properties"].values():
            assert "anyOf" not in prop and "default" not in prop and "title" not in prop
