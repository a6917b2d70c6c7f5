"""Which sandboxes this machine has, for tests that need one (skipped with the reason if none)."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import pytest

from pitui.core.sandbox import SandboxKind, bwrap_works, landlock_abi

LANDLOCK_ABI = landlock_abi()
HAS_BWRAP = asyncio.run(bwrap_works())
NONE_REASON = (
    "no sandbox on this machine: the kernel has no Landlock and bwrap is absent or cannot "
    "create user namespaces (apt-get install bubblewrap)"
)


def backends() -> list[object]:
    """``landlock`` and ``bwrap`` as pytest params, each skipped with a reason when missing."""
    found: list[tuple[SandboxKind, bool, str]] = [
        ("landlock", LANDLOCK_ABI >= 1, "the kernel has no Landlock"),
        ("bwrap", HAS_BWRAP, "bwrap is not installed or cannot sandbox here"),
    ]
    return [
        pytest.param(kind, marks=[] if ok else [pytest.mark.skip(reason=why)], id=kind)
        for kind, ok, why in found
    ]


needs_a_sandbox = pytest.mark.skipif(LANDLOCK_ABI < 1 and not HAS_BWRAP, reason=NONE_REASON)


def _namespaces() -> bool:
    """True if the Landlock launcher can make its private mount namespace here."""
    from pitui.core.sandbox import namespace_problem, writable_places
    from pitui.core.settings import SandboxSettings

    if LANDLOCK_ABI < 1:
        return False
    places = writable_places(Path(tempfile.gettempdir()), SandboxSettings())
    problem = asyncio.run(namespace_problem(places))
    if problem is not None:
        print(f"sandbox tests: no mount namespace for Landlock ({problem})")
    return problem is None


NAMESPACES = _namespaces()
"""Landlock's launcher has a private mount namespace here (bubblewrap always has one)."""
