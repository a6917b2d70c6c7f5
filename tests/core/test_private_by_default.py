"""Private by default: 0600 files, 0700 folders, and API keys hidden in tool output."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from pitui import paths
from pitui.agent.tool import AgentToolResult
from pitui.ai.keys import AuthStorage
from pitui.ai.types import TextContent, ToolResultMessage
from pitui.core.messages import BashExecutionMessage
from pitui.core.redaction import SecretRedactor
from pitui.core.session_setup import SessionOptions, create_agent_session
from pitui.core.settings import update_global_settings
from pitui.core.tools.bash_output import OutputCollector
from pitui.core.tools.truncate import DEFAULT_MAX_BYTES

KEY = "sk-ant-secret-value-1234567890"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def _chat(cwd: Path, **options: Any) -> Path:
    """One demo exchange in a fresh session (``**options``: SessionOptions); its file."""
    session = await create_agent_session(SessionOptions(cwd=cwd, model="demo/demo", **options))
    await session.prompt("hello")
    await session.close()
    assert session.session_file is not None
    return session.session_file


@pytest.fixture(autouse=True)
def _fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")


async def test_session_files_are_0600_in_0700_folders(pitui_home: Path, tmp_path: Path) -> None:
    file = await _chat(tmp_path)
    assert mode(file) == 0o600
    assert mode(file.parent) == 0o700
    assert mode(paths.sessions_dir()) == 0o700
    assert mode(pitui_home) == 0o700


async def test_existing_wide_files_and_folders_are_tightened_on_write(tmp_path: Path) -> None:
    folder = tmp_path / "shared-sessions"
    file = await _chat(tmp_path, session_dir=folder)
    os.chmod(file, 0o644)
    os.chmod(folder, 0o755)
    again = await _chat(tmp_path, session_file=file, session_dir=folder)
    assert again == file
    assert mode(file) == 0o600 and mode(folder) == 0o700


async def test_the_home_is_tightened_when_settings_are_written(pitui_home: Path) -> None:
    os.makedirs(pitui_home)
    os.chmod(pitui_home, 0o755)
    assert await update_global_settings({"theme": "dark"}) is None
    assert mode(pitui_home) == 0o700 and mode(paths.settings_file()) == 0o600


async def test_bash_spill_files_are_private() -> None:
    output = OutputCollector()
    await output.add(b"x" * (DEFAULT_MAX_BYTES + 10))
    await output.close()
    assert output.full_output_path is not None
    spill = Path(output.full_output_path)
    assert mode(spill) == 0o600
    os.unlink(spill)


async def test_known_keys_from_env_auth_and_models_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-openai-0000000001")
    monkeypatch.setenv("MY_GATEWAY_KEY", "gw-from-named-variable-02")
    auth = AuthStorage({"anthropic": {"type": "api_key", "key": "sk-auth-file-key-000003"}})
    auth.set_configured_keys({"local": "literal-models-json-key-04", "gw": "MY_GATEWAY_KEY"})
    redactor = SecretRedactor(auth.known_secrets)
    text = (
        "sk-env-openai-0000000001 sk-auth-file-key-000003 "
        "literal-models-json-key-04 gw-from-named-variable-02 MY_GATEWAY_KEY"
    )
    assert redactor.text(text) == "*** *** *** *** MY_GATEWAY_KEY"


def test_details_are_redacted_too() -> None:
    redactor = SecretRedactor(lambda: [KEY])
    result = AgentToolResult(
        content=[TextContent(text=f"ANTHROPIC_API_KEY={KEY}")],
        details={"truncation": {"content": f"..{KEY}.."}, "n": 3},
    )
    clean = redactor.tool_result(result)
    assert clean.content == [TextContent(text="ANTHROPIC_API_KEY=***")]
    assert clean.details == {"truncation": {"content": "..***.."}, "n": 3}


async def test_env_in_a_bash_result_never_shows_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    options = SessionOptions(cwd=tmp_path, model="demo/demo", approve="all")
    session = await create_agent_session(options)
    seen: list[str] = []
    session.subscribe(lambda event: seen.append(json.dumps(event.to_json_dict())))
    await session.prompt("run env")
    await session.run_bash("echo $ANTHROPIC_API_KEY")
    await session.close()
    result = next(m for m in session.messages if isinstance(m, ToolResultMessage))
    block = result.content[0]
    assert isinstance(block, TextContent) and "ANTHROPIC_API_KEY=***" in block.text
    bash = next(m for m in session.messages if isinstance(m, BashExecutionMessage))
    assert bash.output == "***\n"
    assert session.session_file is not None
    stored = session.session_file.read_text()
    assert KEY not in stored and "ANTHROPIC_API_KEY=***" in stored
    assert seen and not any(KEY in line for line in seen)  # shown: events, incl. updates
