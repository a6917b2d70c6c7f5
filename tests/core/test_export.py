"""Export (HTML, Markdown, JSONL copy) and import of session files."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from pitui.ai.types import ImageContent, TextContent, UserMessage
from pitui.core.export import (
    ExportError,
    default_export_name,
    export_session,
    render_export,
    resolve_export_path,
)
from pitui.core.export.markdown import code, fenced
from pitui.core.export.markdown_html import render_markdown
from pitui.core.session.importing import import_session
from pitui.core.session.store import SessionStore
from pitui.core.themes import PiTheme, discover_themes, resolve_theme
from pitui.errors import SessionError
from tests.core.session.helpers import ORACLE, PI_SESSIONS

FIXTURES = Path(__file__).parents[1] / "fixtures"
VIEWS = FIXTURES / "context" / "views.jsonl"
THEMES = discover_themes([])


def _theme(name: str = "dark") -> PiTheme:
    theme = resolve_theme(name, THEMES)
    assert theme is not None
    return theme


async def _html(path: Path = VIEWS, theme: str = "dark") -> str:
    store = await SessionStore.open(path, read_only=True)
    return render_export(store, ".html", _theme(theme)).decode()


async def test_html_shows_the_branch_as_the_conversation_reads() -> None:
    page = await _html()
    assert "<title>Port work · pitui</title>" in page
    assert "Read config.py and change the port to 8080." in page
    assert "<strong>config.py</strong>" in page  # replies are rendered markdown
    assert '<details class="thinking"><summary>Thinking · 2 lines</summary>' in page
    assert '<span class="t-title">read</span>' in page and "config.py" in page
    assert '<details class="args"><summary>arguments</summary>' in page
    assert '<span class="diff-added">+1 PORT = 8080</span>' in page
    assert '<span class="diff-removed">-1 PORT = 3000</span>' in page
    assert '<pre><code class="language-python">PORT = 8080' in page
    assert '<section class="bash excluded">' in page and "!! not sent to the model" in page
    assert '<details class="card branch"><summary>Branch summary</summary>' in page
    assert "Shown to the user only." in page  # display: true custom message
    assert "the model reads it" not in page  # display: false stays hidden, as in the UI
    assert "Changed it to 9090." not in page  # another branch
    assert page.index("Read config.py") < page.index("Thanks, that is all.")


async def test_html_escapes_everything_from_the_model_and_tools() -> None:
    page = await _html()
    assert "&lt;script&gt;alert('x')&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert not re.search(r"<script|<img[^>]*onerror|onerror=alert\(1\)>", page)
    assert "<img " not in page  # no attached images here


async def test_html_is_self_contained() -> None:
    page = await _html()
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    for fetch in ("<link", "<script", "@import", "url(", 'src="http', "<iframe"):
        assert fetch not in page


async def test_html_uses_the_themes_colours() -> None:
    dark, light = await _html(theme="dark"), await _html(theme="light")
    assert "--page-bg:#18181e" in dark and "color-scheme:dark" in dark
    assert "--page-bg:#f8f8f8" in light and "color-scheme:light" in light
    assert f"--pi-toolSuccessBg:{_theme('light').color('toolSuccessBg')}" in light


async def test_compaction_card() -> None:
    page = await _html(ORACLE / "before-compaction.v3.jsonl")
    assert '<details class="card compaction"><summary>Compacted from ' in page


def test_markdown_renderer_never_loads_or_runs_anything() -> None:
    out = render_markdown(
        "<script>x()</script> [a](javascript:alert(1)) ![t](http://evil.example/t.png)\n\n"
        "<div onclick=x>"
    )
    assert "<script" not in out and "<div" not in out and "<img" not in out
    assert "javascript:" not in out.split("[a]")[0]
    assert 'href="javascript' not in out
    assert "[image: t] http://evil.example/t.png" in out


async def test_attached_images_are_embedded_only_when_they_are_images(tmp_path: Path) -> None:
    store = SessionStore.in_memory(tmp_path)
    good = ImageContent(data="iVBORw0KGgo=", mime_type="image/png")
    evil = ImageContent(data='x" onerror="alert(1)', mime_type="image/png")
    odd = ImageContent(data="AAAA", mime_type="text/html")
    content: list[TextContent | ImageContent] = [TextContent(text="look"), good, evil, odd]
    await store.append_message(UserMessage(content=content))
    page = render_export(store, ".html", _theme()).decode()
    assert page.count("<img ") == 1 and 'src="data:image/png;base64,iVBORw0KGgo="' in page
    assert "onerror" not in page
    assert page.count("not shown]") == 2


async def test_markdown_export(tmp_path: Path) -> None:
    store = await SessionStore.open(VIEWS, read_only=True)
    text = render_export(store, ".md", _theme()).decode()
    assert text.startswith("# Port work\n")
    assert "## You\n\nRead config.py and change the port to 8080." in text
    assert "**Tool:** `read config.py`" in text
    assert '```text\nPORT = 3000\nHOST = "<img src=x onerror=alert(1)>"\n```' in text
    assert "```diff\n-1 PORT = 3000\n+1 PORT = 8080" in text
    assert "> **Thinking**" in text and "> **Branch summary**" in text
    assert "### `$ ls -la`" in text and "not sent to the model" in text


def test_fences_and_code_spans_cannot_be_closed_from_inside() -> None:
    assert fenced("a ``` b\n````") == "`````\na ``` b\n````\n`````"
    assert fenced("plain", "text") == "```text\nplain\n```"
    assert code("a`b") == "`` a`b ``" and code("ab") == "`ab`"


async def test_jsonl_export_is_a_copy_of_the_file(tmp_path: Path) -> None:
    store = await SessionStore.open(VIEWS, read_only=True)
    out = await export_session(store, tmp_path / "copy.jsonl", _theme())
    assert out.read_bytes() == VIEWS.read_bytes()


async def test_unsaved_session_exports_what_it_holds(tmp_path: Path) -> None:
    store = SessionStore.in_memory(tmp_path)
    await store.append_message(UserMessage(content=[TextContent(text="hi")]))
    lines = render_export(store, ".jsonl", _theme()).decode().splitlines()
    assert json.loads(lines[0])["type"] == "session" and len(lines) == 2
    assert default_export_name(store) == f"pitui-session-{store.session_id}.html"


async def test_export_paths(tmp_path: Path) -> None:
    store = await SessionStore.open(VIEWS, read_only=True)
    assert default_export_name(store) == "pitui-session-views.html"
    assert resolve_export_path(store, None, tmp_path) == tmp_path / "pitui-session-views.html"
    assert resolve_export_path(store, "out.md", tmp_path) == tmp_path / "out.md"
    assert resolve_export_path(store, str(tmp_path), Path("/")) == (
        tmp_path / "pitui-session-views.html"
    )
    with pytest.raises(ExportError, match="unknown export format"):
        resolve_export_path(store, "out.pdf", tmp_path)


async def test_export_never_overwrites_its_session(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    shutil.copy(VIEWS, path)
    store = await SessionStore.open(path, read_only=True)
    with pytest.raises(ExportError, match="session file itself"):
        await export_session(store, path, _theme())
    assert path.read_bytes() == VIEWS.read_bytes()


async def test_export_to_an_unwritable_place_is_an_error(tmp_path: Path) -> None:
    store = await SessionStore.open(VIEWS, read_only=True)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ExportError, match="cannot write"):
        await export_session(store, blocker / "out.html", _theme())


# --------------------------------------------------------------------------- import


async def test_import_copies_keeping_id_and_cwd(tmp_path: Path) -> None:
    source = PI_SESSIONS / "before-compaction.jsonl"  # pi's v1 file: stays v1 on disk
    first = await import_session(source, tmp_path / "store")
    assert first.copied and first.path == tmp_path / "store" / "before-compaction.jsonl"
    assert first.path.read_bytes() == source.read_bytes()
    header = json.loads(source.read_text().splitlines()[0])
    assert (first.session_id, first.cwd) == (header["id"], header["cwd"])
    second = await import_session(source, tmp_path / "store")
    assert second.path.name == "before-compaction-1.jsonl"
    again = await import_session(first.path, tmp_path / "store")
    assert not again.copied and again.path == first.path
    opened = await SessionStore.open(first.path, read_only=True)
    assert opened.session_id == header["id"] and opened.entry_count() > 0


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "empty file"),
        (b"hello\n", "no session header"),
        (b'{"type":"session","version":3,"id":"a","timestamp":"t","cwd":"/"}\n{oops\n', "line 2"),
    ],
)
async def test_import_refuses_a_file_that_does_not_parse(
    tmp_path: Path, content: bytes, reason: str
) -> None:
    source = tmp_path / "bad.jsonl"
    source.write_bytes(content)
    with pytest.raises(SessionError, match=reason):
        await import_session(source, tmp_path / "store")
    assert not (tmp_path / "store").exists()


async def test_import_of_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SessionError, match="no such file"):
        await import_session(tmp_path / "nope.jsonl", tmp_path / "store")
