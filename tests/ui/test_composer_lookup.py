"""One lookup of the composer: controllers and commands go through
``MainScreen.composer``, not a ``query_one(Composer)`` of their own."""

from __future__ import annotations

import re
from pathlib import Path

UI = Path(__file__).parents[2] / "pitui" / "ui"
OWN_LOOKUP = re.compile(r"\.query(?:_one)?\(\s*Composer\b")


def test_no_controller_or_command_queries_the_composer_itself() -> None:
    found = [
        f"{path.relative_to(UI)}:{n}"
        for folder in ("controllers", "commands")
        for path in sorted((UI / folder).glob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if OWN_LOOKUP.search(line)
    ]
    assert found == []
