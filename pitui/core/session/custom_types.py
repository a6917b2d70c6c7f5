"""The ``customType`` names of pitui's own ``custom`` entries (pi keeps them, never sends
them), shared by the session views and the features that write them."""

from __future__ import annotations

CHECKPOINT_TYPE = "pitui.checkpoint"
"""A checkpoint of the project's files (see :mod:`pitui.core.checkpoints`)."""
