"""Skills: where they are found, how they are validated, what the model is told."""

from __future__ import annotations

from pathlib import Path

from pitui.core.resources.loader import load_resources, load_resources_now
from pitui.core.resources.skill_prompt import expand_skill_command, format_skills_for_prompt
from pitui.core.resources.skills import Skill, name_problems, parse_skill
from pitui.core.system_prompt import build_system_prompt
from tests.core.resources.conftest import write_skill


def _names(cwd: Path, *, pi_folders: bool = True) -> list[str]:
    return [s.name for s in load_resources_now(cwd, trusted=True, pi_folders=pi_folders).skills]


def test_every_location_is_searched(repo: Path, user_home: Path, pitui_home: Path) -> None:
    write_skill(repo / ".pitui" / "skills" / "a", "a", "A.")
    write_skill(repo / ".pi" / "skills" / "b", "b", "B.")
    write_skill(repo / ".agents" / "skills" / "c", "c", "C.")
    write_skill(pitui_home / "skills" / "d", "d", "D.")
    write_skill(user_home / ".pi" / "agent" / "skills" / "e", "e", "E.")
    write_skill(user_home / ".agents" / "skills" / "f", "f", "F.")
    assert _names(repo) == ["a", "b", "c", "d", "e", "f"]
    assert _names(repo, pi_folders=False) == ["a", "c", "d", "f"]


def test_agents_skills_are_found_up_to_the_repository_root(repo: Path, user_home: Path) -> None:
    deep = repo / "pkg" / "sub"
    deep.mkdir(parents=True)
    write_skill(deep / ".agents" / "skills" / "inner", "inner", "Inner.")
    write_skill(repo / ".agents" / "skills" / "top", "top", "Top.")
    write_skill(repo.parent / ".agents" / "skills" / "outside", "outside", "Outside.")
    assert _names(deep) == ["inner", "top"]


def test_skill_md_is_found_recursively_and_ends_the_search_below_it(repo: Path) -> None:
    root = repo / ".pi" / "skills"
    write_skill(root / "group" / "deep" / "one", "one", "One.")
    write_skill(root / "two", "two", "Two.")
    write_skill(root / "two" / "nested", "nested", "Not a separate skill.")
    (root / "node_modules" / "x").mkdir(parents=True)
    write_skill(root / "node_modules" / "x", "x", "Skipped.")
    write_skill(root / ".hidden", "hidden", "Skipped.")
    assert sorted(_names(repo)) == ["one", "two"]


def test_ignore_files_are_honoured(repo: Path) -> None:
    root = repo / ".pi" / "skills"
    write_skill(root / "kept", "kept", "Kept.")
    write_skill(root / "draft", "draft", "Ignored.")
    (root / ".gitignore").write_text("draft/\n")
    assert _names(repo) == ["kept"]


def test_a_plain_markdown_file_is_a_skill_only_with_a_description(repo: Path) -> None:
    root = repo / ".pi" / "skills"
    root.mkdir(parents=True)
    (root / "notes.md").write_text("just notes\n")
    (root / "quick.md").write_text("---\ndescription: Quick one.\n---\nDo it.\n")
    loaded = load_resources_now(repo, trusted=True)
    assert [s.name for s in loaded.skills] == ["skills"]  # the folder's name, as pi
    assert not [d for d in loaded.diagnostics if "notes.md" in str(d.path)]


def test_description_is_required_and_malformed_frontmatter_is_reported(repo: Path) -> None:
    root = repo / ".pi" / "skills"
    write_skill(root / "nodesc", "nodesc", None)
    (root / "broken").mkdir()
    (root / "broken" / "SKILL.md").write_text("---\nname: broken\ndescription: [unclosed\n---\n")
    write_skill(root / "good", "good", "Good.")
    loaded = load_resources_now(repo, trusted=True)
    assert [s.name for s in loaded.skills] == ["good"]
    texts = loaded.warnings()
    assert any("nodesc" in t and "description is required" in t for t in texts)
    assert any("broken" in t and "invalid frontmatter" in t for t in texts)


