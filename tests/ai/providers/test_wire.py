"""The asyncio HTTP/1.1 client the providers' POST goes through, against real loopback servers.

Each server here is a real socket on 127.0.0.1 that writes the bytes a test scripts
(chunked bodies in pieces, gzip, ``100 Continue``, a stall, a cut), so the client's
framing, pooling, timeouts and failures are tested on the wire; the TLS test runs a real
handshake with a certificate made for it, and the proxy test a real forward proxy.
"""

from __future__ import annotations

import asyncio
import gzip
import shutil
import socket
import ssl
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pitui.ai import tls
from pitui.ai.options import RetryPolicy, StreamOptions
from pitui.ai.providers import _http, _http_proxy, _wire
from pitui.ai.providers._proxies import environment_proxies
from pitui.ai.providers._sse import ServerSentEvent

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
PROXY_VARS = ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
    _wire.close_idle()
    tls.reset()
    yield
    _wire.close_idle()
    tls.reset()


@dataclass
class Served:
    url: str
    connections: int = 0
    requests: list[bytes] = field(default_factory=list)


async def read_request(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
    return head + await reader.readexactly(length)


@asynccontextmanager
async def serving(
    respond: Callable[[Served, int], list[bytes | float]], *, close_after: bool = False
) -> AsyncIterator[Served]:
    """A server that answers request N of a connection with ``respond(served, N)``: byte
    strings written in order (a float is a pause)."""
    served = Served(url="")

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        served.connections += 1
        try:
            number = 0
            while True:
                served.requests.append(await read_request(reader))
                for part in respond(served, number):
                    if isinstance(part, float):
                        await asyncio.sleep(part)
                    else:
                        writer.write(part)
                        await writer.drain()
                number += 1
                if close_after:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    listener = await asyncio.start_server(handle, "127.0.0.1", 0)
    served.url = f"http://127.0.0.1:{listener.sockets[0].getsockname()[1]}/v1/chat?x=1"
    try:
        yield served
    finally:
        listener.close()


def head(status: str = "200 OK", *fields: str) -> bytes:
    return ("\r\n".join([f"HTTP/1.1 {status}", *fields]) + "\r\n\r\n").encode()


async def post(url: str, body: bytes = b"{}", timeout_s: float = 5.0) -> tuple[int, bytes]:
    async with _wire.post(
        url, {"x-key": "k"}, body, timeout_s=timeout_s, connect_timeout_s=5.0, tls=tls.context
    ) as response:
        return response.status_code, await response.aread()


_LIMITS: dict[str, Any] = {"timeout_s": 1.0, "connect_timeout_s": 1.0, "tls": tls.context}


def chunked(*pieces: bytes) -> list[bytes | float]:
    parts: list[bytes | float] = [head("200 OK", "Transfer-Encoding: chunked")]
    for piece in pieces:
        parts += [f"{len(piece):x}\r\n".encode() + piece + b"\r\n", 0.02]
    return [*parts, b"0\r\n\r\n"]


async def test_a_chunked_body_arrives_whole_and_the_connection_is_reused() -> None:
    async with serving(lambda _s, _n: chunked(b"data: a\n\n", b"data: b\n\n")) as server:
        assert await post(server.url) == (200, b"data: a\n\ndata: b\n\n")
        assert await post(server.url) == (200, b"data: a\n\ndata: b\n\n")
    assert server.connections == 1


async def test_the_request_is_what_httpx_would_send() -> None:
    reply = head("200 OK", "Content-Length: 2") + b"ok"
    async with serving(lambda _s, _n: [reply]) as server:
        url = server.url.replace("http://", "http://me:s%20cret@")
        assert await post(url, b'{"a":1}') == (200, b"ok")
    request = server.requests[0].decode()
    port = server.url.split(":")[2].split("/")[0]
    assert request.startswith("POST /v1/chat?x=1 HTTP/1.1\r\n")
    assert f"\r\nHost: 127.0.0.1:{port}\r\n" in request
    assert "\r\nContent-Length: 7\r\n" in request and request.endswith('\r\n\r\n{"a":1}')
    assert "\r\nAuthorization: Basic bWU6cyBjcmV0\r\n" in request  # me:s cret
    assert "\r\nx-key: k\r\n" in request and "\r\nUser-Agent: pitui/" in request


async def test_gzip_is_decoded_and_informational_responses_skipped() -> None:
    body = gzip.compress(b"data: zipped\n\n")
    replies = [
        head("100 Continue"),
        head("200 OK", "Content-Encoding: gzip", f"Content-Length: {len(body)}") + body,
    ]
    async with serving(lambda _s, _n: list(replies)) as server:
        assert await post(server.url) == (200, b"data: zipped\n\n")


async def test_connection_close_is_honoured() -> None:
    reply = head("200 OK", "Connection: close", "Content-Length: 2") + b"ok"
    async with serving(lambda _s, _n: [reply], close_after=True) as server:
        await post(server.url)
        await post(server.url)
    assert server.connections == 2


async def test_a_stalled_response_times_out_and_is_not_reused() -> None:
    stall: list[bytes | float] = [head("200 OK", "Content-Length: 10") + b"part", 2.0]
    async with serving(lambda _s, _n: stall) as server:
        with pytest.raises(_wire.ReadTimeout):
            await post(server.url, timeout_s=0.2)
        assert not any(_wire._idle.values())


async def test_a_body_cut_short_is_a_protocol_error() -> None:
    async with serving(
        lambda _s, _n: [head("200 OK", "Content-Length: 100") + b"short"], close_after=True
    ) as server:
        with pytest.raises(_wire.RemoteProtocolError, match="95 bytes missing"):
            await post(server.url)


async def test_a_refused_connection_is_a_connect_error() -> None:
    async with serving(lambda _s, _n: []) as server:
        url = server.url
    with pytest.raises(_wire.ConnectError):
        await post(url)


async def test_a_header_cannot_smuggle_a_line_break() -> None:
    with pytest.raises(_wire.InvalidRequest):
        async with _wire.post("http://127.0.0.1:9/", {"x": "a\r\nInjected: 1"}, b"", **_LIMITS):
            pass


async def test_cancelling_mid_body_closes_the_connection() -> None:
    quick = head("200 OK", "Content-Length: 2") + b"ok"

    def respond(served: Served, _number: int) -> list[bytes | float]:
        if len(served.requests) == 1:
            return chunked(*[b"data: more\n\n"] * 50)  # ~1 s of pieces
        return [quick]

    async with serving(respond) as server:
        reading = asyncio.Event()

        async def read_some() -> None:
            async with _wire.post(server.url, {}, b"", **_LIMITS) as response:
                async for _ in response.aiter_bytes():
                    reading.set()
                    await asyncio.sleep(10)

        task = asyncio.create_task(read_some())
        # Cancelled once the body is flowing (a fixed pause could cancel, on a loaded
        # machine, before the request even reached the server, which would then count
        # the next request as its first and stream to it).
        await asyncio.wait_for(reading.wait(), 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert await post(server.url) == (200, b"ok")
    assert server.connections == 2  # the aborted one was not put back in the pool


async def collect(url: str, options: StreamOptions) -> list[ServerSentEvent]:
    events: list[ServerSentEvent] = []

    async def handle(sse: AsyncIterator[ServerSentEvent]) -> None:
        events.extend([event async for event in sse])

    request = _http.SSERequest(url=url, headers={}, body={"hi": "é"})
    await _http.post_sse(request, options, handle, lambda: False)
    return events


async def test_post_sse_retries_a_refused_connection_with_httpx_shaped_messages() -> None:
    async with serving(lambda _s, _n: []) as server:
        url = server.url
    options = StreamOptions(retry=RetryPolicy(max_attempts=2, base_delay_ms=1))
    with pytest.raises(_http.ProviderError, match=r"^Connection error \(ConnectError\): "):
        await collect(url, options)


def _certificate(tmp_path: Path) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


async def test_tls_trusts_what_httpx_trusts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, key = _certificate(tmp_path)
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_context.load_cert_chain(cert, key)
    reply = head("200 OK", "Content-Type: text/event-stream", "Content-Length: 11")
    reply += b"data: tls\n\n"

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await read_request(reader)
            writer.write(reply)
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            pass
        finally:
            writer.close()

    listener = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=server_context)
    url = f"https://localhost:{listener.sockets[0].getsockname()[1]}/v1"
    options = StreamOptions(retry=RetryPolicy(max_attempts=1))
    try:
        # Not in the default trust (certifi): the handshake fails verification.
        with pytest.raises(_http.ProviderError, match="CERTIFICATE_VERIFY_FAILED"):
            await collect(url, options)
        # SSL_CERT_FILE names it, as httpx honours it: the request goes through.
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))
        tls.reset()
        events = await collect(url, options)
        assert [e.data for e in events] == ["tls"]
    finally:
        listener.close()


