"""The tmux keyboard warning (issue 22 item 12): pi's rule and wording of the fix."""

from __future__ import annotations

import pytest

from pitui.ui.controllers.tmux_keys import tmux_keyboard_warning, warning_for


@pytest.mark.parametrize(
    ("keys", "fmt", "says"),
    [
        ("off", None, "set -g extended-keys on"),
        ("on", "xterm", "set -g extended-keys-format csi-u"),
        ("always", "csi-u", None),
        ("on", None, None),  # tmux 3.3 has no extended-keys-format
        (None, None, None),  # tmux could not be asked: no warning
    ],
)
def test_warning_for(keys: str | None, fmt: str | None, says: str | None) -> None:
    text = warning_for(keys, fmt)
    assert (text is None) if says is None else (text is not None and says in text)


async def test_outside_tmux_nothing_is_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TMUX", raising=False)
    assert await tmux_keyboard_warning() is None
