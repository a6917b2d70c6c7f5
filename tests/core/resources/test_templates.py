"""Prompt templates: where they are found, their frontmatter, and their expansion."""

from __future__ import annotations

from pathlib import Path

from pitui.core.resources.loader import load_resources_now
from pitui.core.resources.templates import expand_prompt_template, parse_template


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.md"
    path.write_text(text)
    return path


def test_every_prompt_folder_is_searched(repo: Path, user_home: Path, pitui_home: Path) -> None:
    _write(repo / ".pitui" / "prompts", "a", "A")
    _write(repo / ".pi" / "prompts", "b", "B")
    _write(pitui_home / "prompts", "c", "C")
    _write(user_home / ".pi" / "agent" / "prompts", "d", "D")
    _write(repo / ".pi" / "prompts" / "nested", "deep", "not loaded: direct children only")
    loaded = load_resources_now(repo, trusted=True)
    assert [t.name for t in loaded.templates] == ["a", "b", "c", "d"]
    off = load_resources_now(repo, trusted=True, pi_folders=False)
    assert [t.name for t in off.templates] == ["a", "c"]


def test_frontmatter_and_the_description_fallback(tmp_path: Path) -> None:
    text = '---\ndescription: Review staged changes\nargument-hint: "[focus]"\n---\nReview $1.\n'
    template, problems = parse_template(tmp_path / "review.md", text, "user")
    assert template is not None and problems == []
    assert (template.name, template.description, template.argument_hint) == (
        "review",
        "Review staged changes",
        "[focus]",
    )
    assert template.content == "Review $1."
    long_line = "x" * 70
    template, _ = parse_template(tmp_path / "t.md", f"\n\n{long_line}\nmore", "user")
    assert template is not None and template.description == "x" * 60 + "..."
    assert template.argument_hint is None


def test_a_broken_template_warns_and_the_rest_load(repo: Path) -> None:
    _write(repo / ".pi" / "prompts", "bad", "---\ndescription: [x\n---\nbody")
    _write(repo / ".pi" / "prompts", "good", "body")
    loaded = load_resources_now(repo, trusted=True)
    assert [t.name for t in loaded.templates] == ["good"]
    assert any("bad.md" in w and "invalid frontmatter" in w for w in loaded.warnings())


def test_built_in_commands_win_with_a_warning(repo: Path, pitui_home: Path) -> None:
    _write(repo / ".pi" / "prompts", "model", "shadowed")
    _write(pitui_home / "prompts", "review", "user one")
    _write(repo / ".pi" / "prompts", "review", "project one")
    loaded = load_resources_now(repo, trusted=True, reserved_names=["model"])
    assert [t.content for t in loaded.templates] == ["project one"]
    warnings = loaded.warnings()
    assert any('"/model" is not used: a built-in command' in w for w in warnings)
    assert any('"review" collision' in w for w in warnings)


def test_expansion(tmp_path: Path) -> None:
    template, _ = parse_template(
        tmp_path / "review.md", "Review ${1:-everything} carefully", "user"
    )
    assert template is not None
    assert expand_prompt_template("/review main.py", [template]) == "Review main.py carefully"
    assert expand_prompt_template("/review", [template]) == "Review everything carefully"
    assert expand_prompt_template('/review\n"a b"', [template]) == "Review a b carefully"
    assert expand_prompt_template("/other x", [template]) == "/other x"
    assert expand_prompt_template("review x", [template]) == "review x"
