"""Benchmark: the streaming adapters against bare ``httpx-sse`` iteration of the same body.

For each wire API it builds a ~2 MB recorded-style stream (one long text reply of many
small deltas, as the real APIs send it), serves it from a loopback HTTP server in another
process, and times these clients of the same body:

- ``bare httpx-sse``: ``httpx_sse.EventSource(response).aiter_sse()`` and nothing else;
- ``+ json.loads``: the same, parsing every data payload with the standard library, the
  least any client must do with the stream (``[DONE]`` is not JSON and is skipped);
- ``+ orjson.loads``: the same with orjson, the parser the adapters use, so the last
  ratio is the adapters' own overhead beyond parsing;
- ``adapter``: ``pitui.ai.providers.<api>.stream`` with every event consumed.

Run: ``python bench/sse_parse.py [--size-mb 2] [--rounds 9] [--check]``.
Target (the issue's): adapter ÷ bare httpx-sse ≤ 2× in CPU time; ``--check`` exits 1
when an adapter misses it. The CPU figures are this thread's time, best of the rounds:
a busy machine disturbs them least (the server runs in another process), so compare
them across runs rather than wall times.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from multiprocessing.connection import Connection
from typing import Any

import httpx
import orjson
from httpx_sse import EventSource

from pitui.ai.event_stream import AssistantMessageEventStream
from pitui.ai.options import StreamOptions
from pitui.ai.providers import anthropic, openai_completions
from pitui.ai.types import Context, Model, UserMessage

TARGET = 2.0
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


def _json(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _pieces(rng: random.Random) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 6))) + " "


# --------------------------------------------------------------------------- bodies


def _anthropic_event(data: dict[str, Any], pad: int = 0) -> bytes:
    body = _json(data)
    # The real API pads some payloads with spaces before the closing brace.
    body = body[:-1] + " " * pad + "}"
    return f"event: {data['type']}\ndata: {body}\n\n".encode()


def anthropic_body(size_bytes: int, seed: int = 7) -> tuple[bytes, int]:
    """A Messages stream with one text block whose deltas add up to ~``size_bytes``."""
    rng = random.Random(seed)
    message = {
        "id": "msg_bench",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-20250514",
        "content": [],
        "usage": {"input_tokens": 1200, "output_tokens": 1},
    }
    parts = [
        _anthropic_event({"type": "message_start", "message": message}),
        _anthropic_event(
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}}
        ),
    ]
    size, deltas = sum(map(len, parts)), 0
    while size < size_bytes:
        delta = {"type": "text_delta", "text": _pieces(rng)}
        chunk = _anthropic_event(
            {"type": "content_block_delta", "index": 0, "delta": delta}, pad=rng.randint(0, 12)
        )
        if deltas % 200 == 0:
            chunk += b'event: ping\ndata: {"type": "ping"}\n\n'
        parts.append(chunk)
        size += len(chunk)
        deltas += 1
    stop = {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}
    parts += [
        _anthropic_event({"type": "content_block_stop", "index": 0}),
        _anthropic_event({**stop, "usage": {"output_tokens": deltas}}),
        _anthropic_event({"type": "message_stop"}),
    ]
    return b"".join(parts), deltas


def _chat_chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
    chunk = {
        "id": "chatcmpl-ABfw3Oqj8RD0z6aJiiX37oTjV2HFh",
        "object": "chat.completion.chunk",
        "created": 1727346171,
        "model": "gpt-4o-2024-08-06",
        "system_fingerprint": "fp_7568d46099",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        **extra,
    }
    return f"data: {_json(chunk)}\n\n".encode()


def chat_body(size_bytes: int, seed: int = 7) -> tuple[bytes, int]:
    """A Chat Completions stream (as OpenAI sends it, usage last) of ~``size_bytes``."""
    rng = random.Random(seed)
    parts = [_chat_chunk({"role": "assistant", "content": "", "refusal": None})]
    size, deltas = len(parts[0]), 0
    while size < size_bytes:
        chunk = _chat_chunk({"content": _pieces(rng)})
        parts.append(chunk)
        size += len(chunk)
        deltas += 1
    usage = {"prompt_tokens": 1200, "completion_tokens": deltas, "total_tokens": 1200 + deltas}
    last = _json(
        {
            "id": "chatcmpl-ABfw3Oqj8RD0z6aJiiX37oTjV2HFh",
            "object": "chat.completion.chunk",
            "created": 1727346171,
            "model": "gpt-4o-2024-08-06",
            "choices": [],
            "usage": usage,
        }
    )
    parts += [_chat_chunk({}, "stop"), f"data: {last}\n\n".encode(), b"data: [DONE]\n\n"]
    return b"".join(parts), deltas


# --------------------------------------------------------------------------- server


def _serve_forever(bodies: dict[str, bytes], port_out: Connection) -> None:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            body = bodies[self.path]
            self.send_response(200)
            self.send_header("content-type", "text/event-stream; charset=utf-8")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            for at in range(0, len(body), 16384):
                self.wfile.write(body[at : at + 16384])

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port_out.send(httpd.server_address[1])
    httpd.serve_forever()


def serve(bodies: dict[str, bytes]) -> tuple[multiprocessing.Process, str]:
    """Serve ``bodies[path]`` as an event stream for every POST to ``path``.

    A separate process keeps the server off this interpreter's GIL, so the client's
    timings are its own.
    """
    receive, send = multiprocessing.Pipe(duplex=False)
    process = multiprocessing.Process(target=_serve_forever, args=(bodies, send), daemon=True)
    process.start()
    return process, f"http://127.0.0.1:{receive.recv()}"


# --------------------------------------------------------------------------- clients

_client: httpx.AsyncClient | None = None


def _pool() -> httpx.AsyncClient:
    global _client
    _client = _client or httpx.AsyncClient()  # a kept-alive pool, as the adapters have
    return _client


async def bare(url: str) -> int:
    """Iterate the stream with httpx-sse only; returns the number of SSE events."""
    count = 0
    async with _pool().stream("POST", url, json={}) as response:
        async for _ in EventSource(response).aiter_sse():
            count += 1
    return count


def _parsing(loads: Callable[[str], Any]) -> Callable[[str], Awaitable[int]]:
    async def bare_parsed(url: str) -> int:
        """Iterate with httpx-sse and parse every data payload with ``loads``."""
        count = 0
        async with _pool().stream("POST", url, json={}) as response:
            async for sse in EventSource(response).aiter_sse():
                data = sse.data
                if data != "[DONE]":
                    loads(data)
                count += 1
        return count

    return bare_parsed


bare_json = _parsing(json.loads)
bare_orjson = _parsing(orjson.loads)
#: The baselines, each timed on the same body as the adapter: (label, client).
BASELINES: list[tuple[str, Callable[[str], Awaitable[int]]]] = [
    ("bare httpx-sse", bare),
    ("+ json.loads", bare_json),
    ("+ orjson.loads", bare_orjson),
]
TARGET_BASELINE = "bare httpx-sse"


async def _consume(events: AssistantMessageEventStream) -> int:
    count = 0
    async for _ in events:
        count += 1
    message = await events.result()
    assert message.stop_reason == "stop", message.error_message
    assert message.usage.output > 0
    return count


_CONTEXT = Context(messages=[UserMessage(content="Write a long essay.")])
_OPTIONS = StreamOptions(api_key="bench-key")


async def anthropic_adapter(url: str) -> int:
    """Run the stream through the anthropic-messages adapter; returns pi events."""
    base = url.removesuffix("/v1/messages")
    model = Model(
        id="claude-sonnet-4-20250514",
        api="anthropic-messages",
        provider="anthropic",
        base_url=base,
    )
    return await _consume(anthropic.stream(model, _CONTEXT, _OPTIONS))


async def chat_adapter(url: str) -> int:
    """Run the stream through the openai-completions adapter; returns pi events."""
    base = url.removesuffix("/chat/completions")
    model = Model(id="gpt-4o", api="openai-completions", provider="openai", base_url=base)
    return await _consume(openai_completions.stream(model, _CONTEXT, _OPTIONS))


# --------------------------------------------------------------------------- timing


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


@dataclass
class Case:
    """One wire API: its body, where it is served, and the adapter that reads it."""

    name: str
    path: str
    body: bytes
    deltas: int
    adapter: Callable[[str], Awaitable[int]]
    baselines: dict[str, Timing] = field(default_factory=dict)
    ours: Timing = field(default_factory=Timing)


async def measure(cases: list[Case], rounds: int) -> None:
    """Time every client of every case, the cases interleaved round by round."""
    server, url = serve({case.path: case.body for case in cases})
    try:
        for case in cases:  # warm-up: imports, connection setup
            await bare(url + case.path)
            await case.adapter(url + case.path)
        for _ in range(rounds):
            for case in cases:
                for label, client in BASELINES:
                    await case.baselines.setdefault(label, Timing()).run(client, url + case.path)
                await case.ours.run(case.adapter, url + case.path)
    finally:
        server.terminate()


def report(cases: list[Case], rounds: int, kind: str) -> dict[str, float]:
    """Print the timings and ratios of ``kind`` (``cpu`` or ``wall``).

    Returns each case's adapter ÷ bare httpx-sse ratio (the target's).
    """
    labels = [label for label, _ in BASELINES]
    print(f"\n{kind.upper()} time, best of {rounds} rounds: ms (SSE events per second)")
    print(f"{'stream':<20}" + "".join(f"{label:>20}" for label in [*labels, "adapter"]))
    ratios: dict[str, float] = {}
    rows = []
    for case in cases:
        events = case.baselines["bare httpx-sse"].count
        best = [min(getattr(case.baselines[label], kind)) for label in labels]
        ours = min(getattr(case.ours, kind))
        cells = "".join(f"{t * 1000:9.1f} ({events / t / 1000:4.0f}k/s)" for t in [*best, ours])
        print(f"{case.name:<20}{cells}")
        rows.append((case.name, [ours / t for t in best]))
        ratios[case.name] = ours / best[labels.index(TARGET_BASELINE)]
    print(f"{'adapter ÷':<20}" + "".join(f"{label:>20}" for label in labels))
    for name, row in rows:
        print(f"{name:<20}" + "".join(f"{ratio:>19.2f}×" for ratio in row))
    return ratios


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--size-mb", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--check", action="store_true", help=f"exit 1 above {TARGET}×")
    args = parser.parse_args()
    size = int(args.size_mb * 1024 * 1024)
    cases = [
        Case("anthropic-messages", "/v1/messages", *anthropic_body(size), anthropic_adapter),
        Case("openai-completions", "/v1/chat/completions", *chat_body(size), chat_adapter),
    ]
    await measure(cases, args.rounds)
    for case in cases:
        print(
            f"{case.name}: {len(case.body) / 1e6:.2f} MB, "
            f"{case.baselines['bare httpx-sse'].count} SSE events, "
            f"{case.deltas} text deltas, {case.ours.count} pi events"
        )
    ratios = report(cases, args.rounds, "cpu")
    report(cases, args.rounds, "wall")
    print(f"\ntarget: adapter ÷ {TARGET_BASELINE} ≤ {TARGET:g}× in CPU time")
    missed = [name for name, ratio in ratios.items() if ratio > TARGET]
    print(f"missed by: {', '.join(missed)}" if missed else "met by every adapter")
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
