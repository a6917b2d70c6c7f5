"""System prompt assembly as pi does it (PI_SPEC §10)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from pitui import paths
from pitui.core.system_prompt import build_system_prompt, load_context_files, load_system_prompt

TODAY = dt.date(2026, 1, 2)


def test_default_tools_and_guidelines() -> None:
    prompt = build_system_prompt(cwd=Path("/p"), today=TODAY)
    assert prompt.startswith("You are an expert coding assistant operating inside pitui")
    assert "- read: Read file contents\n- bash: Execute bash commands" in prompt
    assert "- Use bash for file operations like ls, rg, find" in prompt
    assert "- Use read to examine files before editing." in prompt
    assert prompt.endswith("\nCurrent date: 2026-01-02\nCurrent working directory: /p")


def test_no_tools_says_none_and_keeps_always_guidelines() -> None:
    prompt = build_system_prompt(cwd=Path("/p"), tools=[], today=TODAY)
    assert "Available tools:\n(none)" in prompt
    assert "- Be concise in your responses\n- Show file paths clearly" in prompt
    assert "Use bash" not in prompt


def test_exploration_tools_change_the_bash_guideline_and_dedupe() -> None:
    prompt = build_system_prompt(
        cwd=Path("/p"),
        tools=["bash", "grep"],
        guidelines=["Be concise in your responses", "  Extra rule  "],
        today=TODAY,
    )
    assert "Prefer grep/find/ls tools over bash" in prompt
    assert prompt.count("Be concise in your responses") == 1
    assert "- Extra rule\n" in prompt


def test_custom_prompt_replaces_only_the_head() -> None:
    prompt = build_system_prompt(
        cwd=Path("/p"), custom_prompt="CUSTOM", append_prompt="APPENDED", today=TODAY
    )
    assert prompt.startswith("CUSTOM\n\nAPPENDED")
    assert "Available tools" not in prompt
    assert prompt.endswith("Current working directory: /p")


async def test_context_files_from_root_down(tmp_path: Path) -> None:
    project = tmp_path / "a" / "b"
    project.mkdir(parents=True)
    (tmp_path / "a" / "CLAUDE.md").write_text("outer")
    (project / "AGENTS.md").write_text("inner")
    (project / "CLAUDE.md").write_text("ignored: AGENTS.md wins in the same folder")
    paths.home().mkdir(parents=True)
    (paths.home() / "AGENTS.md").write_text("global")
    files = await load_context_files(project)
    assert [f.content for f in files] == ["global", "outer", "inner"]
    prompt = await load_system_prompt(project, None)
    assert "# Project Context\n\nProject-specific instructions and guidelines:\n\n" in prompt
    assert f"## {project / 'AGENTS.md'}\n\ninner\n\n" in prompt


async def test_system_prompt_flag_may_name_a_file(tmp_path: Path) -> None:
    custom = tmp_path / "sys.md"
    custom.write_text("FROM FILE")
    prompt = await load_system_prompt(tmp_path, None, system_prompt=str(custom))
    assert prompt.startswith("FROM FILE")
