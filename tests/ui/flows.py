"""Helpers for the flow tests: the real app, a real AgentSession, a temp project."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from textual.pilot import Pilot

from pitui import paths
from pitui.cli import build_parser
from pitui.ui.app import PituiApp
from pitui.ui.launch import create_app
from pitui.ui.screens.approval import ApprovalScreen
from pitui.ui.widgets.composer import Composer
from tests.ui.harness import ready

T = TypeVar("T")
CONFIG_TS = "export const port = 3000;\n"


def make_project(root: Path) -> Path:
    """A small project: ``src/config.ts``."""
    (root / "src").mkdir(parents=True)
    (root / "src" / "config.ts").write_text(CONFIG_TS)
    return root


def launch(project: Path, *argv: str) -> PituiApp:
    """The app ``pitui <argv>`` would run in ``project`` (built-in themes only)."""
    app = create_app(build_parser().parse_args(list(argv)), cwd=project)
    return app


async def wait_for(
    pilot: Pilot[None], predicate: Callable[[], object], what: str, limit: float = 10.0
) -> None:
    """Pause until ``predicate()`` is true (fails the test after ``limit`` seconds)."""
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.02)


async def started(pilot: Pilot[None]) -> PituiApp:
    """Wait until the session is attached."""
    app = pilot.app
    assert isinstance(app, PituiApp)
    await wait_for(pilot, lambda: app.live is not None and app.bridge is not None, "the session")
    return app


async def submit(pilot: Pilot[None], text: str, key: str = "enter") -> None:
    """Type ``text`` into the composer and send it."""
    await ready(pilot)
    composer = pilot.app.query_one(Composer)
    composer.load_text(text)
    await pilot.press(key)


async def approval(pilot: Pilot[None], *, armed: bool = True) -> ApprovalScreen:
    """Wait for the approval modal (and, with ``armed``, for its choices to arm); return it."""
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ApprovalScreen), "the modal")
    screen = pilot.app.screen
    assert isinstance(screen, ApprovalScreen)
    if armed:
        await wait_for(pilot, lambda: screen.armed, "the modal's keys to arm")
    await pilot.pause()
    return screen


async def idle(pilot: Pilot[None], limit: float = 10.0) -> None:
    """Wait until the run has ended and the view has caught up."""
    app = pilot.app
    assert isinstance(app, PituiApp)
    live = app.live

    def done() -> bool:
        return live is not None and not live.busy and not app.chat.busy

    await wait_for(pilot, done, "the run to end", limit)
    await pilot.pause(0.05)


def items_of(app: PituiApp, kind: type[T]) -> list[T]:
    """The chat items of one type, in order."""
    return [i for i in app.chat.items if isinstance(i, kind)]


def write_models_json(base_url: str) -> None:
    """A custom provider ``fake-anthropic`` pointed at the replay server."""
    config = {
        "providers": {
            "fake-anthropic": {
                "baseUrl": base_url,
                "api": "anthropic-messages",
                "apiKey": "sk-test-not-a-real-key",
                "models": [{"id": "fake-claude", "contextWindow": 200000, "maxTokens": 16384}],
            }
        }
    }
    paths.models_file().parent.mkdir(parents=True, exist_ok=True)
    paths.models_file().write_text(json.dumps(config))
