"""HTTP plumbing shared by the provider adapters: POST, SSE, errors and retries.

Retry rules (PROVIDERS.md §5): retry 408 / 409 / 429 / 5xx / overloaded and connection
failures, honouring ``x-should-retry``, ``retry-after-ms`` and ``retry-after``; never
insufficient quota, spend limits or context overflow; and only while no content has
reached the consumer — once a delta was shown the error is surfaced with the partial.

The request goes out through the small asyncio client of :mod:`._wire`; only with a
proxy configured in the environment does it take httpx (:mod:`._http_proxy`), which
speaks to proxies as before. Both hand the body's bytes to the one SSE parser.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

import msgspec
import orjson

from pitui.ai import tls
from pitui.ai.options import RetryPolicy, StreamOptions, retry_delay_ms
from pitui.ai.providers import _wire
from pitui.ai.providers._proxies import environment_proxies
from pitui.ai.providers._sse import ServerSentEvent, aiter_sse

SSEHandler = Callable[[AsyncIterator[ServerSentEvent]], Awaitable[None]]

_NEVER_RETRY_CODES = frozenset(
    {"insufficient_quota", "enforced_spend_limit_reached", "context_length_exceeded"}
)
_MAX_BODY_IN_MESSAGE = 600
#: How long a complete reply's connection may take to reach the end of its body. It
#: normally arrives with the end marker; a server that keeps the body open delays the
#: stream's ``done`` by this much, and its connection is closed rather than reused.
DRAIN_TIMEOUT_S = 0.5
#: How long connecting (TCP and TLS) may take; reads and writes get the request's timeout.
CONNECT_TIMEOUT_S = 30.0


class ProviderError(Exception):
    """A provider failure with a readable message and whether a retry may help."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retryable: bool = False,
        retry_after_s: float | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable
        self.retry_after_s = retry_after_s


class SSERequest(msgspec.Struct):
    """One streaming POST."""

    url: str
    headers: dict[str, str]
    body: dict[str, Any]
    secrets: tuple[str, ...] = ()
    """Values (API keys) that must never appear in an error message."""


def redact(text: str, secrets: tuple[str, ...]) -> str:
    """Replace every secret in ``text`` with ``***``."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


def error_from_body(
    status: int, body: bytes, headers: Mapping[str, str] | None = None
) -> ProviderError:
    """Turn a non-2xx response into a :class:`ProviderError` with the server's own words."""
    text = body.decode("utf-8", "replace").strip()
    message, code = _error_fields(text)
    retryable = _status_retryable(status) and code not in _NEVER_RETRY_CODES
    should_retry = headers.get("x-should-retry") if headers is not None else None
    if should_retry in ("true", "false"):
        retryable = should_retry == "true" and code not in _NEVER_RETRY_CODES
    detail = message or text[:_MAX_BODY_IN_MESSAGE] or "(no body)"
    return ProviderError(
        f"{status} {detail}",
        status=status,
        retryable=retryable,
        retry_after_s=retry_after_seconds(headers) if headers is not None else None,
    )


def _error_fields(text: str) -> tuple[str | None, str | None]:
    """``(message, code)`` from Anthropic's or OpenAI's error body shape."""
    try:
        data = json.loads(text)
    except ValueError:
        return None, None
    error = data.get("error") if isinstance(data, dict) else None
    if not isinstance(error, dict):
        return None, None
    message = error.get("message")
    details = error.get("details")
    code = error.get("code") or error.get("type")
    if isinstance(details, dict) and isinstance(details.get("error_code"), str):
        code = details["error_code"]
    return (str(message) if message is not None else None), (str(code) if code else None)


def _status_retryable(status: int) -> bool:
    return status in (408, 409, 429) or status >= 500


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """The server's requested delay: ``retry-after-ms``, else ``retry-after`` (s or date)."""
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        import email.utils  # an HTTP date: rare, and the email package is not small

        try:
            parsed = email.utils.parsedate_to_datetime(raw)
        except (TypeError, ValueError):
            return None
        return max(0.0, parsed.timestamp() - time.time())


