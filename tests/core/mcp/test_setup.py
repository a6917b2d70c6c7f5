"""A session gets its MCP runtime from the files, unless ``--no-mcp``."""

from __future__ import annotations

import argparse
from pathlib import Path

from pitui.cli import build_parser
from pitui.core.session_setup import SessionOptions, create_agent_session, options_from_args
from tests.core.mcp.helpers import demo_entry, write_mcp


def parse(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(list(argv))


def test_flags() -> None:
    options = options_from_args(
        parse("--no-mcp", "--tools", "read,mcp__a__*", "--exclude-tools", "bash, mcp__b__x"),
        Path("."),
    )
    assert options.no_mcp and options.tools == ["read", "mcp__a__*"]
    assert options.exclude_tools == ["bash", "mcp__b__x"]


async def test_no_mcp_and_filters(tmp_path: Path, pitui_home: Path) -> None:
    write_mcp(pitui_home / "mcp.json", {"demo": demo_entry()})
    base = {"cwd": tmp_path, "model": "demo/demo", "no_session": True}
    without = await create_agent_session(SessionOptions(**base, no_mcp=True))  # type: ignore[arg-type]
    assert without.mcp is None
    await without.close()
    options = SessionOptions(**base, tools=["read", "mcp__demo__e*"], exclude_tools=["read"])  # type: ignore[arg-type]
    session = await create_agent_session(options)
    try:
        assert session.mcp is not None
        assert [t.name for t in session.agent.state.tools] == []  # read excluded; MCP at prompt
        await session.mcp.before_prompt([])
        assert [t.name for t in session.agent.state.tools] == ["mcp__demo__echo"]
    finally:
        await session.close()
