"""A small HTTP/1.1 client over asyncio streams: the providers' streaming POST without httpx.

Why: importing httpx (with httpcore, anyio, h11, idna and, through httpx's command line,
rich, click and pygments) was a fifth of a ``pitui -p`` turn, for one kind of request. This
client makes exactly that request, keeping what the providers rely on: a keep-alive pool
per event loop (the request after a tool call reuses the connection, and with a real API
its TLS session), a connect timeout and a per-operation read/write timeout as httpx's
``Timeout(t, connect=30)`` means them, ``Content-Length``, chunked and read-to-close bodies,
gzip and deflate, informational ``1xx`` responses skipped, and cancellation (an abort)
closing the connection. TLS uses the context :mod:`pitui.ai.tls` builds, httpx's own
default trust. A proxy is not spoken here: with one configured, :mod:`._http` sends the
request through httpx instead.

Failures are :class:`WireError` subclasses named as httpx names them (``ConnectError``,
``ReadTimeout`` …), so the messages users see keep their shape.
"""

from __future__ import annotations

import asyncio
import base64
import socket
import zlib
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from pitui import __version__

if TYPE_CHECKING:
    import ssl  # the contexts come from pitui.ai.tls: a plain-http run never loads ssl

#: The stream reader's buffer limit: the longest header or chunk-size line accepted.
_LINE_LIMIT = 1 << 20
_READ_SIZE = 1 << 16
_MAX_HEADERS = 200
_HAPPY_EYEBALLS_S = 0.25
USER_AGENT = f"pitui/{__version__}"