def test_name_rules_warn_as_pi_does() -> None:
    assert name_problems("pdf-tools") == []
    assert name_problems("PDF") == [
        "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)"
    ]
    assert name_problems("-a") == ["name must not start or end with a hyphen"]
    assert name_problems("a--b") == ["name must not contain consecutive hyphens"]
    assert name_problems("a" * 65) == ["name exceeds 64 characters (65)"]


def test_the_name_defaults_to_the_folder_and_a_bad_one_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "my-skill" / "SKILL.md"
    skill, problems = parse_skill(path, "---\ndescription: D.\n---\nx", "user")
    assert skill is not None and skill.name == "my-skill" and problems == []
    skill, problems = parse_skill(path, "---\nname: Bad Name\ndescription: D.\n---\n", "user")
    assert skill is not None and skill.name == "Bad Name"
    assert [p.message for p in problems] == [
        "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)"
    ]


def test_a_name_collision_keeps_the_first_and_warns(repo: Path, pitui_home: Path) -> None:
    first = write_skill(repo / ".pitui" / "skills" / "x", "same", "Project one.")
    second = write_skill(pitui_home / "skills" / "x", "same", "User one.")
    loaded = load_resources_now(repo, trusted=True)
    assert [s.file_path for s in loaded.skills] == [first]
    [collision] = [d for d in loaded.diagnostics if d.kind == "collision"]
    assert collision.path == second and str(first) in collision.message


def _skill(name: str, description: str, hidden: bool = False) -> Skill:
    path = Path(f"/s/{name}/SKILL.md")
    return Skill(name, description, path, path.parent, "user", hidden)


def test_the_prompt_block_is_worded_as_pi_words_it() -> None:
    block = format_skills_for_prompt(
        [_skill("pdf", 'Read <PDF> & "more"\'s'), _skill("secret", "Hidden.", hidden=True)]
    )
    assert block == (
        "\n\nThe following skills provide specialized instructions for specific tasks.\n"
        "Use the read tool to load a skill's file when the task matches its description.\n"
        "Resolve relative paths against the skill's directory (parent of SKILL.md). "
        "Use absolute paths in tool calls.\n"
        "\n"
        "<available_skills>\n"
        "  <skill>\n"
        "    <name>pdf</name>\n"
        "    <description>Read &lt;PDF&gt; &amp; &quot;more&quot;&apos;s</description>\n"
        "    <location>/s/pdf/SKILL.md</location>\n"
        "  </skill>\n"
        "</available_skills>"
    )
    assert format_skills_for_prompt([_skill("secret", "Hidden.", hidden=True)]) == ""


def test_the_system_prompt_lists_skills_before_the_date(tmp_path: Path) -> None:
    skills = [_skill("pdf", "PDFs.")]
    prompt = build_system_prompt(cwd=tmp_path, skills=skills)
    assert "<name>pdf</name>" in prompt
    assert prompt.index("</available_skills>") < prompt.index("\nCurrent date:")
    assert "Use bash to load" in build_system_prompt(cwd=tmp_path, tools=["bash"], skills=skills)
    assert "available_skills" not in build_system_prompt(cwd=tmp_path, tools=["ls"], skills=skills)


async def test_skill_command_sends_the_body_and_the_arguments(repo: Path) -> None:
    path = write_skill(
        repo / ".agents" / "skills" / "hello", "hello", "Hi.", body="\n# Hello\n\nGreet.\n"
    )
    loaded = await load_resources(repo, trusted=True)
    expanded = await expand_skill_command("/skill:hello  now please ", loaded.skills)
    assert expanded == (
        f'<skill name="hello" location="{path}">\n'
        f"References are relative to {path.parent}.\n\n# Hello\n\nGreet.\n</skill>\n\nnow please"
    )
    bare = await expand_skill_command("/skill:hello", loaded.skills)
    assert bare.endswith("Greet.\n</skill>")
    assert await expand_skill_command("/skill:nope x", loaded.skills) == "/skill:nope x"
