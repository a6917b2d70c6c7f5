"""mcp.json loading, merging, validation and editing (pi 1.6's rules)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pitui.core.mcp.config import (
    SSE_REFUSED,
    add_server_now,
    load_config_now,
    remove_server_now,
    update_server_now,
)
from pitui.core.mcp.naming import configured_tool_exposure, mcp_tool_name, tool_names
from pitui.core.mcp.values import UnresolvedValue, resolve_template, resolve_value


def write(path: Path, servers: dict[str, object], **extra: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers, **extra}, indent=4))
    return path


def test_user_and_project_merge(pitui_home: Path, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    write(
        pitui_home / "mcp.json",
        {
            "db": {"command": "db-server", "env": {"TOKEN": "${DB_TOKEN}"}},
            "web": {"url": "https://example.com/mcp"},
        },
    )
    write(
        project / ".pitui" / "mcp.json",
        {"db": {"enabled": False, "exposure": "hidden"}, "web": {"command": "local-web"}},
    )
    loaded = load_config_now(project)
    assert loaded.errors == []
    db, web = loaded.find("db"), loaded.find("web")
    assert db is not None and web is not None
    # An override keeps the user entry's command and env and changes only what it may.
    assert db.config["command"] == "db-server" and db.config["env"] == {"TOKEN": "${DB_TOKEN}"}
    assert not db.enabled and db.exposure == "hidden"
    assert db.scope == "user" and db.override == project / ".pitui" / "mcp.json"
    assert db.edit_file == project / ".pitui" / "mcp.json"
    # A full project entry replaces the user one.
    assert web.scope == "project" and web.kind == "stdio" and web.config["command"] == "local-web"


def test_invalid_entries_are_reported_and_skipped(pitui_home: Path, tmp_path: Path) -> None:
    write(
        pitui_home / "mcp.json",
        {
            "ok": {"command": "x"},
            "sse": {"type": "sse", "url": "https://example.com/sse"},
            "bad name": {"command": "x"},
            "noargs": {"command": "x", "args": "not-a-list"},
            "nothing": {"description": "?"},
            "t": {"command": "x", "timeout": 0},
            "e": {"command": "x", "exposure": "everywhere"},
            "ok-2": {"command": "y"},
            "ok_2": {"command": "z"},
        },
    )
    loaded = load_config_now(tmp_path)
    assert [s.name for s in loaded.servers] == ["ok", "ok-2"]
    text = "\n".join(loaded.errors)
    assert SSE_REFUSED in text
    assert 'invalid server name "bad name"' in text
    assert "args must be an array of strings" in text
    assert 'needs either "command" (stdio) or "url" (streamable HTTP)' in text
    assert "timeout must be a positive number of seconds" in text
    assert "exposure must be one of" in text
    assert 'server "ok_2" conflicts with "ok-2"' in text


def test_project_rules(pitui_home: Path, tmp_path: Path) -> None:
    write(pitui_home / "mcp.json", {"u": {"command": "u", "approve": "always"}})
    write(
        tmp_path / ".pitui" / "mcp.json",
        {
            "lonely": {"enabled": False},
            "u": {"enabled": True, "env": {"A": "b"}},
            "p": {"command": "p", "approve": "always"},
        },
    )
    loaded = load_config_now(tmp_path)
    text = "\n".join(loaded.errors)
    assert 'server "lonely" needs "command" or "url", or a user server to override' in text
    assert "an override can only set enabled, exposure, toolExposure" in text
    assert "approve is only allowed in the user mcp.json" in text
    user = loaded.find("u")
    assert user is not None and user.approve_always


def test_broken_file_is_an_error_not_a_crash(pitui_home: Path, tmp_path: Path) -> None:
    pitui_home.mkdir(parents=True)
    (pitui_home / "mcp.json").write_text("{not json")
    loaded = load_config_now(tmp_path)
    assert loaded.servers == [] and len(loaded.errors) == 1


def test_codemode_is_deferred_with_one_notice(pitui_home: Path, tmp_path: Path) -> None:
    write(
        pitui_home / "mcp.json",
        {"a": {"command": "a", "exposure": "codemode-deferred"}, "b": {"command": "b"}},
    )
    loaded = load_config_now(tmp_path)
    assert loaded.find("a").exposure == "codemode"  # type: ignore[union-attr]
    assert len(loaded.notices) == 1 and "treated as deferred" in loaded.notices[0]


def test_edits_keep_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(
        json.dumps({"other": 1, "mcpServers": {"a": {"command": "a", "enabled": False}}}, indent=4)
    )
    assert not add_server_now(path, "b", {"url": "https://x.test/mcp"})
    update_server_now(path, "a", {"enabled": True, "exposure": "deferred"})
    data = json.loads(path.read_text())
    assert data["other"] == 1
    assert data["mcpServers"]["a"] == {"command": "a", "exposure": "deferred"}
    assert '\n    "other"' in path.read_text()  # indentation kept
    assert remove_server_now(path, "b") and not remove_server_now(path, "b")
    override = tmp_path / "proj.json"
    update_server_now(override, "a", {"enabled": False}, as_override=True)
    assert json.loads(override.read_text()) == {"mcpServers": {"a": {"enabled": False}}}


def test_tool_names_as_pi_forms_them() -> None:
    assert mcp_tool_name("my-server", "get.time") == "mcp__my_server__get_time"
    names = tool_names("s", ["a-b", "a_b", "c"])
    assert names["c"] == "mcp__s__c"
    assert names["a-b"] != names["a_b"]
    assert all(
        n.startswith("mcp__s__a_b_") and len(n) == len("mcp__s__a_b_") + 8
        for n in (names["a-b"], names["a_b"])
    )
    long = mcp_tool_name("server", "x" * 80)
    assert len(long) == 64


def test_tool_exposure_patterns() -> None:
    overrides = {"search_code": "direct", "get_*": "codemode", "*": "hidden", "get_x": "direct"}
    assert configured_tool_exposure(overrides, "get_x") == "direct"
    assert configured_tool_exposure(overrides, "get_y") == "codemode"
    assert configured_tool_exposure(overrides, "delete") == "hidden"
    assert configured_tool_exposure({}, "x") is None


async def test_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOK", "abc")
    monkeypatch.delenv("NOPE", raising=False)
    assert resolve_template("Bearer ${TOK}/$TOK $$1 $!x ${not-a-name}") == (
        "Bearer abc/abc $1 !x ${not-a-name}"
    )
    with pytest.raises(UnresolvedValue, match="NOPE"):
        await resolve_value("${NOPE}", 'env "X"')
    assert await resolve_value("!echo hi there", "x") == "hi there"
    with pytest.raises(UnresolvedValue, match="command failed"):
        await resolve_value("!exit 3", "x")
