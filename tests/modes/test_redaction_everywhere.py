"""Every configured secret is redacted wherever tool output goes (issue 21 item 13).

A real ``pitui -p --approve all`` against a loopback Anthropic server whose model runs a
bash command printing more than 50 KB (so a spill file is written) and then the
provider's API key and two models.json ``headers`` values (one literal, one from an
environment variable). None of them may reach the model's next request, the session
file, the export or ``$TMPDIR/pi-bash-*.log``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pitui.core.redaction import StreamRedactor
from tests.e2e.anthropic_script import anthropic_sse
from tests.modes.loopback import run_pitui
from tests.replay_server import ReplayServer, Reply

API_KEY = "sk-loop-api-key-000111"
HEADER_SECRET = "literal-hdr-secret-0001"
ENV_HEADER_SECRET = "env-hdr-secret-0002"
SECRETS = (API_KEY, HEADER_SECRET, ENV_HEADER_SECRET)


def test_keys_and_header_values_never_leave_through_tool_output(
    tmp_path: Path, pitui_home: Path, replay_server: ReplayServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    command = (
        "head -c 60000 /dev/zero | tr '\\0' x; echo; "
        'cat "$PITUI_HOME/models.json"; echo; printenv MY_HDR_SECRET'
    )
    call = {"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}
    replay_server.add(Reply(anthropic_sse(call, "m1")), Reply(anthropic_sse({"text": "ok"}, "m2")))
    pitui_home.mkdir()
    headers = {"X-Custom-Auth": HEADER_SECRET, "X-Env-Auth": "MY_HDR_SECRET"}
    provider = {
        "baseUrl": replay_server.url, "apiKey": API_KEY, "api": "anthropic-messages",
        "headers": headers, "models": [{"id": "tiny"}],
    }  # fmt: skip
    (pitui_home / "models.json").write_text(json.dumps({"providers": {"loop": provider}}))
    temp = tmp_path / "tmp"
    temp.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.setenv("MY_HDR_SECRET", ENV_HEADER_SECRET)
    monkeypatch.setenv("TMPDIR", str(temp))
    result = run_pitui(project, "-p", "--approve", "all", "--model", "loop/tiny", "go")
    assert result.returncode == 0, result.stderr
    # The headers were really sent (so they are configured secrets, not dead config).
    first = {k.lower(): v for k, v in replay_server.requests[0].headers.items()}
    assert first.get("x-custom-auth") == HEADER_SECRET
    assert first.get("x-env-auth") == ENV_HEADER_SECRET
    (spill,) = temp.glob("pi-bash-*.log")
    (session,) = (pitui_home / "sessions").rglob("*.jsonl")
    second_request = replay_server.requests[1].body.decode()
    export = tmp_path / "out.md"
    assert run_pitui(project, "--export", str(session), str(export)).returncode == 0
    places = {
        "spill file": spill.read_text(),
        "session file": session.read_text(),
        "next request": second_request,
        "export": export.read_text(),
        "stdout": result.stdout + result.stderr,
    }
    assert "***" in places["spill file"] and "***" in places["next request"]
    for where, text in places.items():
        for secret in SECRETS:
            assert secret not in text, (where, secret)


def test_a_key_split_across_chunks_is_still_redacted() -> None:
    key = "split-secret-key-42"
    data = b"a" * 10 + key.encode() + b"\xff\xfe tail " + key.encode()
    for size in (1, 2, 3, 5, 7, 18, 19, 64):
        redactor = StreamRedactor([key, "other-secret-xyz"])
        out = b"".join(redactor.feed(data[i : i + size]) for i in range(0, len(data), size))
        out += redactor.finish()
        assert out == b"a" * 10 + b"***\xff\xfe tail ***", size
    assert StreamRedactor([]).feed(b"as is") == b"as is"
