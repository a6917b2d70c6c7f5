"""``/permissions``: the remembered approvals are listed and removed for real."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList, Static

from pitui.core.approval_store import read_approvals
from pitui.core.permissions import ApprovalRequest
from pitui.ui.screens.permissions import EMPTY, PermissionsScreen
from tests.ui.command_support import (
    make_app,
    make_session,
    no_local_ollama,  # noqa: F401  (autouse fixture)
    settle,
    submit,
    wait_until,
)


@pytest.fixture(autouse=True)
def fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")


def _labels(screen: PermissionsScreen) -> list[str]:
    options = screen.query_one(OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def test_permissions_lists_rules_and_removes_the_selected_one(tmp_path: Path) -> None:
    session = await make_session(tmp_path)
    gate = session.gate
    for command, rule in (("npm test", None), ("npm run build", "npm run *")):
        request = ApprovalRequest("c", "bash", {"command": command}, "", always_rule=command)
        assert await gate.remember(request, rule)
    app = make_app(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await submit(pilot, "/permissions")
        await wait_until(pilot, lambda: isinstance(app.screen, PermissionsScreen), "the panel")
        screen = app.screen
        assert isinstance(screen, PermissionsScreen)
        assert _labels(screen) == ["bash: npm test", "bash: npm run *"]
        policy = str(screen.query_one("#permissions-policy", Static).content)
        assert policy.startswith("Policy: ")
        await pilot.press("down", "delete")
        await settle(pilot)
        assert _labels(screen) == ["bash: npm test"]
        await pilot.press("d")
        await settle(pilot)
        assert _labels(screen) == [EMPTY]
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, PermissionsScreen)
    stored, _ = read_approvals(tmp_path)
    assert stored.commands == [] and stored.prefixes == []
    assert gate.policy.verdict("bash", {"command": "npm test"})[0] == "ask"
    await session.close()
