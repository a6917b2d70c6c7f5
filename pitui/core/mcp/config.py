"""Read, validate, merge and edit ``mcp.json`` files (pi 1.6's format and rules).

The user file (``<home>/mcp.json``) and the project file (``.pitui/mcp.json``) both hold
``{"mcpServers": {name: entry}}``. A project entry replaces a user entry of the same
name; a project entry without ``command``/``url``/``type`` only overrides ``enabled``,
``exposure`` and ``toolExposure`` of the user entry and keeps the rest (credentials a
repository could not set itself). Invalid entries are reported and skipped, never
fatal: the other servers still connect. Files are a trust boundary: every field is
checked before anything uses it.

Edits (``pitui mcp add/remove``, ``/mcp`` exposure and enable changes) rewrite only the
``mcpServers`` entry concerned, keeping other content and the file's indentation.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlparse

import msgspec

from pitui import paths
from pitui.core.mcp.naming import mcp_namespace
from pitui.lazy_pattern import lazy_pattern

Scope = Literal["user", "project"]
Kind = Literal["stdio", "http"]
ConfigExposure = Literal["codemode", "deferred", "direct", "hidden"]

EXPOSURES: tuple[str, ...] = ("codemode", "deferred", "direct", "hidden")
EXPOSURE_ALIASES = {"codemode-deferred": "codemode"}
OVERRIDE_KEYS = ("enabled", "exposure", "toolExposure")
DEFAULT_TIMEOUT_S = 60.0
SERVER_NAME = lazy_pattern(r"^[A-Za-z0-9_-]+$")
SSE_REFUSED = "legacy SSE transport is not supported; use the streamable HTTP URL"
USER_ONLY_KEYS = ("approve",)
"""Keys a project file may not set: they widen what a server may do without asking."""


class ServerEntry(msgspec.Struct, frozen=True):
    """One configured server, validated (``config`` is its JSON entry, aliases resolved)."""

    name: str
    config: dict[str, Any]
    scope: Scope
    source: Path
    """The file that defines the server."""
    override: Path | None = None
    """The project file whose entry overrides ``enabled``/``exposure``/``toolExposure``."""

    @property
    def kind(self) -> Kind:
        return "http" if isinstance(self.config.get("url"), str) else "stdio"

    @property
    def enabled(self) -> bool:
        return self.config.get("enabled") is not False

    @property
    def timeout_s(self) -> float:
        value = self.config.get("timeout")
        return float(value) if isinstance(value, int | float) else DEFAULT_TIMEOUT_S

    @property
    def description(self) -> str | None:
        value = self.config.get("description")
        return value if isinstance(value, str) else None

    @property
    def exposure(self) -> ConfigExposure | None:
        """The configured server exposure (None: chosen from the tool count)."""
        value = self.config.get("exposure")
        return value if value in EXPOSURES else None

    @property
    def tool_exposure(self) -> dict[str, ConfigExposure]:
        value = self.config.get("toolExposure")
        return dict(value) if isinstance(value, dict) else {}

    @property
    def approve_always(self) -> bool:
        """``"approve": "always"`` (user file only): its calls run without asking."""
        return self.scope == "user" and self.config.get("approve") == "always"

    @property
    def edit_file(self) -> Path:
        """Where ``/mcp`` saves exposure and enabled changes."""
        return self.override or self.source

    def transport_label(self) -> str:
        """``npx -y server .`` or the URL, as lists show it."""
        if self.kind == "http":
            return str(self.config["url"])
        return " ".join([str(self.config["command"]), *map(str, self.config.get("args", []))])

    def trust_data(self) -> dict[str, Any]:
        """What must not change without asking again (the trust fingerprint's input)."""
        keys = ("type", "command", "args", "env", "cwd", "url", "headers")
        return {key: self.config[key] for key in keys if key in self.config}


class LoadedConfig(msgspec.Struct):
    """The servers of both files, and what was wrong with them."""

    servers: list[ServerEntry] = msgspec.field(default_factory=list)
    errors: list[str] = msgspec.field(default_factory=list)
    notices: list[str] = msgspec.field(default_factory=list)
    """Things worth saying once (e.g. ``codemode`` treated as ``deferred``)."""
    user_file: Path | None = None
    project_file: Path | None = None

    def find(self, name: str) -> ServerEntry | None:
        return next((server for server in self.servers if server.name == name), None)


class McpConfigError(Exception):
    """An ``mcp.json`` that cannot be edited (unreadable, or not an object)."""


# --------------------------------------------------------------------------- validation


def _is_str_map(value: object) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


def _base_problem(entry: dict[str, Any]) -> str | None:
    enabled, timeout, description = (entry.get(k) for k in ("enabled", "timeout", "description"))
    if enabled is not None and not isinstance(enabled, bool):
        return "enabled must be a boolean"
    if description is not None and not isinstance(description, str):
        return "description must be a string"
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0
    ):
        return "timeout must be a positive number of seconds"
    approve = entry.get("approve")
    if approve is not None and approve not in ("always", "ask"):
        return 'approve must be "always" or "ask"'
    return _exposure_problem(entry)


