"""What can go wrong with checkpoints, as errors a user reads (no import cost)."""

from __future__ import annotations

from pitui.errors import PituiError


class CheckpointError(PituiError):
    """The shadow store cannot be used (git missing or too old, a git command failed)."""

    title = "Checkpoints"


class TooManyFiles(CheckpointError):
    """The project holds more files than ``checkpoints.maxFiles``."""