def backoff_seconds(policy: RetryPolicy, attempt: int, server_delay: float | None) -> float:
    """Delay before retry ``attempt`` (0-based): the server's, else the policy's
    exponential back-off (``retry.baseDelayMs``, at most ``maxDelayMs``), with the SDKs'
    jitter (× 0.75–1) so that many clients do not retry in step."""
    if server_delay is not None:
        return server_delay
    delay_ms = retry_delay_ms(policy.base_delay_ms, attempt + 1)
    if policy.max_delay_ms > 0:
        delay_ms = min(delay_ms, policy.max_delay_ms)
    jitter: float = random.uniform(0.75, 1.0)
    return delay_ms / 1000 * jitter


async def post_sse(
    request: SSERequest,
    options: StreamOptions,
    handle: SSEHandler,
    content_started: Callable[[], bool],
    before_read: Callable[[], None] | None = None,
) -> None:
    """POST ``request`` and feed its SSE events to ``handle``, retrying while allowed.

    Raises :class:`ProviderError` (message redacted) when the request finally fails.
    ``handle`` may raise ProviderError itself for an in-band error event; it is retried
    on the same terms when ``content_started()`` is still false.

    ``before_read`` is called before each read from the network, the only points where
    the adapter yields to the event loop while streaming: an adapter that batches work
    (joining text deltas, re-parsing tool arguments) can settle it there, and every
    other task still sees an up-to-date partial message whenever it runs.
    """
    policy = options.retry
    attempt = 0
    while True:
        try:
            await _post_once(request, options, handle, before_read)
            return
        except ProviderError as exc:
            failure = exc
        except _wire.WireTimeout as exc:
            failure = ProviderError(f"Request timed out: {exc}".strip(), retryable=True)
        except _wire.InvalidRequest as exc:
            failure = ProviderError(str(exc))
        except _wire.WireError as exc:
            failure = ProviderError(_transport_message(exc), retryable=True)
        if not _should_retry(failure, policy, attempt, content_started()):
            raise ProviderError(
                redact(str(failure), request.secrets),
                status=failure.status,
                retryable=failure.retryable,
            ) from None
        await asyncio.sleep(backoff_seconds(policy, attempt, failure.retry_after_s))
        attempt += 1


def _should_retry(
    failure: ProviderError, policy: RetryPolicy, attempt: int, content_started: bool
) -> bool:
    if content_started or not failure.retryable or attempt + 1 >= policy.max_attempts:
        return False
    delay = failure.retry_after_s
    return delay is None or policy.max_delay_ms <= 0 or delay * 1000 <= policy.max_delay_ms


def _transport_message(exc: _wire.WireError) -> str:
    text = str(exc).strip()
    kind = exc.kind
    return f"Connection error ({kind}): {text}" if text else f"Connection error ({kind})"


class _Response(Protocol):
    """What a request path hands back: the head, and the body as it arrives."""

    @property
    def status_code(self) -> int: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    async def aread(self) -> bytes: ...

    def aiter_bytes(self, before_read: Callable[[], None] | None = None) -> AsyncIterator[bytes]:
        """The decoded body; ``before_read`` runs before each read from the network."""
        ...


def merge_headers(*layers: Mapping[str, str]) -> dict[str, str]:
    """The layers' headers, a later layer's value winning whatever the names' case (as
    httpx merges them): ``Accept`` from models.json replaces the default ``accept``."""
    merged: dict[str, tuple[str, str]] = {}
    for layer in layers:
        for name, value in layer.items():
            merged[name.lower()] = (name, value)
    return dict(merged.values())


def _send(
    request: SSERequest, headers: dict[str, str], timeout_s: float
) -> AbstractAsyncContextManager[_Response]:
    """The POST, through the asyncio client, or through httpx when a proxy is configured."""
    body = json.dumps(
        request.body, ensure_ascii=False, separators=(",", ":"), allow_nan=False
    ).encode()  # the bytes httpx's ``json=`` sends
    if not any(name.lower() == "content-type" for name in headers):
        headers = {**headers, "content-type": "application/json"}  # unless given, as httpx
    if environment_proxies():
        from pitui.ai.providers import _http_proxy

        return _http_proxy.post(request.url, headers, body, timeout_s=timeout_s)
    return _wire.post(
        request.url,
        headers,
        body,
        timeout_s=timeout_s,
        connect_timeout_s=CONNECT_TIMEOUT_S,
        tls=tls.context,
    )


