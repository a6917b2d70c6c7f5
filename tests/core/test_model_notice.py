"""A session whose model pitui does not know (issue 22 item 18): start-up, ``/resume``
and ``pitui session import`` name the model and say it is not configured."""

from __future__ import annotations

from pathlib import Path

import pytest

from pitui.ai.models import ModelRegistry
from pitui.core.session_events import SessionNoticeEvent
from pitui.core.session_setup import SessionOptions, create_agent_session
from tests.core.session.helpers import HEADER, assistant, entry, jsonl
from tests.modes.loopback import run_pitui

NOTICE = (
    "This session used the model anthropic/claude-unknown-9, which is not configured here "
    "(pitui's catalogue and models.json do not have it); using demo/demo."
)


@pytest.fixture(autouse=True)
def fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")


def _pi_session(tmp_path: Path) -> Path:
    path = tmp_path / "from-pi.jsonl"
    change = entry("m1", None, "model_change", provider="anthropic", modelId="claude-unknown-9")
    reply = assistant("hi", model="claude-unknown-9")
    path.write_bytes(jsonl([HEADER, change, entry("u1", "m1"), entry("a1", "u1", message=reply)]))
    return path


async def test_starting_on_it_says_which_model_is_missing(tmp_path: Path) -> None:
    options = SessionOptions(
        cwd=tmp_path, registry=ModelRegistry(), session_file=_pi_session(tmp_path), read_only=True
    )
    session = await create_agent_session(options)
    assert NOTICE in options.warnings
    await session.close()


async def test_resume_says_which_model_is_missing(tmp_path: Path) -> None:
    options = SessionOptions(
        cwd=tmp_path, registry=ModelRegistry(), session_dir=tmp_path / "s", model="demo/demo"
    )
    session = await create_agent_session(options)
    seen: list[str] = []
    session.subscribe(
        lambda event: seen.append(event.message) if isinstance(event, SessionNoticeEvent) else None
    )
    await session.resume(_pi_session(tmp_path))
    assert NOTICE in seen
    await session.close()


def test_import_and_print_mode_say_it(tmp_path: Path) -> None:
    source = _pi_session(tmp_path)
    imported = run_pitui(tmp_path, "session", "import", str(source))
    assert imported.returncode == 0, imported.stderr
    assert NOTICE.removesuffix("; using demo/demo.") + "." in imported.stdout
    printed = run_pitui(tmp_path, "-p", "--session", str(source), "hello")
    assert printed.returncode == 0, printed.stderr
    assert NOTICE in printed.stderr
