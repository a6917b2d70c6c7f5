"""Small pieces both OpenAI adapters (Chat Completions and Responses) share."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

from pitui.ai.event_stream import AssistantMessageEventStream
from pitui.ai.events import StartEvent
from pitui.ai.keys import env_api_key
from pitui.ai.options import StreamOptions
from pitui.ai.providers._http import ProviderError, SSERequest, post_sse
from pitui.ai.providers._sse import ServerSentEvent
from pitui.ai.types import AssistantMessage, Model, ThinkingLevel

DEFAULT_BASE_URL = "https://api.openai.com/v1"
# pi's "simple" options: without an explicit limit, ask for at most this many tokens.
DEFAULT_MAX_TOKENS_CAP = 32_000
_XHIGH_MODELS = ("gpt-5.2", "gpt-5.3", "gpt-5.4", "opus-4-6", "opus-4.6")


def endpoint(model: Model, path: str) -> str:
    """``path`` (e.g. ``/chat/completions``) relative to the model's base URL."""
    base = (model.base_url or DEFAULT_BASE_URL).rstrip("/")
    return base + path


def request_headers(model: Model, api_key: str | None) -> dict[str, str]:
    """Bearer auth (when a key is known) plus the model's own headers.

    ``options.headers`` are merged last by the HTTP layer, so callers can override both.
    """
    headers: dict[str, str] = {}
    if api_key:
        headers["authorization"] = f"Bearer {api_key}"
    headers.update(model.headers or {})
    return headers


class AttemptReader(Protocol):
    """Reads one attempt's response into the partial message (see :func:`post_openai`)."""

    async def read(self, sse: AsyncIterator[ServerSentEvent]) -> None:
        """Consume the attempt's events; raise ProviderError on failure."""

    def flush(self) -> None:
        """Bring the partial message up to date and push the queued events."""


async def post_openai(
    model: Model,
    options: StreamOptions,
    path: str,
    body: dict[str, Any],
    events: AssistantMessageEventStream,
    output: AssistantMessage,
    new_reader: Callable[[], AttemptReader],
) -> None:
    """POST ``body`` to ``path`` and read each attempt with a fresh reader, retrying as allowed."""
    api_key = options.api_key or env_api_key(model.provider)
    request = SSERequest(
        url=endpoint(model, path),
        headers=request_headers(model, api_key),
        body=body,
        secrets=(api_key,) if api_key else (),
    )
    reader: AttemptReader | None = None

    async def handle(sse: AsyncIterator[ServerSentEvent]) -> None:
        nonlocal reader
        if reader is None:
            # pi emits start once the response headers are in (PI_SPEC 1.4 item 1).
            events.push(StartEvent(partial=output))
        reader = new_reader()
        await reader.read(sse)

    def before_read() -> None:
        if reader is not None:
            reader.flush()

    await post_sse(request, options, handle, lambda: bool(output.content), before_read)


def supports_xhigh(model: Model) -> bool:
    """Whether ``xhigh`` is a real effort level for this model (else it means ``high``)."""
    return any(part in model.id for part in _XHIGH_MODELS)


def reasoning_effort(model: Model, options: StreamOptions) -> ThinkingLevel | None:
    """The requested effort, ``None`` when thinking is off (PI_SPEC 2.8)."""
    level = options.reasoning
    if level == "off":
        return None
    if level == "xhigh" and not supports_xhigh(model):
        return "high"
    return level


def max_output_tokens(model: Model, options: StreamOptions) -> int:
    """The explicit limit, else ``min(model.max_tokens, 32000)`` as pi's simple API."""
    return options.max_tokens or min(model.max_tokens, DEFAULT_MAX_TOKENS_CAP)


def image_url(mime_type: str, data: str) -> str:
    """A ``data:`` URL for a base64 image block."""
    return f"data:{mime_type};base64,{data}"


def as_object(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one (tool arguments must be objects)."""
    return value if isinstance(value, dict) else {}


def require_object(data: Any, what: str) -> dict[str, Any]:
    """``data`` as a JSON object, or a stream error naming what was expected."""
    if not isinstance(data, dict):
        raise ProviderError(f"Malformed {what} from provider: {str(data)[:200]!r}")
    return data


def append_text(store: dict[str, Any], key: str, piece: str) -> None:
    """``store[key] += piece`` without copying the whole text each time.

    ``store`` is a wire dict or a block's ``__dict__`` (pydantic keeps field values
    there). Holding the only reference while concatenating lets CPython grow the string
    in place; ``block.text += piece`` would copy it, which is quadratic for long replies.
    """
    text = store.get(key) or ""
    store[key] = ""  # drop the dict's reference; keeps the key's position
    text += piece
    store[key] = text