async def _post_once(
    request: SSERequest,
    options: StreamOptions,
    handle: SSEHandler,
    before_read: Callable[[], None] | None = None,
) -> None:
    headers = merge_headers({"accept": "text/event-stream"}, request.headers, options.headers)
    async with _send(request, headers, options.timeout_s) as response:
        if response.status_code >= 400:
            body = await response.aread()
            raise error_from_body(response.status_code, body, response.headers)
        content_type = response.headers.get("content-type", "")
        if "text/event-stream" not in content_type:
            body = await response.aread()
            snippet = body.decode("utf-8", "replace")[:_MAX_BODY_IN_MESSAGE]
            raise ProviderError(
                f"Expected an event stream but got {content_type or 'no content type'}: {snippet}"
            )
        events: AsyncIterator[ServerSentEvent] = aiter_sse(response.aiter_bytes(before_read))
        if options.idle_timeout_s is not None:
            events = _until_idle(events, options.idle_timeout_s)
        await handle(events)
        await _drain(events)


async def _drain(events: AsyncIterator[ServerSentEvent]) -> None:
    """Read, and ignore, what follows the end of a complete reply, up to the body's end.

    pi's SDKs do the same (they iterate past ``[DONE]`` and ``message_stop``), and it
    lets the connection go back to the pool: a response closed before the end of its
    body takes its connection with it, and the next request pays for a new one (TCP, and
    TLS with a real API). The reply is complete, so a failure here fails nothing, and a
    server that keeps the body open is given up on after :data:`DRAIN_TIMEOUT_S`.
    """
    try:
        async with asyncio.timeout(DRAIN_TIMEOUT_S):
            async for _ in events:
                pass
    except (TimeoutError, _wire.WireError, ProviderError):
        pass  # the connection is closed rather than reused, as before the drain


async def _until_idle(
    events: AsyncIterator[ServerSentEvent], limit_s: float
) -> AsyncIterator[ServerSentEvent]:
    """``events``, ended by a retryable error when no content event comes for ``limit_s``.

    A stalled server that sends keep-alives never trips the read timeout: SSE comments
    never surface as events, and a ``ping`` event (Anthropic's) is no content either, so
    neither moves the deadline.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit_s
    iterator = events.__aiter__()
    while True:
        try:
            async with asyncio.timeout_at(deadline):
                event = await iterator.__anext__()
        except StopAsyncIteration:
            return
        except TimeoutError:
            raise ProviderError(
                f"Stream timed out: no data from the provider for {limit_s:g} s "
                "(the server stalled; retry)",
                retryable=True,
            ) from None
        if not _keep_alive(event):
            deadline = loop.time() + limit_s
        yield event


def _keep_alive(event: ServerSentEvent) -> bool:
    return event.event == "ping" or not event.data.strip()


#: The hot-path JSON parser for SSE payloads (several times faster than ``json.loads``).
#: Anything it refuses goes through :func:`parse_json_text`, so the accepted inputs are
#: exactly the standard library's.
fast_loads: Callable[[str], Any] = orjson.loads


def parse_json_data(event: ServerSentEvent) -> Any:
    """The event's JSON payload; malformed JSON is a stream error, not a crash."""
    try:
        return fast_loads(event.data)
    except ValueError:
        return parse_json_text(event.data)


def parse_json_text(data: str) -> Any:
    """``data`` parsed as ``json.loads`` does; malformed JSON raises :class:`ProviderError`.

    The fallback after :data:`fast_loads` refused ``data``: the standard library also
    takes what orjson rejects (``NaN``, lone surrogate escapes, integers over 64 bits).
    """
    try:
        return json.loads(data)
    except ValueError as exc:
        raise ProviderError(f"Malformed event data from provider: {data[:200]!r}") from exc