async def test_a_proxy_in_the_environment_takes_the_httpx_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reply = head("200 OK", "Content-Type: text/event-stream", "Content-Length: 13")
    reply += b"data: proxy\n\n"
    async with serving(lambda _s, _n: [reply]) as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url.split("/v1")[0])
        monkeypatch.setattr(_http_proxy, "_clients", {})
        events = await collect("http://model.invalid/v1/chat", StreamOptions())
    assert [e.data for e in events] == ["proxy"]
    # A forward proxy is asked for the absolute URL: the request went through it.
    assert proxy.requests[0].startswith(b"POST http://model.invalid/v1/chat HTTP/1.1\r\n")
    assert proxy.requests[0].endswith('{"hi":"é"}'.encode())


def test_proxy_detection_reads_the_environment_as_the_standard_library(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import urllib.request

    cases = [
        {},
        {"HTTPS_PROXY": "http://p:1"},
        {"no_proxy": "*"},
        {"all_proxy": ""},
        {"HTTP_PROXY": "http://p:1", "REQUEST_METHOD": "GET"},
        {"http_proxy": "http://p:1", "REQUEST_METHOD": "GET"},
        {"HTTPS_PROXY": "http://p:1", "https_proxy": ""},
    ]
    for case in cases:
        for name in (*PROXY_VARS, "no_proxy", "NO_PROXY", "REQUEST_METHOD"):
            monkeypatch.delenv(name, raising=False)
        for name, value in case.items():
            monkeypatch.setenv(name, value)
        expected = any(scheme != "no" for scheme in urllib.request.getproxies())
        assert environment_proxies() == expected, case


@pytest.mark.skipif(not hasattr(socket, "TCP_QUICKACK"), reason="Linux socket option")
async def test_replies_are_acknowledged_at_once_so_a_nagling_server_never_stalls() -> None:
    reply = head("200 OK", "Content-Length: 2") + b"ok"
    async with serving(lambda _s, _n: [reply]) as server:
        response_cm = _wire.post(server.url, {}, b"", **_LIMITS)
        async with response_cm as response:
            raw = response._connection.writer.get_extra_info("socket")
            # Set before each read: the kernel clears it at its next ACK decision.
            response._connection.ack_at_once()
            assert raw.getsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK) == 1
            assert await response.aread() == b"ok"


async def test_headers_merge_whatever_their_case_and_content_type_can_be_given() -> None:
    reply = head("200 OK", "Content-Type: text/event-stream", "Content-Length: 10")
    reply += b"data: ok\n\n"
    async with serving(lambda _s, _n: [reply]) as server:
        request = _http.SSERequest(
            url=server.url, headers={"Accept": "text/plain", "Content-Type": "x/y"}, body={}
        )

        async def handle(sse: AsyncIterator[ServerSentEvent]) -> None:
            assert [event.data async for event in sse] == ["ok"]

        await _http.post_sse(request, StreamOptions(), handle, lambda: False)
    sent = server.requests[0].decode().lower()
    assert sent.count("\r\naccept:") == 1 and "\r\naccept: text/plain\r\n" in sent
    assert sent.count("\r\ncontent-type:") == 1 and "\r\ncontent-type: x/y\r\n" in sent
