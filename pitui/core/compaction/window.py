"""Compaction settings fitted to a model's context window (small local models).

pi compacts when the context leaves less than ``reserveTokens`` (16,384) free. With a
window at or below that (an 8k local model) the threshold is zero or negative and every
turn compacts; with a window just above it (16.4k) the threshold is a few tokens. And a
``keepRecentTokens`` (20,000) larger than the threshold keeps everything, so a compaction
summarises nothing (and is refused) or next to nothing (and the next turn compacts again).

:func:`fit_to_window` keeps pi's settings whenever they leave room for a conversation and
otherwise clamps them to shares of the window: the conversation may fill at least
:data:`MIN_CONVERSATION_SHARE` of it, and a compaction keeps at most half the threshold
verbatim. The result says what it changed, for a one-time notice.
"""

from __future__ import annotations

import msgspec

from pitui.core.settings import CompactionSettings

MIN_CONVERSATION_SHARE = 0.5
"""Share of the window the conversation may fill before a compaction is due, at least."""
MAX_KEEP_SHARE = 0.5
"""Share of the threshold a compaction keeps verbatim, at most."""


class FittedSettings(msgspec.Struct, frozen=True):
    """Settings for one window, and what was changed (None: pi's settings as they are)."""

    settings: CompactionSettings
    window: int
    notice: str | None = None

    @property
    def threshold(self) -> int:
        """Context size above which a compaction is due."""
        return self.window - self.settings.reserve_tokens


def fit_to_window(settings: CompactionSettings, window: int) -> FittedSettings:
    """``settings`` for a model with ``window`` tokens of context (0: unknown, unchanged)."""
    if window <= 0:
        return FittedSettings(settings, window)
    reserve, keep = settings.reserve_tokens, settings.keep_recent_tokens
    floor = int(window * MIN_CONVERSATION_SHARE)
    if window - reserve < floor:
        reserve = window - floor
    threshold = window - reserve
    keep = min(keep, max(1, int(threshold * MAX_KEEP_SHARE)))
    if (reserve, keep) == (settings.reserve_tokens, settings.keep_recent_tokens):
        return FittedSettings(settings, window)
    fitted = settings.model_copy(update={"reserve_tokens": reserve, "keep_recent_tokens": keep})
    return FittedSettings(fitted, window, _notice(settings, window, threshold, keep))


def _notice(settings: CompactionSettings, window: int, threshold: int, keep: int) -> str:
    return (
        f"Context window of {window:,} tokens is small for the compaction settings "
        f"(reserveTokens {settings.reserve_tokens:,}, keepRecentTokens "
        f"{settings.keep_recent_tokens:,}): compacting at {threshold:,} tokens and keeping "
        f"the last {keep:,}."
    )
