"""``pitui --export SESSION [OUT]``: write a session's branch to HTML (or .md, .jsonl), no TUI.

SESSION is a file, or a session id or its start (as ``--session``).

OUT defaults to ``pitui-session-<basename>.html`` in the current directory; the theme is
``--theme``, else the ``theme`` setting, else ``dark``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from pitui.core.blocking import run_blocking
from pitui.core.export import export_session, resolve_export_path
from pitui.core.session.listing import resolve_session
from pitui.core.session.store import SessionStore
from pitui.core.settings import load_settings
from pitui.core.themes import discover_themes, resolve_theme
from pitui.errors import PituiError


async def export_file(
    session: Path | str, target: str | None, theme_name: str | None, cwd: Path
) -> tuple[Path, list[str]]:
    """Export ``session`` (opened read-only); returns the file written and any warnings."""
    # A path, or a session id or its start (as ``--session``).
    file = await asyncio.to_thread(resolve_session, str(session), cwd)
    loaded = await load_settings(cwd)
    catalog = await asyncio.to_thread(discover_themes)
    wanted = theme_name or loaded.settings.theme or "dark"
    theme = resolve_theme(wanted, catalog)
    if theme is None:
        raise PituiError("no theme could be loaded", title="Export")
    warnings = [str(problem) for problem in catalog.problems]
    if theme.name != wanted:
        warnings.append(f"Unknown theme {wanted!r}: exported with {theme.name!r}")
    store = await SessionStore.open(file, read_only=True)
    try:
        out = resolve_export_path(store, target, cwd)
        return await export_session(store, out, theme), warnings
    finally:
        await store.close()


def run(args: argparse.Namespace) -> int:
    """Entry point from :mod:`pitui.cli`."""
    messages = list(args.messages)
    if len(messages) > 1:
        print("pitui --export: give at most one output file", file=sys.stderr)
        return 2
    target = messages[0] if messages else None
    try:
        out, warnings = run_blocking(export_file(args.export, target, args.theme, Path.cwd()))
    except PituiError as exc:
        print(f"pitui --export: {exc.title}: {exc.message}", file=sys.stderr)
        return 1
    for warning in warnings:
        print(f"pitui: {warning}", file=sys.stderr)
    print(f"Session exported to: {out}")
    return 0