def _exposure_problem(entry: dict[str, Any]) -> str | None:
    names = ", ".join(f'"{value}"' for value in EXPOSURES)
    exposure, tools = entry.get("exposure"), entry.get("toolExposure")
    if exposure is not None and exposure not in EXPOSURES:
        return f"exposure must be one of {names}"
    if tools is None:
        return None
    if not isinstance(tools, dict):
        return "toolExposure must map tool names to exposures"
    for tool, value in tools.items():
        if value not in EXPOSURES:
            return f'toolExposure "{tool}" must be one of {names}'
    return None


def _http_problem(entry: dict[str, Any], url: str) -> str | None:
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        return "url must be an http or https URL"
    if "headers" in entry and not _is_str_map(entry["headers"]):
        return "headers must map names to strings"
    if "oauth" in entry:
        return "oauth is not supported yet (use a header with a bearer token)"
    return None


def _stdio_problem(entry: dict[str, Any]) -> str | None:
    args, env, cwd = entry.get("args"), entry.get("env"), entry.get("cwd")
    if args is not None and not (isinstance(args, list) and all(isinstance(a, str) for a in args)):
        return "args must be an array of strings"
    if env is not None and not _is_str_map(env):
        return "env must map names to strings"
    if cwd is not None and not isinstance(cwd, str):
        return "cwd must be a string"
    return None


def _resolve_aliases(entry: dict[str, Any]) -> dict[str, Any]:
    resolved = dict(entry)
    exposure = resolved.get("exposure")
    if isinstance(exposure, str):
        resolved["exposure"] = EXPOSURE_ALIASES.get(exposure, exposure)
    tools = resolved.get("toolExposure")
    if isinstance(tools, dict):
        resolved["toolExposure"] = {
            k: EXPOSURE_ALIASES.get(v, v) if isinstance(v, str) else v for k, v in tools.items()
        }
    return resolved


def validate_entry(name: str, raw: object) -> dict[str, Any] | str:
    """The entry with aliases resolved, or the error message (pi's wording)."""
    if not SERVER_NAME.match(name):
        return f'invalid server name "{name}" (use letters, digits, "_" and "-")'
    if not isinstance(raw, dict):
        return f'server "{name}" must be an object'
    entry = _resolve_aliases(raw)
    problem = _base_problem(entry)
    kind, url, command = entry.get("type"), entry.get("url"), entry.get("command")
    if problem is None and kind == "sse":
        problem = SSE_REFUSED
    elif problem is None and isinstance(url, str) and kind in (None, "http", "streamable-http"):
        problem = _http_problem(entry, url)
    elif problem is None and isinstance(command, str) and kind in (None, "stdio"):
        problem = _stdio_problem(entry)
    elif problem is None:
        return f'server "{name}" needs either "command" (stdio) or "url" (streamable HTTP)'
    return f'server "{name}": {problem}' if problem else entry


def is_override(entry: dict[str, Any]) -> bool:
    """An entry that overrides a server defined elsewhere instead of defining one."""
    return all(key not in entry for key in ("command", "url", "type"))


# --------------------------------------------------------------------------- loading


def _read_file(path: Path, errors: list[str]) -> dict[str, Any] | None:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return None
    except OSError as exc:
        errors.append(f"{path}: {exc.strerror or exc}")
        return None
    try:
        parsed = json.loads(text)
    except ValueError as exc:
        errors.append(f"{path}: {exc}")
        return None
    servers = parsed.get("mcpServers") if isinstance(parsed, dict) else None
    if not isinstance(parsed, dict) or (servers is not None and not isinstance(servers, dict)):
        errors.append(f'{path}: expected an object with an "mcpServers" object')
        return None
    return servers or {}


def _merge_file(path: Path, scope: Scope, loaded: LoadedConfig) -> None:
    servers = _read_file(path, loaded.errors)
    if servers is None:
        return
    by_name = {server.name: server for server in loaded.servers}
    for name, raw in servers.items():
        if scope == "project" and isinstance(raw, dict) and is_override(raw):
            _apply_override(path, name, raw, by_name, loaded.errors)
            continue
        entry = validate_entry(name, raw)
        if isinstance(entry, str):
            loaded.errors.append(f"{path}: {entry}")
            continue
        clash = next(
            (o for o in by_name if o != name and mcp_namespace(o) == mcp_namespace(name)), None
        )
        if clash is not None:
            loaded.errors.append(f'{path}: server "{name}" conflicts with "{clash}"')
            continue
        if scope == "project" and any(key in entry for key in USER_ONLY_KEYS):
            loaded.errors.append(
                f'{path}: server "{name}": approve is only allowed in the user mcp.json'
            )
            continue
        by_name[name] = ServerEntry(name, entry, scope, path)
    loaded.servers = list(by_name.values())


