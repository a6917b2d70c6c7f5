"""``pitui mcp <command>``: manage MCP servers from a shell (pi's ``pi mcp``).

``add NAME [-l] [--env K=V]… -- CMD ARGS…`` and ``add NAME --url URL [--header K:V]…``
write an entry (``-l``: the project's ``.pitui/mcp.json``, else the user's); ``remove
NAME [-l]`` deletes one; ``list`` connects to every enabled server and prints its state,
tools and errors (exit 1 when an entry is invalid or an enabled server is not
connected); ``trust NAME [--deny]`` records the decision about a project server, which
is otherwise never started.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from pitui import paths
from pitui.core.mcp.config import (
    LoadedConfig,
    McpConfigError,
    ServerEntry,
    add_server_now,
    load_config_now,
    remove_server_now,
    validate_entry,
)
from pitui.core.sanitize import inert

USAGE = """usage: pitui mcp <command> [options]

commands:
  add NAME [-l] [--env K=V]... [--description TEXT] -- CMD ARGS...
  add NAME [-l] --url URL [--header 'K: V']...
  remove NAME [-l]
  list
  trust NAME [--deny]
"""


def _say(text: str, err: bool = False) -> None:
    print(inert(text), file=sys.stderr if err else sys.stdout)


def _target(local: bool) -> Path:
    return paths.project_mcp_file(Path.cwd()) if local else paths.mcp_file()


def _pairs(values: list[str], sep: str, what: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for value in values:
        key, found_sep, rest = value.partition(sep)
        if not found_sep or not key.strip():
            raise McpConfigError(f"{what} must look like KEY{sep}VALUE: {value}")
        found[key.strip()] = rest.strip() if sep == ":" else rest
    return found


def cmd_add(argv: list[str]) -> int:
    command: list[str] = []
    if "--" in argv:
        split = argv.index("--")
        argv, command = argv[:split], argv[split + 1 :]
    parser = argparse.ArgumentParser(prog="pitui mcp add")
    parser.add_argument("name")
    parser.add_argument("-l", "--local", action="store_true", help="the project's file")
    parser.add_argument("--env", action="append", default=[], metavar="K=V")
    parser.add_argument("--url")
    parser.add_argument("--header", action="append", default=[], metavar="K:V")
    parser.add_argument("--description")
    args = parser.parse_args(argv)
    entry: dict[str, Any] = {}
    if args.url and command:
        raise McpConfigError("give either --url or a command after --, not both")
    if args.url:
        entry["url"] = args.url
        if args.header:
            entry["headers"] = _pairs(args.header, ":", "--header")
    elif command:
        entry["command"], entry["args"] = command[0], command[1:]
        if not entry["args"]:
            del entry["args"]
        if args.env:
            entry["env"] = _pairs(args.env, "=", "--env")
    else:
        raise McpConfigError("give a command after -- (stdio) or --url URL (streamable HTTP)")
    if args.description:
        entry["description"] = args.description
    checked = validate_entry(args.name, entry)
    if isinstance(checked, str):
        raise McpConfigError(checked)
    path = _target(args.local)
    replaced = add_server_now(path, args.name, entry)
    _say(f'{"Replaced" if replaced else "Added"} MCP server "{args.name}" in {path}')
    return 0


def cmd_remove(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="pitui mcp remove")
    parser.add_argument("name")
    parser.add_argument("-l", "--local", action="store_true")
    args = parser.parse_args(argv)
    path = _target(args.local)
    if not remove_server_now(path, args.name):
        _say(f'{path} does not define MCP server "{args.name}"', err=True)
        return 1
    _say(f'Removed MCP server "{args.name}" from {path}')
    return 0


def cmd_trust(argv: list[str]) -> int:
    from pitui.core.mcp.trust import needs_trust, trust_subject
    from pitui.core.trust import TrustStore

    parser = argparse.ArgumentParser(prog="pitui mcp trust")
    parser.add_argument("name")
    parser.add_argument("--deny", action="store_true", help="never start it")
    args = parser.parse_args(argv)
    cwd = Path.cwd()
    entry = load_config_now(cwd).find(args.name)
    if entry is None or not needs_trust(entry):
        _say(f'No project MCP server "{args.name}" in {paths.project_mcp_file(cwd)}', err=True)
        return 1
    TrustStore.read().decide_now(cwd, trust_subject(entry), not args.deny)
    verb = "Refused" if args.deny else "Allowed"
    _say(f'{verb} project MCP server "{entry.name}" ({entry.transport_label()}) for {cwd}')
    return 0


def _status(entry: ServerEntry, runtime: Any) -> tuple[list[str], bool]:
    """Lines about one server and whether it is fine."""
    from pitui.core.mcp.runtime import effective_exposure

    source = f"[{entry.scope}: {entry.source}]"
    exposure = entry.exposure or "auto"
    if not entry.enabled:
        return [f"{entry.name}: disabled ({exposure}) {source}"], True
    connection = runtime.connections.get(entry.name)
    if connection is None:
        hint = f"not allowed yet: run `pitui mcp trust {entry.name}`"
        return [f"{entry.name}: {hint} ({entry.transport_label()}) {source}"], False
    if connection.state != "connected":
        error = (connection.error or connection.state).replace("\n", "\n    ")
        return [f"{entry.name}: {connection.state} ({exposure}) {source}", f"    {error}"], False
    count = len(connection.tools)
    lines = [f"{entry.name}: connected, {count} tool{'s' * (count != 1)} ({exposure}) {source}"]
    base = effective_exposure(entry, "\0", count) if not entry.tool_exposure else None
    for info in connection.tools:
        shown = effective_exposure(entry, info.name, count)
        marker = f" [{shown}]" if base is None or shown != base else ""
        read_only = " (read-only)" if info.read_only else ""
        lines.append(f"    {info.name}{read_only}{marker}")
    return lines, True


async def _list(config: LoadedConfig) -> int:
    from pitui.core.mcp.runtime import McpRuntime
    from pitui.core.mcp.trust import is_allowed
    from pitui.core.trust import load_trust

    cwd = Path.cwd()
    store = await load_trust()
    runtime = McpRuntime(cwd, config, allowed=lambda e: is_allowed(store, cwd, e))
    runtime.start()
    try:
        await runtime.wait_all()
        ok = not config.errors
        for entry in config.servers:
            lines, fine = _status(entry, runtime)
            ok = ok and fine
            for line in lines:
                _say(line)
    finally:
        await runtime.close()
    for error in config.errors:
        _say(f"config error: {error}")
    for notice in config.notices:
        _say(notice)
    if not config.servers and not config.errors:
        _say(f"No MCP servers configured ({paths.mcp_file()}, {paths.project_mcp_file(cwd)})")
    return 0 if ok else 1


def cmd_list(argv: list[str]) -> int:
    argparse.ArgumentParser(prog="pitui mcp list").parse_args(argv)
    return asyncio.run(_list(load_config_now(Path.cwd())))


COMMANDS = {"add": cmd_add, "remove": cmd_remove, "list": cmd_list, "trust": cmd_trust}


def main(argv: list[str]) -> int:
    """Run ``pitui mcp`` with the words after ``mcp``."""
    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write(USAGE)
        return 0 if argv else 2
    command = COMMANDS.get(argv[0])
    if command is None:
        sys.stderr.write(f"pitui mcp: unknown command {argv[0]!r}\n\n{USAGE}")
        return 2
    try:
        return command(argv[1:])
    except McpConfigError as exc:
        _say(f"pitui mcp: {exc}", err=True)
        return 1
    except OSError as exc:
        _say(f"pitui mcp: {exc}", err=True)
        return 1
