"""Benchmark: the anthropic adapter versus bare ``httpx-sse`` iteration of the same body.

Builds a ~2 MB recorded-style Anthropic stream (one long text block of many small
deltas, with pings and the API's padding), serves it from a loopback HTTP server, and
times (a) iterating it with ``httpx_sse.EventSource`` and nothing else, and (b) running
it through ``pitui.ai.providers.anthropic.stream`` and consuming every event.

Run: ``python bench/sse_parse.py [--size-mb 2] [--rounds 5]``. Target: ratio ≤ 2×.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from multiprocessing.connection import Connection
from typing import Any

import httpx
from httpx_sse import EventSource

from pitui.ai.options import StreamOptions
from pitui.ai.providers.anthropic import stream
from pitui.ai.types import Context, Model, UserMessage

# Mostly ASCII, with the accents, CJK and emoji real replies carry.
_WORDS = [
    "the",
    "model",
    "streams",
    "text",
    "in",
    "small",
    "pieces",
    "so",
    "that",
    "a",
    "reader",
    "sees",
    "it",
    "as",
    "it",
    "is",
    "written",
    "code",
    "`print()`",
    "and",
    "markdown",
    "**bold**",
    "Olá",
    "café",
    "naïve",
    "你好",
    "—",
    "résumé",
    "👋",
]


def _event(data: dict[str, Any], pad: int = 0) -> bytes:
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    # The real API pads some payloads with spaces before the closing brace.
    body = body[:-1] + " " * pad + "}"
    return f"event: {data['type']}\ndata: {body}\n\n".encode()


def build_body(size_bytes: int, seed: int = 7) -> tuple[bytes, int]:
    """A message with one text block whose deltas add up to ~``size_bytes`` of SSE."""
    rng = random.Random(seed)
    start = {
        "type": "message_start",
        "message": {
            "id": "msg_bench",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-20250514",
            "content": [],
            "usage": {"input_tokens": 1200, "output_tokens": 1},
        },
    }
    parts = [
        _event(start),
        _event({"type": "content_block_start", "index": 0, "content_block": {"type": "text"}}),
    ]
    size = sum(map(len, parts))
    deltas = 0
    while size < size_bytes:
        text = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 6))) + " "
        delta = {"type": "text_delta", "text": text}
        chunk = _event(
            {"type": "content_block_delta", "index": 0, "delta": delta}, pad=rng.randint(0, 12)
        )
        if deltas % 200 == 0:
            chunk += b'event: ping\ndata: {"type": "ping"}\n\n'
        parts.append(chunk)
        size += len(chunk)
        deltas += 1
    usage = {"output_tokens": deltas}
    parts += [
        _event({"type": "content_block_stop", "index": 0}),
        _event({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": usage}),
        _event({"type": "message_stop"}),
    ]
    return b"".join(parts), deltas


def _serve_forever(body: bytes, port_out: Connection) -> None:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            self.send_response(200)
            self.send_header("content-type", "text/event-stream; charset=utf-8")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            for at in range(0, len(body), 16384):
                self.wfile.write(body[at : at + 16384])

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port_out.send(httpd.server_address[1])
    httpd.serve_forever()


def serve(body: bytes) -> tuple[multiprocessing.Process, str]:
    """Serve ``body`` as an event stream for every POST, from another process.

    A separate process keeps the server off this interpreter's GIL, so the client's
    timings are its own.
    """
    receive, send = multiprocessing.Pipe(duplex=False)
    process = multiprocessing.Process(target=_serve_forever, args=(body, send), daemon=True)
    process.start()
    return process, f"http://127.0.0.1:{receive.recv()}"


_client: httpx.AsyncClient | None = None


async def bare(url: str) -> int:
    """Iterate the stream with httpx-sse only; returns the number of SSE events."""
    global _client
    _client = _client or httpx.AsyncClient()  # a kept-alive pool, as the adapter has
    count = 0
    async with _client.stream("POST", f"{url}/v1/messages", json={}) as response:
        async for _ in EventSource(response).aiter_sse():
            count += 1
    return count


async def adapter(url: str) -> int:
    """Run the stream through the adapter; returns the number of pi events consumed."""
    model = Model(id="claude-sonnet-4-20250514", api="anthropic-messages", provider="anthropic")
    model = model.model_copy(update={"base_url": url})
    context = Context(messages=[UserMessage(content="Write a long essay.")])
    events = stream(model, context, StreamOptions(api_key="bench-key"))
    count = 0
    async for _ in events:
        count += 1
    message = await events.result()
    assert message.stop_reason == "stop", message.error_message
    return count


@dataclass
class Timing:
    """Wall time and this thread's CPU time of each round (the server runs elsewhere)."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    count: int = 0

    async def run(self, fn: Callable[[str], Awaitable[int]], url: str) -> None:
        wall, cpu = time.perf_counter(), time.thread_time()
        self.count = await fn(url)
        self.cpu.append(time.thread_time() - cpu)
        self.wall.append(time.perf_counter() - wall)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size-mb", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    body, deltas = build_body(int(args.size_mb * 1024 * 1024))
    server, url = serve(body)
    base, ours = Timing(), Timing()
    try:
        await bare(url)  # warm-up: imports, connection setup
        await adapter(url)
        for _ in range(args.rounds):
            await base.run(bare, url)
            await ours.run(adapter, url)
    finally:
        server.terminate()
    print(f"body: {len(body) / 1e6:.2f} MB, {base.count} SSE events, {deltas} text deltas")
    print(f"best of {args.rounds} rounds; the CPU figure is this thread's time, which a busy")
    print("machine disturbs least (the loopback server runs in another process)")
    for label, b, a in (
        ("wall", min(base.wall), min(ours.wall)),
        ("cpu ", min(base.cpu), min(ours.cpu)),
    ):
        print(
            f"{label}: bare httpx-sse {b * 1000:7.1f} ms ({base.count / b:9,.0f} events/s)"
            f"  adapter {a * 1000:7.1f} ms ({ours.count / a:9,.0f} events/s)"
            f"  ratio {a / b:.2f}x"
        )
    print("target: adapter / bare <= 2x")


if __name__ == "__main__":
    asyncio.run(main())
