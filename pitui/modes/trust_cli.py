"""``pitui trust [DIR] [--revoke | --status]``: decide project trust from the shell.

The same decision the TUI asks for (:mod:`pitui.core.trust`, kept in the pitui home):
whether a project's skills and prompt templates are loaded. ``--trust-project`` allows
them for one run only; this remembers the answer.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

from pitui.core.resources.loader import load_resources
from pitui.core.trust import PROJECT_RESOURCES, load_trust


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pitui trust",
        description="Trust a project's skills and prompt templates (remembered in the pitui "
        "home), refuse them, or show the decision.",
    )
    parser.add_argument("directory", nargs="?", default=".", help="the project (default: .)")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--revoke", action="store_true", help="do not load them (remembered)")
    group.add_argument("--status", action="store_true", help="show the decision and exit")
    return parser


async def _run(folder: Path, revoke: bool, status: bool) -> int:
    store = await load_trust()
    if status:
        decision = store.closest_decision(folder, PROJECT_RESOURCES)
        shown = {True: "trusted", False: "not trusted", None: "not decided"}[decision]
        found = await load_resources(folder, trusted=False)
        print(f"{folder}: {shown}; {len(found.skipped)} project skill/template file(s)")
        return 0
    await store.decide(folder, PROJECT_RESOURCES, not revoke)
    verb = "will not be loaded" if revoke else "will be loaded"
    print(f"{folder}: its skills and prompt templates {verb}.")
    return 0


def main(argv: Sequence[str]) -> int:
    """Entry point from :mod:`pitui.cli`."""
    args = _parser().parse_args(list(argv))
    folder = Path(args.directory).expanduser().resolve()
    if not folder.is_dir():
        print(f"pitui trust: not a folder: {folder}", file=sys.stderr)
        return 2
    return asyncio.run(_run(folder, args.revoke, args.status))
