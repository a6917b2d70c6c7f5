"""Shared fixtures: a loopback replay server and an isolated pitui home."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.replay_server import ReplayServer

ROOT = Path(__file__).resolve().parents[1]

# CI machines are shared and slow at times: a property test is judged by its examples,
# never by how long one took (hypothesis' default 200 ms deadline would make it flaky).
settings.register_profile("pitui", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("pitui")


@pytest.fixture
def replay_server() -> Iterator[ReplayServer]:
    """A real HTTP server on 127.0.0.1 (random port) replaying queued replies."""
    server = ReplayServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def pitui_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own pitui home, no provider keys from the machine, and no
    ``TMUX`` (a suite run inside tmux would give every app its keyboard warning).

    Subprocesses (``python -m pitui``) import this checkout's pitui, not whichever one
    the virtualenv was installed from.
    """
    home = tmp_path / "pitui-home"
    monkeypatch.setenv("PITUI_HOME", str(home))
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    for var in (
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "OPENROUTER_API_KEY",
        "ANTHROPIC_OAUTH_TOKEN",
        "GROQ_API_KEY",
        "DEEPSEEK_API_KEY",
        "TMUX",
    ):
        monkeypatch.delenv(var, raising=False)
    return home
