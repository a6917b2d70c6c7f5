"""A problem found while loading a skill or a prompt template: reported, never fatal."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import msgspec


class ResourceDiagnostic(msgspec.Struct, frozen=True):
    """One warning about one file (the rest still loads)."""

    kind: Literal["warning", "collision"]
    message: str
    path: Path

    def text(self) -> str:
        """One line for the user: the file, then the problem."""
        return f"{self.path}: {self.message}"
