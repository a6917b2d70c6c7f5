"""A real HTTP server on 127.0.0.1 that replays recorded provider responses.

Provider clients are tested against this, not against mocks: each test queues replies
(status, headers, body, pacing, a dropped connection) and reads back the requests the
client really sent.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"


@dataclass
class Reply:
    """One scripted HTTP response."""

    body: bytes = b""
    status: int = 200
    content_type: str = "text/event-stream; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    chunk_size: int = 0
    """Send the body in pieces of this many bytes (0: all at once)."""
    delay_s: float = 0.0
    """Pause between pieces."""
    drop_after: int | None = None
    """Send only this many bytes, then close the socket without finishing."""
    hang_after: int | None = None
    """Send this many bytes, then keep the connection open until the server stops."""
    keep_alive: bytes = b""
    """While hanging, send this (an SSE comment or ``ping`` event) every ``keep_alive_s``."""
    keep_alive_s: float = 0.2

    @classmethod
    def sse_file(cls, name: str, **kwargs: Any) -> Reply:
        """A 200 event stream whose body is the fixture ``providers/<name>``."""
        return cls(body=(FIXTURES / "providers" / name).read_bytes(), **kwargs)

    @classmethod
    def json_error(cls, status: int, name_or_body: str | dict[str, Any], **kwargs: Any) -> Reply:
        """An error response with a JSON body (a fixture name or a dict)."""
        if isinstance(name_or_body, dict):
            body = json.dumps(name_or_body).encode()
        else:
            body = (FIXTURES / "providers" / name_or_body).read_bytes()
        return cls(body=body, status=status, content_type="application/json", **kwargs)


@dataclass
class RecordedRequest:
    """What the client sent."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    received_at: float = field(default_factory=time.monotonic)
    """When it arrived (``time.monotonic``): how long a client waited before a retry."""

    def json(self) -> Any:
        """The request body parsed as JSON."""
        return json.loads(self.body)


class ReplayServer:
    """Serves queued :class:`Reply` objects in order; records every request."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.bytes_sent = 0
        """Body bytes written so far, over all replies (to wait for a reply to be under way)."""
        self._replies: list[Reply] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        """Base URL, e.g. ``http://127.0.0.1:43210``."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def add(self, *replies: Reply) -> ReplayServer:
        """Queue replies; each request takes the next one."""
        with self._lock:
            self._replies.extend(replies)
        return self

    def start(self) -> ReplayServer:
        self._thread.start()
        return self

    def wait_sent(self, count: int, timeout: float = 30.0) -> None:
        """Block until at least ``count`` body bytes have gone out (fail after ``timeout``)."""
        deadline = time.monotonic() + timeout
        while self.bytes_sent < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"only {self.bytes_sent} of {count} bytes were sent")
            time.sleep(0.01)

    def stop(self) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def _next_reply(self) -> Reply:
        with self._lock:
            if self._replies:
                return self._replies.pop(0)
        return Reply.json_error(500, {"error": {"message": "replay server: no reply queued"}})

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._serve(b"")

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                self._serve(self.rfile.read(length))

            def _serve(self, body: bytes) -> None:
                server.requests.append(
                    RecordedRequest(self.command, self.path, dict(self.headers.items()), body)
                )
                reply = server._next_reply()
                self.send_response(reply.status)
                self.send_header("content-type", reply.content_type)
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                if reply.drop_after is None and reply.hang_after is None:
                    self.send_header("content-length", str(len(reply.body)))
                else:
                    self.send_header("connection", "close")
                self.end_headers()
                self._write_body(reply)

            def _write_body(self, reply: Reply) -> None:
                data = reply.body
                limit = reply.drop_after if reply.drop_after is not None else reply.hang_after
                if limit is not None:
                    data = data[:limit]
                step = reply.chunk_size or len(data) or 1
                try:
                    for start in range(0, len(data), step):
                        self.wfile.write(data[start : start + step])
                        self.wfile.flush()
                        server.bytes_sent += len(data[start : start + step])
                        if reply.delay_s:
                            time.sleep(reply.delay_s)
                    if reply.hang_after is not None:
                        self._hang(reply)
                except (BrokenPipeError, ConnectionResetError):
                    return
                if limit is not None:
                    self.close_connection = True

            def _hang(self, reply: Reply) -> None:
                deadline = time.monotonic() + 30
                interval = reply.keep_alive_s if reply.keep_alive else 30
                while time.monotonic() < deadline and not server._stopping.wait(interval):
                    if reply.keep_alive:
                        self.wfile.write(reply.keep_alive)
                        self.wfile.flush()

        return Handler


def write_fake_anthropic_models(
    base_url: str, model: str = "claude-fake", **fields: object
) -> None:
    """A ``models.json`` in the pitui home with provider ``fake`` (Anthropic Messages API)
    at ``base_url``: select it with ``fake/<model>`` (``fields``: more of the model's keys,
    e.g. ``contextWindow``)."""
    import json

    from pitui import paths

    provider = {
        "baseUrl": base_url,
        "api": "anthropic-messages",
        "apiKey": "sk-fake-key-123456",
        "models": [{"id": model, **fields}],
    }
    paths.models_file().parent.mkdir(parents=True, exist_ok=True)
    paths.models_file().write_text(json.dumps({"providers": {"fake": provider}}))
