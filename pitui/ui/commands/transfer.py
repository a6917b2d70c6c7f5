"""``/export [path]`` and ``/import FILE``: take the conversation out, bring one in.

Both are thin: the work is :mod:`pitui.core.export` and
:mod:`pitui.core.session.importing`; switching to an imported session is ``/resume``'s
(``switch_session``: LiveSession.switch_to, whose event makes the app rebuild its view).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import TYPE_CHECKING

from pitui.ui.commands.resume import switch_session
from pitui.ui.host import require_session

if TYPE_CHECKING:
    from pitui.core.themes import PiTheme
    from pitui.ui.host import UiHost

IMPORT_USAGE = "Usage: /import <path.jsonl>"


def current_theme(host: UiHost) -> PiTheme | None:
    """The pi theme the app shows now (the export is drawn in it)."""
    from pitui.core.themes import VARIABLE_PREFIX, resolve_theme

    name = str(host.theme).removeprefix(VARIABLE_PREFIX)
    return resolve_theme(name, host.themes)


async def export(host: UiHost, arg: str) -> None:
    """``/export [path]``: HTML (default ``pitui-session-<basename>.html``), ``.md`` or
    ``.jsonl`` of the current branch."""
    from pitui.core.export import ExportError, export_session, resolve_export_path

    session = require_session(host)
    theme = current_theme(host)
    if theme is None:
        raise ExportError("no theme is loaded to draw the export with")
    target = await asyncio.to_thread(resolve_export_path, session.store, arg or None, session.cwd)
    written = await export_session(session.store, target, theme)
    await host.notice(f"Session exported to: {written}")


def _source(arg: str, cwd: Path) -> Path:
    path = Path(os.path.expanduser(arg.strip().strip("'\"")))
    return path if path.is_absolute() else cwd / path


async def import_file(host: UiHost, arg: str) -> None:
    """``/import FILE``: copy a session file into the store and continue in it."""
    from pitui.core.session.importing import import_session
    from pitui.core.session.listing import default_session_dir

    session = require_session(host)
    if not arg.strip():
        await host.notice(IMPORT_USAGE, "warning")
        return
    source = _source(arg, session.cwd)
    directory = session.store.session_dir or default_session_dir(str(session.cwd))
    imported = await import_session(source, directory)
    # Switching is /resume's, notices and all (what loading skipped, another cwd).
    await switch_session(host, imported.path)
    host.notice_after_events(f"Session imported from: {source}", lasting=True)
