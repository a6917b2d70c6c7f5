"""The edit tool: exact and fuzzy matching, pi's error texts, BOM/CRLF, multiple edits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pitui.agent.tool import ToolError
from pitui.agent.validation import ToolArgumentsError, validate_tool_arguments
from pitui.ai.abort import AbortSignal
from pitui.ai.types import ToolCall
from pitui.core.tools.edit import EditTool

from .helpers import run, text


async def edit(tmp_path: Path, content: str | bytes, **args: Any) -> str:
    target = tmp_path / "f.txt"
    if isinstance(content, str):
        target.write_bytes(content.encode("utf-8"))
    else:
        target.write_bytes(content)
    await run(EditTool(tmp_path), path="f.txt", **args)
    return target.read_bytes().decode("utf-8")


async def test_replace_and_details(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("Hello, world!")
    result = await run(EditTool(tmp_path), path="a.txt", oldText="world", newText="testing")
    assert text(result) == "Successfully replaced text in a.txt."
    assert (tmp_path / "a.txt").read_text() == "Hello, testing!"
    assert result.details == {
        "diff": "-1 Hello, world!\n+1 Hello, testing!",
        "patch": result.details["patch"],
        "firstChangedLine": 1,
    }
    assert result.details["patch"].startswith("--- a.txt\n+++ a.txt\n@@ -1 +1 @@\n")


async def test_not_found(tmp_path: Path) -> None:
    with pytest.raises(ToolError) as info:
        await edit(tmp_path, "Hello, world!", oldText="nonexistent", newText="x")
    assert str(info.value) == (
        "Could not find the exact text in f.txt. The old text must match exactly including "
        "all whitespace and newlines."
    )


async def test_not_unique(tmp_path: Path) -> None:
    with pytest.raises(ToolError) as info:
        await edit(tmp_path, "foo foo foo", oldText="foo", newText="bar")
    assert str(info.value) == (
        "Found 3 occurrences of the text in f.txt. The text must be unique. "
        "Please provide more context to make it unique."
    )


async def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"^File not found: nope\.txt$"):
        await run(EditTool(tmp_path), path="nope.txt", oldText="a", newText="b")


async def test_no_change(tmp_path: Path) -> None:
    with pytest.raises(ToolError) as info:
        await edit(tmp_path, "same", oldText="same", newText="same")
    assert str(info.value) == (
        "No changes made to f.txt. The replacement produced identical content. This might "
        "indicate an issue with special characters or the text not existing as expected."
    )


async def test_empty_old_text_and_no_edits(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"^oldText must not be empty in f\.txt\.$"):
        await edit(tmp_path, "abc", oldText="", newText="x")
    with pytest.raises(ToolError, match="edits must contain at least one replacement"):
        await edit(tmp_path, "abc")


# ------------------------------------------------------------------- fuzzy matching


async def test_fuzzy_trailing_whitespace(tmp_path: Path) -> None:
    out = await edit(
        tmp_path, "line one   \nline two  \nline three\n", oldText="line one\nline two\n",
        newText="replaced\n",
    )  # fmt: skip
    assert out == "replaced\nline three\n"


async def test_fuzzy_nfkc_and_fullwidth(tmp_path: Path) -> None:
    out = await edit(
        tmp_path, "ＡＢＣ１２３\ncafe\u0301\n", oldText="ABC123\ncafé\n", newText="XYZ789\ncoffee\n"
    )
    assert out == "XYZ789\ncoffee\n"
    out = await edit(
        tmp_path, "你好，世界\n你好（世界）\n", oldText="你好,世界\n你好(世界)\n",
        newText="你好，pi\n你好(pi)\n",
    )  # fmt: skip
    assert out == "你好，pi\n你好(pi)\n"


@pytest.mark.parametrize(
    ("content", "old", "new", "expected"),
    [
        ("console.log(\u2018hello\u2019);\n", "console.log('hello');", "console.log('world');",
         "console.log('world');\n"),
        ("const msg = \u201cHello World\u201d;\n", 'const msg = "Hello World";',
         'const msg = "Goodbye";', 'const msg = "Goodbye";\n'),
        ("range: 1\u20135\nbreak\u2014here\n", "range: 1-5\nbreak-here",
         "range: 10-50\nbreak--here", "range: 10-50\nbreak--here\n"),
        ("hello\u00a0world\n", "hello world", "hello universe", "hello universe\n"),
        ("a \u2212 b\n", "a - b", "a + b", "a + b\n"),
    ],
)  # fmt: skip
async def test_fuzzy_quotes_dashes_spaces(
    tmp_path: Path, content: str, old: str, new: str, expected: str
) -> None:
    assert await edit(tmp_path, content, oldText=old, newText=new) == expected


async def test_fuzzy_normalises_whole_file(tmp_path: Path) -> None:
    # pi writes the normalised text back when the fuzzy path was needed.
    out = await edit(
        tmp_path, "x = \u201cq\u201d  \ny = 1\u20132\n", oldText="y = 1-2", newText="y = 3"
    )
    assert out == 'x = "q"\ny = 3\n'


async def test_exact_preferred(tmp_path: Path) -> None:
    content = "const x = 'exact';  \nconst y = \u2018other\u2019;\n"
    out = await edit(tmp_path, content, oldText="const x = 'exact';", newText="const x = 'z';")
    assert out == "const x = 'z';  \nconst y = \u2018other\u2019;\n"  # untouched elsewhere


async def test_duplicates_after_normalisation(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"^Found 2 occurrences of the text in f\.txt"):
        await edit(tmp_path, "hello world   \nhello world\n", oldText="hello world", newText="r")


async def test_fuzzy_not_found(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"^Could not find the exact text"):
        await edit(tmp_path, "completely different\n", oldText="this does not exist", newText="r")


# ------------------------------------------------------------------- BOM and CRLF


async def test_crlf_preserved_and_lf_old_text_matches(tmp_path: Path) -> None:
    out = await edit(tmp_path, "first\r\nsecond\r\nthird\r\n", oldText="second\n", newText="NEW\n")
    assert out == "first\r\nNEW\r\nthird\r\n"
    out = await edit(tmp_path, "first\nsecond\nthird\n", oldText="second\r\n", newText="NEW\r\n")
    assert out == "first\nNEW\nthird\n"


async def test_bom_and_crlf_preserved(tmp_path: Path) -> None:
    out = await edit(
        tmp_path, "\ufefffirst\r\nsecond\r\nthird\r\n", oldText="second\n", newText="R\n"
    )
    assert out == "\ufefffirst\r\nR\r\nthird\r\n"


async def test_duplicates_across_line_endings(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"^Found 2 occurrences"):
        await edit(tmp_path, "hello\r\nworld\r\n---\r\nhello\nworld\n", oldText="hello\nworld\n",
                   newText="r\n")  # fmt: skip


# ------------------------------------------------------------------- multiple edits


async def test_multiple_edits_matched_against_original(tmp_path: Path) -> None:
    (tmp_path / "m.txt").write_text("alpha\nbeta\ngamma\ndelta\n")
    result = await run(
        EditTool(tmp_path), path="m.txt",
        edits=[{"oldText": "gamma", "newText": "GAMMA"}, {"oldText": "alpha", "newText": "beta"}],
    )  # fmt: skip
    assert text(result) == "Successfully replaced 2 block(s) in m.txt."
    assert (tmp_path / "m.txt").read_text() == "beta\nbeta\nGAMMA\ndelta\n"
    assert result.details["firstChangedLine"] == 1


async def test_legacy_pair_merged_with_edits_and_json_string(tmp_path: Path) -> None:
    out = await edit(
        tmp_path, "a b c", edits='[{"oldText": "a", "newText": "A"}]', oldText="c", newText="C"
    )
    assert out == "A b C"


async def test_multiple_edit_errors(tmp_path: Path) -> None:
    edits = [{"oldText": "one", "newText": "1"}, {"oldText": "zzz", "newText": "2"}]
    with pytest.raises(ToolError) as info:
        await edit(tmp_path, "one two two", edits=edits)
    assert str(info.value) == (
        "Could not find edits[1] in f.txt. The oldText must match exactly including all "
        "whitespace and newlines."
    )
    edits[1] = {"oldText": "two", "newText": "2"}
    with pytest.raises(ToolError) as info:
        await edit(tmp_path, "one two two", edits=edits)
    assert str(info.value) == (
        "Found 2 occurrences of edits[1] in f.txt. Each oldText must be unique. "
        "Please provide more context to make it unique."
    )
    edits = [{"oldText": "one two", "newText": "x"}, {"oldText": "two three", "newText": "y"}]
    with pytest.raises(ToolError) as info:
        await edit(tmp_path, "one two three", edits=edits)
    assert str(info.value) == (
        "edits[0] and edits[1] overlap in f.txt. Merge them into one edit or target disjoint "
        "regions."
    )
    with pytest.raises(ToolError, match=r"^edits\[1\]\.oldText must not be empty in f\.txt\.$"):
        await edit(
            tmp_path,
            "abc",
            edits=[{"oldText": "a", "newText": "b"}, {"oldText": "", "newText": "c"}],
        )
    same = [{"oldText": "a", "newText": "a"}, {"oldText": "b", "newText": "b"}]
    with pytest.raises(ToolError, match=r"^No changes made to f\.txt\. The replacements produced"):
        await edit(tmp_path, "a b", edits=same)


async def test_file_untouched_on_error(tmp_path: Path) -> None:
    (tmp_path / "k.txt").write_text("keep me")
    with pytest.raises(ToolError):
        await run(EditTool(tmp_path), path="k.txt", oldText="absent", newText="x")
    assert (tmp_path / "k.txt").read_text() == "keep me"


def test_schema_is_pi_shaped() -> None:
    schema = EditTool(Path(".")).parameters_schema()
    props = schema["properties"]
    assert schema["required"] == ["path"]
    assert props["oldText"] == {
        "type": "string",
        "description": "Exact text to find and replace (must match exactly)",
    }
    assert props["newText"]["type"] == "string"
    assert props["edits"]["type"] == "array"
    item = schema["$defs"]["EditItem"]
    assert item["required"] == ["oldText", "newText"]
    # Closed objects without a docstring description, as pi's TypeBox schemas are.
    assert schema["additionalProperties"] is False and item["additionalProperties"] is False
    assert "description" not in schema and "description" not in item


def test_unknown_argument_is_rejected_as_ajv_words_it(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("abc")
    with pytest.raises(ToolArgumentsError, match="must NOT have additional properties"):
        validate_tool_arguments(
            EditTool(tmp_path),
            ToolCall(id="c", name="edit", arguments={"path": "a.txt", "edits": [], "x": 1}),
        )


async def test_aborted_edit_leaves_file(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("abc")
    signal = AbortSignal()
    signal.abort()
    with pytest.raises(ToolError, match=r"^Operation aborted$"):
        await run(EditTool(tmp_path), signal=signal, path="a.txt", oldText="a", newText="b")
    assert (tmp_path / "a.txt").read_text() == "abc"
