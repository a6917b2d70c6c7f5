"""Tool-card headers and bodies as pi words them (no Textual app needed)."""

from __future__ import annotations

from typing import Any

from textual.content import Content

from pitui.ui.view.state import ToolCardItem, ToolState
from pitui.ui.widgets.tool_renderers import (
    ToolRenderer,
    register_renderer,
    render_diff,
    renderer_for,
)


def card(
    name: str,
    args: dict[str, Any],
    output: str = "",
    state: ToolState = "success",
    details: Any = None,
    expanded: bool = False,
) -> ToolCardItem:
    return ToolCardItem(
        f"tool:{name}", name, name, args, None, state, output, details, True, expanded
    )


def header(item: ToolCardItem) -> str:
    return renderer_for(item.tool_name).header(item).plain


def body(item: ToolCardItem) -> str | None:
    content = renderer_for(item.tool_name).body(item)
    return None if content is None else content.plain


def test_headers_like_pi() -> None:
    assert header(card("read", {"path": "src/a.ts"})) == "read src/a.ts"
    assert header(card("read", {"path": "a", "offset": 5, "limit": 10})) == "read a:5-14"
    assert header(card("read", {"path": "a", "offset": 5})) == "read a:5"
    assert header(card("read", {})) == "read ..."
    assert header(card("write", {"path": "b.txt", "content": "x"})) == "write b.txt"
    edited = card("edit", {"path": "c.py"}, details={"diff": "+1 x", "firstChangedLine": 7})
    assert header(edited) == "edit c.py:7"
    assert header(card("bash", {"command": "ls -la"})) == "$ ls -la"
    assert header(card("bash", {"command": "sleep 9", "timeout": 5})) == "$ sleep 9 (timeout 5s)"
    assert header(card("bash", {}, state="pending")) == "$ ..."
    assert header(card("grep", {"pattern": "TODO", "path": "src"})) == "grep /TODO/ in src"
    assert header(card("find", {"pattern": "*.py"})) == "find *.py in ."
    assert header(card("ls", {})) == "ls ."
    assert header(card("mytool", {"q": 1})) == 'mytool {"q": 1}'


def test_read_body_collapses_to_ten_lines() -> None:
    text = "\n".join(f"line {n}" for n in range(1, 26))
    collapsed = body(card("read", {"path": "a"}, text))
    assert collapsed is not None
    assert collapsed.split("\n")[-1] == "... (15 more lines, ctrl+o to expand)"
    assert len(collapsed.split("\n")) == 11
    assert body(card("read", {"path": "a"}, text, expanded=True)) == text


def test_bash_body_shows_tail_and_full_output_path() -> None:
    text = "\n".join(str(n) for n in range(1, 13))
    details = {"fullOutputPath": "/tmp/pi-bash-1.log"}
    shown = body(card("bash", {"command": "seq 12"}, text, details=details))
    hint = "... (7 earlier lines, ctrl+o to expand)"
    full = "[Full output: /tmp/pi-bash-1.log]"
    assert shown == "\n".join([hint, "8", "9", "10", "11", "12", full])


def test_write_body_and_error() -> None:
    content = "\n".join(f"l{n}" for n in range(12))
    shown = body(card("write", {"path": "f", "content": content}))
    assert shown is not None and shown.endswith("... (2 more lines, 12 total, ctrl+o to expand)")
    failed = card("write", {"path": "f", "content": "x"}, "EACCES", state="error")
    assert body(failed) == "EACCES"


def test_edit_diff_is_coloured() -> None:
    diff = " 1 a\n-2 b\n+2 c"
    rendered = render_diff(diff)
    assert rendered.plain == diff
    styles = {str(span.style) for span in rendered.spans}
    assert {"$pi-toolDiffAdded", "$pi-toolDiffRemoved", "$pi-toolDiffContext"} <= styles
    assert body(card("edit", {"path": "x"}, details={"diff": diff})) == diff
    assert body(card("edit", {"path": "x"}, "Could not find", state="error")) == "Could not find"


def test_registry_by_tool_name() -> None:
    class Custom(ToolRenderer):
        def header(self, card: ToolCardItem) -> Content:
            return Content("custom!")

    register_renderer("special", Custom())
    assert header(card("special", {})) == "custom!"
    assert renderer_for("unknown-tool").__class__ is ToolRenderer
