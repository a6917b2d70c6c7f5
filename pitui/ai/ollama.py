"""Detect a local Ollama server and list its models as ``openai-completions`` models.

Ollama needs no key. Its native API (``/api/tags``, ``/api/show``) tells names, context
length and capabilities; when it is unavailable the OpenAI-compatible ``/v1/models``
list is used with pi's defaults. Detection never raises: no server → ``[]``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pitui.ai.types import InputKind, Model

if TYPE_CHECKING:
    from pitui.ai.httpx_import import httpx

DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434"
PROVIDER = "ollama"

#: What Ollama's OpenAI-compatible endpoint accepts (pi docs/models.md recommends these).
OLLAMA_COMPAT: dict[str, Any] = {
    "supportsDeveloperRole": False,
    "supportsReasoningEffort": False,
    "supportsStore": False,
    "supportsStrictMode": False,
    "maxTokensField": "max_tokens",
}

_DEFAULT_CONTEXT = 128_000
_DEFAULT_MAX_TOKENS = 16_384


def default_ollama_url() -> str:
    """Where Ollama listens: ``$OLLAMA_HOST`` (Ollama's own variable) or 127.0.0.1:11434."""
    host = os.environ.get("OLLAMA_HOST", "").strip()
    if not host:
        return DEFAULT_OLLAMA_URL
    if "://" not in host:
        host = f"http://{host}"
    parts = urlsplit(host)
    # A server bound to every interface is reached on loopback.
    hostname = "127.0.0.1" if parts.hostname in (None, "0.0.0.0") else parts.hostname
    return f"{parts.scheme}://{hostname}:{parts.port or 11434}"


# The timeout is per HTTP operation (httpx), part of the documented signature.
async def detect_ollama(
    base_url: str | None = None,
    timeout: float = 0.3,  # noqa: ASYNC109
) -> list[Model]:
    """The models served by Ollama at ``base_url``, or ``[]`` if it does not answer.

    ``base_url`` defaults to :func:`default_ollama_url`; a trailing ``/v1`` is accepted.
    """
    root = (base_url or default_ollama_url()).rstrip("/").removesuffix("/v1")
    if not await _listening(root, timeout):
        return []
    from pitui.ai.httpx_import import httpx  # only when something listens (~3 MB, ~20 ms)

    try:
        async with httpx.AsyncClient(base_url=root, timeout=timeout) as client:
            names = await _native_names(client)
            if names is None:
                return await _openai_models(client, root)
            infos = await asyncio.gather(*(_show(client, name) for name in names))
    except (httpx.HTTPError, OSError):
        return []
    return [_model(root, name, info) for name, info in zip(names, infos, strict=True)]


async def _listening(root: str, timeout: float) -> bool:  # noqa: ASYNC109
    """Whether anything accepts a TCP connection at ``root``'s host and port."""
    parts = urlsplit(root)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        _, writer = await asyncio.wait_for(
            asyncio.open_connection(parts.hostname or "127.0.0.1", port), timeout
        )
    except (OSError, TimeoutError):
        return False
    writer.close()
    with contextlib.suppress(OSError):  # a reset while closing still means it listened
        await writer.wait_closed()
    return True


async def _native_names(client: httpx.AsyncClient) -> list[str] | None:
    response = await client.get("/api/tags")
    data = _json_object(response)
    if data is None or not isinstance(data.get("models"), list):
        return None
    names = [m.get("name") or m.get("model") for m in data["models"] if isinstance(m, dict)]
    return [n for n in names if isinstance(n, str) and n]


async def _openai_models(client: httpx.AsyncClient, root: str) -> list[Model]:
    data = _json_object(await client.get("/v1/models"))
    entries = data.get("data") if data else None
    if not isinstance(entries, list):
        return []
    ids = [e.get("id") for e in entries if isinstance(e, dict)]
    return [_model(root, i, {}) for i in ids if isinstance(i, str) and i]


async def _show(client: httpx.AsyncClient, name: str) -> dict[str, Any]:
    # Details are optional: a model whose details fail still gets pi's defaults.
    try:
        response = await client.post("/api/show", json={"model": name})
    except httpx.HTTPError:
        return {}
    return _json_object(response) or {}


def _json_object(response: httpx.Response) -> dict[str, Any] | None:
    if response.status_code != 200:
        return None
    try:
        data = response.json()
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _model(root: str, name: str, info: dict[str, Any]) -> Model:
    capabilities = info.get("capabilities")
    caps = (
        {c for c in capabilities if isinstance(c, str)} if isinstance(capabilities, list) else set()
    )
    context = _context_length(info.get("model_info")) or _DEFAULT_CONTEXT
    inputs: list[InputKind] = ["text", "image"] if "vision" in caps else ["text"]
    return Model(
        id=name,
        name=name,
        api="openai-completions",
        provider=PROVIDER,
        base_url=f"{root}/v1",
        reasoning="thinking" in caps,
        input=inputs,
        context_window=context,
        max_tokens=min(_DEFAULT_MAX_TOKENS, context),
        compat=dict(OLLAMA_COMPAT),
    )


def _context_length(model_info: Any) -> int | None:
    # Keys look like "llama.context_length", "qwen2.context_length", …
    if not isinstance(model_info, dict):
        return None
    for key, value in model_info.items():
        if key.endswith(".context_length") and isinstance(value, int) and value > 0:
            return value
    return None
