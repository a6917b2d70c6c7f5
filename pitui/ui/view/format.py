"""Number and path formatting as pi's footer and tool headers show them."""

from __future__ import annotations

from pitui.core.display import shorten_path as shorten_path


def format_tokens(count: int) -> str:
    """pi's token format: <1000 raw, <10k ``1.2k``, <1M ``12k``, <10M ``1.2M``, else ``12M``."""
    if count < 1000:
        return str(count)
    if count < 10_000:
        return f"{count / 1000:.1f}k"
    if count < 1_000_000:
        return f"{round(count / 1000)}k"
    if count < 10_000_000:
        return f"{count / 1_000_000:.1f}M"
    return f"{round(count / 1_000_000)}M"


def context_percent(tokens: int | None, window: int) -> float | None:
    """Context use in percent of the window, or None when unknown."""
    if tokens is None or window <= 0:
        return None
    return tokens / window * 100


def elapsed_text(seconds: float) -> str:
    """``4.2s`` under a minute, then ``1m 05s``, ``1h 02m``."""
    if seconds < 60:
        return f"{max(0.0, seconds):.1f}s"
    minutes, secs = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m {secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"
