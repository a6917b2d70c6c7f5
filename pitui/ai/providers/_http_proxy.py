"""The providers' POST through httpx: the path taken when a proxy is configured.

httpx reads the proxy variables (``HTTPS_PROXY``, ``ALL_PROXY``, ``NO_PROXY`` …) and
speaks to the proxy; the small asyncio client (:mod:`._wire`) does not. This module is
imported only when :func:`pitui.ai.providers._http.environment_proxies` finds one, so a
direct connection never loads httpx. It answers with the same response shape as
``_wire.post`` and turns httpx's failures into ``_wire``'s, so the retry rules and the
messages are the same on both paths.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager

from pitui.ai import tls
from pitui.ai.httpx_import import httpx
from pitui.ai.providers import _wire
from pitui.ai.providers._proxies import environment_proxies

CONNECT_TIMEOUT_S = 30.0

_clients: dict[tuple[int, bool], httpx.AsyncClient] = {}


def shared_client(url: str) -> httpx.AsyncClient:
    """The client for ``url``: one connection pool per event loop, so keep-alive
    connections are reused, and per kind of URL, so that plain ``http://`` (a local
    model) never pays for loading the CA bundle.

    The TLS client verifies as httpx does by default (see :mod:`pitui.ai.tls`). The plain
    one is given a context that trusts no certificate: it never makes a TLS connection, and if
    it ever tried, verification would fail rather than pass. A proxy from the environment
    may itself be ``https://``, so with one set every URL goes through the TLS client.
    """
    secure = tls.uses_tls(url) or environment_proxies()
    key = (id(asyncio.get_running_loop()), secure)
    client = _clients.get(key)
    if client is None or client.is_closed:
        verify = tls.context() if secure else ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        client = httpx.AsyncClient(
            timeout=httpx.Timeout(600.0, connect=CONNECT_TIMEOUT_S), verify=verify
        )
        _clients[key] = client
    return client


class _Response:
    """An httpx response in the shape of :class:`pitui.ai.providers._wire.Response`."""

    def __init__(self, response: httpx.Response) -> None:
        self._response = response
        self.status_code = response.status_code
        self.headers: Mapping[str, str] = response.headers

    async def aread(self) -> bytes:
        try:
            return await self._response.aread()
        except httpx.TransportError as exc:
            raise _wire_error(exc) from exc

    async def aiter_bytes(
        self, before_read: Callable[[], None] | None = None
    ) -> AsyncIterator[bytes]:
        chunks = self._response.aiter_bytes().__aiter__()
        while True:
            if before_read is not None:
                before_read()
            try:
                chunk = await chunks.__anext__()
            except StopAsyncIteration:
                return
            except httpx.TransportError as exc:
                raise _wire_error(exc) from exc
            yield chunk


@asynccontextmanager
async def post(
    url: str, headers: Mapping[str, str], body: bytes, *, timeout_s: float
) -> AsyncIterator[_Response]:
    """POST ``body`` through httpx (and the configured proxy); failures as ``_wire``'s."""
    client = shared_client(url)
    timeout = httpx.Timeout(timeout_s, connect=CONNECT_TIMEOUT_S)
    try:
        async with client.stream(
            "POST", url, headers=dict(headers), content=body, timeout=timeout
        ) as response:
            yield _Response(response)
    except httpx.TransportError as exc:
        raise _wire_error(exc) from exc


def _wire_error(exc: httpx.TransportError) -> _wire.WireError:
    """httpx's failure as the ``_wire`` failure of the same name (its message kept)."""
    kinds: list[tuple[type[Exception], type[_wire.WireError]]] = [
        (httpx.ConnectTimeout, _wire.ConnectTimeout),
        (httpx.ReadTimeout, _wire.ReadTimeout),
        (httpx.WriteTimeout, _wire.WriteTimeout),
        (httpx.TimeoutException, _wire.WireTimeout),
        (httpx.ConnectError, _wire.ConnectError),
        (httpx.ReadError, _wire.ReadError),
        (httpx.WriteError, _wire.WriteError),
        (httpx.RemoteProtocolError, _wire.RemoteProtocolError),
    ]
    for source, target in kinds:
        if isinstance(exc, source):
            return target(str(exc))
    return _wire.WireError(str(exc), kind=type(exc).__name__)  # ProxyError …
