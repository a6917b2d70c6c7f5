"""The reducer's fast ``replace`` behaves like ``dataclasses.replace`` on the view model."""

from __future__ import annotations

import dataclasses

import pytest

from pitui.ui.view.chat_state import ChatState
from pitui.ui.view.evolve import replace
from pitui.ui.view.state import ToolCardItem


def test_replace_matches_dataclasses_replace() -> None:
    card = ToolCardItem("tool:1", "1", "read", {"path": "a"})
    assert replace(card, state="success", output="x") == dataclasses.replace(
        card, state="success", output="x"
    )
    state = ChatState(seq=3, busy=True)
    new = replace(state, busy=False)
    assert new == dataclasses.replace(state, busy=False) and new is not state
    assert state.busy  # the original is untouched


def test_replace_rejects_unknown_fields() -> None:
    with pytest.raises(TypeError):
        replace(ChatState(), nope=1)
