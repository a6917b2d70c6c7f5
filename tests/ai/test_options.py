"""StreamOptions defaults."""

from __future__ import annotations

import pytest

from pitui.ai.options import StreamOptions


def test_cache_retention_defaults_to_short(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PI_CACHE_RETENTION", raising=False)
    assert StreamOptions().cache_retention == "short"


def test_pi_cache_retention_long_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_CACHE_RETENTION", "long")
    assert StreamOptions().cache_retention == "long"