def _apply_override(
    path: Path,
    name: str,
    raw: dict[str, Any],
    by_name: dict[str, ServerEntry],
    errors: list[str],
) -> None:
    base = by_name.get(name)
    extra = [key for key in raw if key not in OVERRIDE_KEYS]
    if base is None:
        errors.append(
            f'{path}: server "{name}" needs "command" or "url", or a user server to override'
        )
    elif extra:
        errors.append(
            f'{path}: server "{name}": an override can only set {", ".join(OVERRIDE_KEYS)}'
        )
    else:
        merged = validate_entry(name, {**base.config, **raw})
        if isinstance(merged, str):
            errors.append(f"{path}: {merged}")
        else:
            by_name[name] = msgspec.structs.replace(base, config=merged, override=path)


def load_config_now(cwd: Path, *, user_file: Path | None = None) -> LoadedConfig:
    """Both files, merged (blocking: use :func:`load_config` on the event loop)."""
    user = user_file or paths.mcp_file()
    project = paths.project_mcp_file(cwd)
    loaded = LoadedConfig(user_file=user, project_file=project)
    _merge_file(user, "user", loaded)
    _merge_file(project, "project", loaded)
    codemode = [s.name for s in loaded.servers if _uses_codemode(s)]
    if codemode:
        loaded.notices.append(
            "MCP: pitui has no codemode sandbox; codemode exposure is treated as deferred "
            f"(tool_search) for {', '.join(codemode)}"
        )
    return loaded


def _uses_codemode(server: ServerEntry) -> bool:
    return server.exposure == "codemode" or "codemode" in server.tool_exposure.values()


def has_mcp_files(cwd: Path) -> bool:
    """Whether either file exists (two stats: the cheap test before loading anything)."""
    return paths.mcp_file().exists() or paths.project_mcp_file(cwd).exists()


async def load_config(cwd: Path) -> LoadedConfig:
    """Both files, merged, read off the event loop."""
    return await asyncio.to_thread(load_config_now, cwd)


# --------------------------------------------------------------------------- editing


def _edit(path: Path, change: Any) -> bool:
    """Read ``path`` (empty when missing), let ``change(servers, parsed)`` edit it, write
    it back with its own indentation when ``change`` returns True."""
    text = path.read_text(encoding="utf-8-sig") if path.exists() else None
    try:
        parsed = json.loads(text) if text is not None else {}
    except ValueError as exc:
        raise McpConfigError(f"{path}: {exc}") from None
    servers = parsed.get("mcpServers") if isinstance(parsed, dict) else None
    if not isinstance(parsed, dict) or (servers is not None and not isinstance(servers, dict)):
        raise McpConfigError(f'{path}: expected an object with an "mcpServers" object')
    if servers is None:
        servers = {}
        parsed["mcpServers"] = servers
    if not change(servers, parsed):
        return False
    found = re.search(r"^([ \t]+)\S", text or "", re.MULTILINE)
    indent = found.group(1) if found else "  "
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(parsed, indent=indent, ensure_ascii=False) + "\n", encoding="utf-8")
    return True


def add_server_now(path: Path, name: str, entry: dict[str, Any]) -> bool:
    """Add (or replace) a server; True when one of that name was replaced."""
    replaced = False

    def change(servers: dict[str, Any], _parsed: dict[str, Any]) -> bool:
        nonlocal replaced
        replaced = name in servers
        servers[name] = entry
        return True

    _edit(path, change)
    return replaced


def remove_server_now(path: Path, name: str) -> bool:
    """Remove a server; False when ``path`` does not define it."""
    if not path.exists():
        return False
    return _edit(path, lambda servers, _parsed: servers.pop(name, None) is not None)


def update_server_now(
    path: Path, name: str, patch: dict[str, Any], *, as_override: bool = False
) -> None:
    """Set ``enabled``/``exposure`` of one entry (adding a project override if asked).

    Raises:
        McpConfigError: the file does not define the server (and no override was asked).
    """

    def change(servers: dict[str, Any], _parsed: dict[str, Any]) -> bool:
        entry = servers.get(name)
        if entry is None and as_override:
            entry = servers[name] = {}
        if not isinstance(entry, dict):
            raise McpConfigError(f'{path} does not define MCP server "{name}"')
        for key in ("enabled", "exposure"):
            if key in patch:
                entry[key] = patch[key]
        if entry.get("enabled") is True and not is_override(entry):
            del entry["enabled"]  # the default, kept out of a defining entry
        return True

    _edit(path, change)


async def update_server(
    path: Path, name: str, patch: dict[str, Any], *, as_override: bool = False
) -> None:
    """:func:`update_server_now` off the event loop."""
    await asyncio.to_thread(update_server_now, path, name, patch, as_override=as_override)
