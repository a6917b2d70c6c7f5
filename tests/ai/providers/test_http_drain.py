"""After a complete reply the adapters read the body to its end, so connections are reused.

A small HTTP/1.1 server on loopback counts the connections it accepts; it can also send
a complete reply and then keep the body open (a declared length never reached).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import pytest

from pitui.ai.options import StreamOptions
from pitui.ai.providers import _http, anthropic, openai_completions
from pitui.ai.types import Context, Model, UserMessage
from tests.ai.providers.harness import collect
from tests.replay_server import FIXTURES

CONTEXT = Context(messages=[UserMessage(content="hi")])
OPTIONS = StreamOptions(api_key="test-key")


@dataclass
class Server:
    url: str
    connections: int = 0


@asynccontextmanager
async def serving(body: bytes, *, missing: int = 0) -> AsyncIterator[Server]:
    """Answer every POST with ``body`` as an event stream, ``missing`` bytes short."""
    server = Server(url="")

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        server.connections += 1
        try:
            while head := await reader.readuntil(b"\r\n\r\n"):
                length = 0
                for line in head.decode("latin-1").split("\r\n"):
                    name, _, value = line.partition(":")
                    if name.lower() == "content-length":
                        length = int(value)
                await reader.readexactly(length)
                writer.write(
                    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                    + f"content-length: {len(body) + missing}\r\n\r\n".encode()
                    + body
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    listener = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    server.url = f"http://127.0.0.1:{port}"
    try:
        yield server
    finally:
        listener.close()


def chat_model(url: str) -> Model:
    return Model(id="gpt-4o", api="openai-completions", provider="openai", base_url=url)


def anthropic_model(url: str) -> Model:
    return Model(
        id="claude-sonnet-4-20250514", api="anthropic-messages", provider="anthropic", base_url=url
    )


async def test_chat_streams_reuse_one_connection() -> None:
    body = (FIXTURES / "providers" / "openai_chat_text.sse").read_bytes()
    async with serving(body) as server:
        for _ in range(3):
            run = await collect(openai_completions.stream(chat_model(server.url), CONTEXT, OPTIONS))
            assert run.message.stop_reason == "stop"
        assert server.connections == 1


async def test_anthropic_streams_reuse_one_connection() -> None:
    body = (FIXTURES / "providers" / "anthropic_text.sse").read_bytes()
    async with serving(body) as server:
        for _ in range(3):
            model = anthropic_model(server.url)
            run = await collect(anthropic.stream(model, CONTEXT, OPTIONS))
            assert run.message.stop_reason == "stop"
        assert server.connections == 1


async def test_a_body_kept_open_after_the_reply_ends_is_given_up_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_http, "DRAIN_TIMEOUT_S", 0.05)
    body = (FIXTURES / "providers" / "openai_chat_text.sse").read_bytes()
    async with serving(body, missing=10) as server:
        started = time.monotonic()
        run = await collect(openai_completions.stream(chat_model(server.url), CONTEXT, OPTIONS))
        assert time.monotonic() - started < 5
        assert run.message.stop_reason == "stop", run.message.error_message
        assert run.events[-1].type == "done"
        # The connection could not be reused: the next request opens another.
        run = await collect(openai_completions.stream(chat_model(server.url), CONTEXT, OPTIONS))
        assert run.message.stop_reason == "stop"
        assert server.connections == 2


async def test_the_start_reaches_the_consumer_before_a_body_that_came_with_the_head() -> None:
    """Reads are event-loop turns even when the bytes are buffered: a consumer sees the
    stream's start with the empty partial, as pi's message_start carries it."""
    body = (FIXTURES / "providers" / "openai_chat_text.sse").read_bytes()
    async with serving(body) as server:  # head and body in one write
        stream = openai_completions.stream(chat_model(server.url), CONTEXT, OPTIONS)
        async for event in stream:
            assert event.type == "start"
            assert event.partial.content == []
            break
        await stream.result()
