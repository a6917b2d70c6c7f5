"""Asked once per project: may its skills and prompt templates be loaded?

They are instructions to the model from whoever wrote the repository. The screen lists
what the project ships and dismisses with True (trust), False (do not trust: never
asked again) or None (Esc: not now, asked again next time). The caller records the
answer in the trust store (:mod:`pitui.core.trust`), never in the project.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

LISTED = 8


def trust_listing(project: Path, files: list[Path]) -> str:
    """The files the question is about, relative to the project, a few at most."""
    shown = []
    for path in files[:LISTED]:
        try:
            shown.append(str(path.relative_to(project)))
        except ValueError:
            shown.append(str(path))
    more = len(files) - len(shown)
    lines = [f"  {name}" for name in shown]
    if more > 0:
        lines.append(f"  … and {more} more")
    return "\n".join(lines)


class TrustDialog(ModalScreen[bool | None]):
    """``y`` trust, ``n`` do not trust, Esc decide later."""

    CSS_PATH = "trust.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "trust", show=False, id="trust.yes"),
        Binding("n", "answer(False)", "do not trust", show=False, id="trust.no"),
        Binding("escape", "later", "later", show=False, id="trust.later"),
    ]

    def __init__(self, project: Path, files: list[Path]) -> None:
        super().__init__()
        self.project = project
        self.files = files

    def compose(self) -> ComposeResult:
        with Vertical(id="trust-dialog"):
            yield Static("Trust this project?", id="trust-title")
            yield Static(str(self.project), id="trust-project", markup=False)
            yield Static(
                "It ships skills or prompt templates: instructions the model will follow. "
                "Load them only if you trust whoever wrote this repository.",
                id="trust-why",
            )
            yield Static(trust_listing(self.project, self.files), id="trust-files", markup=False)
            yield Static(
                "y trust (remembered) · n do not trust · Esc decide later", id="trust-hint"
            )

    def action_answer(self, allowed: bool) -> None:
        self.dismiss(allowed)

    def action_later(self) -> None:
        self.dismiss(None)