class WireError(Exception):
    """A transport failure: the request may not have reached the server, or its reply broke.

    ``kind`` names it in messages: the class name, or httpx's for one that came from there.
    """

    def __init__(self, message: str, *, kind: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind or type(self).__name__


class WireTimeout(WireError):
    """An operation took longer than its timeout."""


class ConnectError(WireError):
    """The connection (TCP, or the TLS handshake) could not be made."""


class ReadError(WireError):
    """Reading the response failed."""


class WriteError(WireError):
    """Sending the request failed."""


class RemoteProtocolError(WireError):
    """The server broke HTTP/1.1 (a malformed head, a body cut short)."""


class InvalidRequest(WireError):
    """The request cannot be sent as given (a header with a line break in it)."""


class ConnectTimeout(WireTimeout):
    """Connecting took longer than the connect timeout."""


class ReadTimeout(WireTimeout):
    """No response bytes for longer than the read timeout."""


class WriteTimeout(WireTimeout):
    """The request could not be sent within the write timeout."""


class _Target:
    """Where a URL's request goes, and the request line's parts (a plain class: a frozen
    dataclass costs ~3.6 M instructions to define, more than this whole module's logic)."""

    __slots__ = ("authorization", "host", "host_header", "path", "port", "secure")

    def __init__(
        self,
        secure: bool,
        host: str,
        port: int,
        host_header: str,
        path: str,
        authorization: str | None,
    ) -> None:
        self.secure = secure
        self.host = host
        self.port = port
        self.host_header = host_header
        self.path = path
        self.authorization = authorization

    @property
    def key(self) -> tuple[bool, str, int]:
        return (self.secure, self.host, self.port)


def _idna(host: str) -> str:
    """``host`` as the ``Host`` header spells it (its IDNA form).

    An ASCII name whose labels have 1-63 characters is its own IDNA form (the codec's own
    fast path): answered here, so the codec (with ``stringprep`` and ``unicodedata``,
    ~7 M instructions) loads only for a name that needs it or is malformed (the codec's
    error then stands).
    """
    if host.isascii():
        *labels, last = host.split(".")
        if len(last) < 64 and all(0 < len(label) < 64 for label in labels):
            return host
    return host.encode("idna").decode("ascii")


def _target(url: str) -> _Target:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise InvalidRequest(f"Request URL is not an http(s) URL: {url!r}")
    secure = scheme == "https"
    try:
        port = parts.port or (443 if secure else 80)
    except ValueError as exc:
        raise InvalidRequest(f"Invalid port in URL: {url!r}") from exc
    host = parts.hostname
    shown = f"[{host}]" if ":" in host else _idna(host)
    if parts.port is not None and port != (443 if secure else 80):
        shown = f"{shown}:{port}"
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    authorization = None
    if parts.username is not None:  # user:password@ in the URL is basic auth, as in httpx
        pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
        authorization = "Basic " + base64.b64encode(pair.encode()).decode("ascii")
    return _Target(secure, host, port, shown, path, authorization)


#: Linux's "acknowledge at once" socket option (absent elsewhere).
_QUICKACK: int | None = getattr(socket, "TCP_QUICKACK", None)


class _Connection:
    __slots__ = ("_socket", "key", "loop", "reader", "writer")

    def __init__(
        self,
        key: tuple[bool, str, int],
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        self.key = key
        self.reader = reader
        self.writer = writer
        self.loop = asyncio.get_running_loop()
        self._socket = writer.get_extra_info("socket") if _QUICKACK is not None else None

    def ack_at_once(self) -> None:
        """Have the kernel acknowledge the next bytes received at once, not ~40 ms later.

        A server that writes a reply in pieces (the head, then each event) without
        ``TCP_NODELAY`` — Python's ``http.server``, many small local servers — holds each
        piece until the previous one is acknowledged (Nagle), and a delayed ACK makes
        that a 40 ms stall per piece. The option lasts until the kernel's next ACK
        decision, so it is set again before each read; elsewhere than Linux it is a no-op.
        """
        if self._socket is not None:
            try:
                self._socket.setsockopt(socket.IPPROTO_TCP, _QUICKACK, 1)
            except OSError:
                self._socket = None  # not TCP after all (a test's socket pair …)

    def usable(self) -> bool:
        """Still open on this loop, with nothing unread from the server (no EOF)."""
        return (
            self.loop is asyncio.get_running_loop()
            and not self.writer.is_closing()
            and not self.reader.at_eof()
        )

    def close(self) -> None:
        if not self.loop.is_closed():  # a closed loop took its transports with it
            self.writer.close()


_idle: dict[tuple[bool, str, int], list[_Connection]] = {}


def _take_idle(key: tuple[bool, str, int]) -> _Connection | None:
    pool = _idle.get(key)
    while pool:
        connection = pool.pop()
        if connection.usable():
            return connection
        connection.close()
    return None


def _give_back(connection: _Connection) -> None:
    _idle.setdefault(connection.key, []).append(connection)


def close_idle() -> None:
    """Close every pooled connection (tests; a loop that is ending)."""
    for pool in _idle.values():
        for connection in pool:
            connection.close()
    _idle.clear()


async def _connect(
    target: _Target, tls: Callable[[], ssl.SSLContext], timeout_s: float
) -> _Connection:
    context = tls() if target.secure else None
    try:
        async with asyncio.timeout(timeout_s):
            reader, writer = await asyncio.open_connection(
                target.host,
                target.port,
                ssl=context,
                server_hostname=target.host if context is not None else None,
                limit=_LINE_LIMIT,
                # Race the addresses (IPv6, IPv4) as anyio does for httpx: a host whose
                # IPv6 route is dead still connects over IPv4 at once.
                happy_eyeballs_delay=_HAPPY_EYEBALLS_S,
            )
    except TimeoutError:
        raise ConnectTimeout(f"Timed out connecting to {target.host_header}") from None
    except OSError as exc:  # refused, unreachable, no such host, TLS verification …
        raise ConnectError(str(exc) or type(exc).__name__) from exc
    return _Connection(target.key, reader, writer)


def _head(target: _Target, headers: Mapping[str, str], length: int) -> bytes:
    lines = [f"POST {target.path} HTTP/1.1", f"Host: {target.host_header}"]
    names = {name.lower() for name in headers}
    if "user-agent" not in names:
        lines.append(f"User-Agent: {USER_AGENT}")
    if "accept-encoding" not in names:
        lines.append("Accept-Encoding: gzip, deflate")
    if target.authorization is not None and "authorization" not in names:
        lines.append(f"Authorization: {target.authorization}")
    for name, value in headers.items():
        if name.lower() in ("host", "content-length", "transfer-encoding"):
            continue
        text = f"{name}: {value}"
        if "\r" in text or "\n" in text or not name or ":" in name:
            raise InvalidRequest(f"Invalid request header {name!r}")
        lines.append(text)
    lines.append(f"Content-Length: {length}")
    try:
        return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii")
    except UnicodeEncodeError as exc:
        raise InvalidRequest("A request header holds characters HTTP cannot carry") from exc


class Response:
    """A response whose head is read; the body is read through :meth:`aiter_bytes`."""

    def __init__(
        self,
        connection: _Connection,
        status: int,
        headers: dict[str, str],
        reusable: bool,
        timeout_s: float,
    ) -> None:
        self.status_code = status
        self.headers: Mapping[str, str] = headers
        """Lower-cased names; repeated fields joined with ``, `` (as httpx's ``get``)."""
        self._connection = connection
        self._timeout = timeout_s
        self._reusable = reusable and headers.get("connection", "").lower() != "close"
        self._chunked = "chunked" in headers.get("transfer-encoding", "").lower()
        self._left: int | None = None
        """Body bytes still due (Content-Length), or of the current chunk."""
        self._done = False
        self._closed = False
        if not self._chunked:
            self._left = _content_length(headers)
            if self._left is None:
                self._reusable = False  # the body ends when the server closes
            elif self._left == 0:
                self._done = True

    async def aread(self) -> bytes:
        """The whole (decoded) body."""
        return b"".join([chunk async for chunk in self.aiter_bytes()])

    async def aiter_bytes(
        self, before_read: Callable[[], None] | None = None
    ) -> AsyncIterator[bytes]:
        """The body as it arrives, decoded (gzip, deflate); ``before_read`` is called
        before each read that may wait for the network."""
        decoder = _decoder(self.headers.get("content-encoding", ""))
        async for raw in self._aiter_raw(before_read):
            data = decoder.decompress(raw) if decoder is not None else raw
            if data:
                yield data
        if decoder is not None and (tail := decoder.flush()):
            yield tail

    async def _aiter_raw(self, before_read: Callable[[], None] | None) -> AsyncIterator[bytes]:
        while not self._done:
            if before_read is not None:
                before_read()
            # Every read is a turn of the event loop, as with httpx (anyio checkpoints
            # each receive), even when the bytes are already buffered: what the reader
            # pushed so far (the stream's start, once the head is in) reaches the
            # subscribers before the next bytes are parsed.
            await asyncio.sleep(0)
            data = await (self._next_chunked() if self._chunked else self._next_plain())
            if data:
                yield data

    async def _next_plain(self) -> bytes:
        left = self._left
        data = await self._read(_READ_SIZE if left is None else min(left, _READ_SIZE))
        if left is None:
            self._done = not data
            return data
        if not data:
            raise RemoteProtocolError(
                "peer closed connection without sending complete message body "
                f"({left} bytes missing)"
            )
        self._left = left - len(data)
        self._done = self._left == 0
        return data

    async def _next_chunked(self) -> bytes:
        if not self._left:
            if self._left == 0:
                await self._chunk_end()
            size_line = await self._line()
            try:
                size = int(size_line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                raise RemoteProtocolError(f"Malformed chunk size {size_line[:40]!r}") from None
            if size == 0:
                while (await self._line()).strip():  # trailers, up to the blank line
                    pass
                self._done = True
                return b""
            self._left = size
        data = await self._read(min(self._left, _READ_SIZE))
        if not data:
            raise RemoteProtocolError("peer closed connection in the middle of a chunk")
        self._left -= len(data)
        return data

    async def _chunk_end(self) -> None:
        if (await self._line()).strip():
            raise RemoteProtocolError("Malformed chunked body: no line end after a chunk")

    async def _read(self, size: int) -> bytes:
        self._connection.ack_at_once()
        try:
            async with asyncio.timeout(self._timeout):
                return await self._connection.reader.read(size)
        except TimeoutError:
            raise ReadTimeout("Timed out reading the response") from None
        except OSError as exc:
            raise ReadError(str(exc) or type(exc).__name__) from exc

    async def _line(self) -> bytes:
        self._connection.ack_at_once()
        try:
            async with asyncio.timeout(self._timeout):
                line = await self._connection.reader.readline()
        except TimeoutError:
            raise ReadTimeout("Timed out reading the response") from None
        except ValueError as exc:  # longer than the reader's limit
            raise RemoteProtocolError("A response line is too long") from exc
        except OSError as exc:
            raise ReadError(str(exc) or type(exc).__name__) from exc
        if not line.endswith(b"\n"):
            raise RemoteProtocolError(
                "peer closed connection without sending complete message body"
            )
        return line

    def close(self) -> None:
        """Give the connection back when the body was read to its end, else close it."""
        if self._closed:
            return
        self._closed = True
        if self._done and self._reusable and self._connection.usable():
            _give_back(self._connection)
        else:
            self._connection.close()


def _content_length(headers: Mapping[str, str]) -> int | None:
    raw = headers.get("content-length")
    if raw is None:
        return None
    try:
        values = {int(part) for part in raw.split(",")}
    except ValueError:
        raise RemoteProtocolError(f"Malformed Content-Length {raw!r}") from None
    if len(values) != 1 or min(values) < 0:
        raise RemoteProtocolError(f"Malformed Content-Length {raw!r}")
    return values.pop()


def _decoder(encoding: str) -> zlib._Decompress | None:
    coding = encoding.strip().lower()
    if coding in ("", "identity"):
        return None
    if coding in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if coding == "deflate":
        return zlib.decompressobj()
    raise RemoteProtocolError(f"Unsupported Content-Encoding {encoding!r}")


async def _read_head(connection: _Connection, timeout_s: float) -> tuple[int, dict[str, str], bool]:
    """Status, headers and whether the connection may be reused (``1xx`` skipped)."""
    reader = connection.reader
    while True:
        connection.ack_at_once()
        try:
            async with asyncio.timeout(timeout_s):
                status_line = await reader.readline()
                if not status_line:
                    raise RemoteProtocolError("Server disconnected without sending a response.")
                fields: list[bytes] = []
                while (line := await reader.readline()).strip():
                    fields.append(line)
                    if len(fields) > _MAX_HEADERS:
                        raise RemoteProtocolError("Too many response headers")
                if not line:
                    raise RemoteProtocolError("Server disconnected in the middle of the headers")
        except TimeoutError:
            raise ReadTimeout("Timed out waiting for the response") from None
        except ValueError as exc:
            raise RemoteProtocolError("A response header is too long") from exc
        except OSError as exc:
            raise ReadError(str(exc) or type(exc).__name__) from exc
        version, status = _status(status_line)
        if 100 <= status < 200:
            continue  # 100 Continue, 103 Early Hints: the response follows
        return status, _headers(fields), version == "HTTP/1.1"


def _status(line: bytes) -> tuple[str, int]:
    parts = line.decode("latin-1").split(None, 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        raise RemoteProtocolError(f"Malformed status line {line[:80]!r}")
    return parts[0], int(parts[1])


def _headers(fields: list[bytes]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for raw in fields:
        name, colon, value = raw.decode("latin-1").partition(":")
        if not colon:
            raise RemoteProtocolError(f"Malformed response header {raw[:80]!r}")
        key = name.strip().lower()
        value = value.strip()
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    return headers


@asynccontextmanager
async def post(
    url: str,
    headers: Mapping[str, str],
    body: bytes,
    *,
    timeout_s: float,
    connect_timeout_s: float,
    tls: Callable[[], ssl.SSLContext],
) -> AsyncIterator[Response]:
    """POST ``body`` to ``url``; the response, its connection pooled again or closed on exit.

    A pooled connection the server closed meanwhile is found closed before it is used
    (the loop has seen its EOF); ``tls`` gives the context of an ``https`` connection.
    """
    target = _target(url)
    head = _head(target, headers, len(body))
    connection = _take_idle(target.key) or await _connect(target, tls, connect_timeout_s)
    response: Response | None = None
    try:
        await _send(connection, head + body, timeout_s)
        status, fields, reusable = await _read_head(connection, timeout_s)
        response = Response(connection, status, fields, reusable, timeout_s)
        yield response
    finally:
        if response is not None:
            response.close()
        else:
            connection.close()


async def _send(connection: _Connection, data: bytes, timeout_s: float) -> None:
    try:
        connection.writer.write(data)
        async with asyncio.timeout(timeout_s):
            await connection.writer.drain()
    except TimeoutError:
        raise WriteTimeout("Timed out sending the request") from None
    except OSError as exc:
        raise WriteError(str(exc) or type(exc).__name__) from exc
