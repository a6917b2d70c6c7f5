"""What pitui says at startup about a sandbox that cannot contain everything, and which
backend it picks when Landlock has no mount namespace."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pitui.core import sandbox
from pitui.core.sandbox import Sandbox, find_sandbox
from pitui.core.sandbox_rules import has_seccomp_filter
from pitui.core.settings import SandboxSettings
from tests.core.sandbox_support import HAS_BWRAP, LANDLOCK_ABI


def test_a_complete_sandbox_says_nothing() -> None:
    assert sandbox._gaps(7, None) is None


def test_an_old_abi_and_no_namespace_are_named() -> None:
    notice = sandbox._gaps(5, "unshare: Operation not permitted", unix_open=True)
    assert notice is not None
    assert "unshare: Operation not permitted: .git and .pitui stay writable" in notice
    assert "outside unix sockets can be reached" in notice
    assert "Landlock ABI 5 (<6): commands can signal your other processes and reach" in notice


@pytest.mark.skipif(
    not has_seccomp_filter(os.uname().machine), reason="no seccomp filter for this machine"
)
def test_with_unix_sockets_refused_no_notice_says_they_can_be_reached() -> None:
    notice = sandbox._gaps(5, "unshare: Operation not permitted")
    assert notice is not None and "unix sockets" not in notice


@pytest.mark.skipif(LANDLOCK_ABI < 1, reason="the kernel has no Landlock")
async def test_without_a_namespace_bwrap_is_preferred_and_landlock_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def refused(_places: tuple[str, ...]) -> str:
        return "user namespaces refused"

    monkeypatch.setattr(sandbox, "namespace_problem", refused)
    found = await find_sandbox(tmp_path, SandboxSettings())
    assert isinstance(found, Sandbox)
    if HAS_BWRAP:
        assert found.kind == "bwrap"
    forced = await find_sandbox(tmp_path, SandboxSettings(backend="landlock"))
    assert isinstance(forced, Sandbox) and forced.kind == "landlock"
    assert not forced.namespaces
    assert forced.notice is not None and "user namespaces refused" in forced.notice
