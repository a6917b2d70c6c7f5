"""Compaction settings fitted to small context windows."""

from __future__ import annotations

import pytest

from pitui.core.compaction.window import fit_to_window
from pitui.core.settings import CompactionSettings


@pytest.mark.parametrize("window", [0, 64_000, 128_000, 200_000, 1_000_000])
def test_pi_settings_stay_as_they_are_where_they_leave_room(window: int) -> None:
    fitted = fit_to_window(CompactionSettings(), window)
    assert fitted.settings == CompactionSettings() and fitted.notice is None
    if window:
        assert fitted.threshold == window - 16384


@pytest.mark.parametrize(
    ("window", "threshold", "keep"),
    [
        (4096, 2048, 1024),
        (8192, 4096, 2048),
        (16384, 8192, 4096),  # window == reserve: pi's threshold would be 0
        (16400, 8200, 4100),  # 16 tokens in pi
        (32768, 16384, 8192),  # the reserve is kept; keeping 20,000 would exceed the threshold
        (40000, 23616, 11808),
    ],
)
def test_small_windows_compact_at_half_and_keep_at_most_half_the_threshold(
    window: int, threshold: int, keep: int
) -> None:
    fitted = fit_to_window(CompactionSettings(), window)
    assert (fitted.threshold, fitted.settings.keep_recent_tokens) == (threshold, keep)
    assert fitted.notice is not None and f"compacting at {threshold:,} tokens" in fitted.notice
    assert fitted.settings.enabled


def test_the_threshold_never_drops_below_half_the_window() -> None:
    for window in range(1, 70_000, 997):
        fitted = fit_to_window(CompactionSettings(reserve_tokens=30_000), window)
        assert fitted.threshold >= window // 2
        assert 1 <= fitted.settings.keep_recent_tokens <= max(1, fitted.threshold // 2)
