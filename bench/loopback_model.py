"""A scripted OpenAI Chat Completions server on 127.0.0.1, for benchmarks that time a whole turn.

The scenario is the one a coding agent lives on: the first request gets a ``read`` tool call
for ``notes.txt``, the request that carries its result gets a short answer. Both replies are
streamed as server-sent events, as a real provider sends them, so pitui and pi parse the same
bytes. ``write_agent_dirs`` writes a ``models.json`` for each (the same format) naming the
provider ``loopback`` and the model ``bench-model``.

Run on its own (``python bench/loopback_model.py``) it serves until interrupted and prints
its port.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

PROVIDER = "loopback"
MODEL = "bench-model"
PROMPT = "Read notes.txt and tell me what it says."
NOTES = "The build is green. Ship it on Friday.\n"


def _chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    body = {
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(body)}\n\n".encode()


def _usage() -> bytes:
    body = {
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "model": MODEL,
        "choices": [],
        "usage": {"prompt_tokens": 900, "completion_tokens": 12, "total_tokens": 912},
    }
    return f"data: {json.dumps(body)}\n\n".encode()


READ_CALL: tuple[str, dict[str, Any]] = ("read", {"path": "notes.txt"})


def tool_call_reply(tool: tuple[str, dict[str, Any]] = READ_CALL) -> bytes:
    """Assistant turn 1: a ``read`` call for notes.txt (or the call ``tool`` names)."""
    name, arguments = tool
    call = {
        "index": 0,
        "id": "call_bench_1",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }
    parts = [
        _chunk({"role": "assistant", "content": ""}),
        _chunk({"tool_calls": [call]}),
        _chunk({}, "tool_calls"),
        _usage(),
        b"data: [DONE]\n\n",
    ]
    return b"".join(parts)


def answer_reply() -> bytes:
    """Assistant turn 2: the answer, in a few deltas."""
    words = ["The notes say", " the build is green", " and it ships on Friday."]
    parts = [_chunk({"role": "assistant", "content": ""})]
    parts += [_chunk({"content": w}) for w in words]
    parts += [_chunk({}, "stop"), _usage(), b"data: [DONE]\n\n"]
    return b"".join(parts)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        request = json.loads(self.rfile.read(length) or b"{}")
        roles = [m.get("role") for m in request.get("messages", [])]
        tool = getattr(self.server, "tool", READ_CALL)
        body = answer_reply() if "tool" in roles else tool_call_reply(tool)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return


class LoopbackModel:
    """The server in a background thread; ``base_url`` is what models.json names."""

    def __init__(self, tool: tuple[str, dict[str, Any]] = READ_CALL) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.tool = tool  # type: ignore[attr-defined]  # read by the handler
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> LoopbackModel:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def models_json(base_url: str) -> str:
    """One provider, one model, in the models.json format pi and pitui share."""
    model = {
        "id": MODEL,
        "name": "Bench model",
        "reasoning": False,
        "input": ["text"],
        "contextWindow": 128000,
        "maxTokens": 4096,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
    }
    provider = {
        "baseUrl": base_url,
        "api": "openai-completions",
        "apiKey": "bench-key",
        "models": [model],
    }
    return json.dumps({"providers": {PROVIDER: provider}}, indent=2)


def write_agent_dirs(root: Path, base_url: str) -> dict[str, Path]:
    """A project with notes.txt, a pitui home and a pi agent dir, both naming the server."""
    dirs = {name: root / name for name in ("project", "pitui-home", "pi-agent", "home")}
    for path in dirs.values():
        path.mkdir(parents=True, exist_ok=True)
    (dirs["project"] / "notes.txt").write_text(NOTES)
    for agent in (dirs["pitui-home"], dirs["pi-agent"]):
        (agent / "models.json").write_text(models_json(base_url))
    return dirs


if __name__ == "__main__":
    with LoopbackModel() as served:
        print(served.base_url, flush=True)
        threading.Event().wait()
