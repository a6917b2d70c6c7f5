"""The TUI's entry point: build the app for the command line and run it.

:func:`create_app` returns the app at once (no core imports, so the first frame is fast):
the status bar's facts come from the start-up snapshot, the theme and git branch from a
file or two; the session itself is created after the first frame by the
:class:`~pitui.ui.controllers.launcher.Launcher`.
"""

from __future__ import annotations

import gc
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from pitui import paths
from pitui.ui.app import PituiApp
from pitui.ui.controllers.launcher import DEMO_HINT, Launcher
from pitui.ui.controllers.tmux_keys import EarlyTmuxQuery
from pitui.ui.css_cache import CssCache
from pitui.ui.live.first_run import first_run_facts, first_run_listing
from pitui.ui.live.snapshot import info_of, listing_of, snapshot_key, stored_entry
from pitui.ui.theme import discover_themes
from pitui.ui.view.session_info import SessionInfo

if TYPE_CHECKING:
    import argparse  # the TUI's flags may come without it (pitui.cli)


def run(args: argparse.Namespace) -> int:
    """Entry point of the TUI mode (called by ``pitui.cli``)."""
    # No collection before the first frame (a full pass over Textual's objects is ~20 ms;
    # pitui.cli already paused it for the imports); what was imported so far is set aside
    # until then, so the first young collection after it does not walk every module
    # object either.
    gc.freeze()
    gc.disable()
    app = create_app(args)
    app.run()
    if app.closing_error is not None:
        from pitui.core.sanitize import inert

        print(f"pitui: {inert(str(app.closing_error))}", file=sys.stderr)
        return 1
    return 0


def create_app(args: argparse.Namespace, cwd: Path | None = None) -> PituiApp:
    """The app for ``args``; the session is created after the first frame."""
    tmux = EarlyTmuxQuery()  # first: it answers while Textual loads
    where = cwd or Path.cwd()
    theme = getattr(args, "theme", None) or peek_theme(where) or "dark"
    key = snapshot_key(args, where)
    branch = read_git_branch(where)
    entry = stored_entry(key)  # the snapshot file, read once
    known, listing = info_of(entry, where), listing_of(entry)
    if known is None and key is not None:  # a first start here: nothing configured?
        known = first_run_facts(args, where)
        listing = first_run_listing(where) if known is not None else None
    info = replace(known or SessionInfo(cwd=str(where)), git_branch=branch)
    app = PituiApp(themes=discover_themes(), theme_name=theme, info=info, css_cache=CssCache.load())
    app.new_session = key is not None
    # The last start with these facts ran the demo model (or nothing is configured at all):
    # its notice is in the first frame, not ~0.2 s later when the session attaches (the
    # launcher checks it then).
    demo_shown = info.demo and not getattr(args, "model", None)
    if demo_shown:
        app.early_notices.append(DEMO_HINT)
    app.startup_listing = listing
    launcher = Launcher(
        args, where, snapshot=key, git_branch=branch, demo_shown=demo_shown, tmux=tmux
    )
    app.early_notice_sources.append(launcher.early_tmux_warning)
    app.startup = launcher.start
    return app


def peek_theme(cwd: Path) -> str | None:
    """The ``theme`` setting (project over global), read cheaply before the first frame."""
    found: str | None = None
    for path in (paths.settings_file(), paths.project_settings_file(cwd)):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        value = data.get("theme") if isinstance(data, dict) else None
        if isinstance(value, str) and value:
            found = value
    return found


def read_git_branch(cwd: Path) -> str | None:
    """The current git branch of ``cwd`` (``detached`` for a detached HEAD): read from
    ``.git/HEAD``, a file or two: cheap enough for the first frame."""
    for folder in (cwd, *cwd.parents):
        dot_git = folder / ".git"
        try:
            if dot_git.is_file():  # a worktree or submodule: "gitdir: <path>"
                text = dot_git.read_text(encoding="utf-8").strip()
                if not text.startswith("gitdir:"):
                    return None
                dot_git = (folder / text[len("gitdir:") :].strip()).resolve()
            elif not dot_git.is_dir():
                continue
            head = (dot_git / "HEAD").read_text(encoding="utf-8").strip()
        except OSError:
            return None
        prefix = "ref: refs/heads/"
        return head[len(prefix) :] if head.startswith(prefix) else "detached"
    return None
