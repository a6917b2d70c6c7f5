"""The one entry point of the LLM layer: ``stream(model, context, options)``.

Adapters register themselves per wire API. Looking an adapter up never raises: an
unknown API yields a stream that fails with a readable ``error`` event.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from pitui.ai import tls
from pitui.ai.event_stream import AssistantMessageEventStream, error_stream
from pitui.ai.options import StreamOptions
from pitui.ai.types import AssistantMessage, Context, Model

StreamFn = Callable[[Model, Context, StreamOptions], AssistantMessageEventStream]

# Adapter modules are imported on first use so that start-up stays cheap.
_ADAPTER_MODULES: dict[str, str] = {
    "anthropic-messages": "pitui.ai.providers.anthropic",
    "openai-completions": "pitui.ai.providers.openai_completions",
    "openai-responses": "pitui.ai.providers.openai_responses",
    "demo": "pitui.ai.providers.demo",
}
_ADAPTERS: dict[str, StreamFn] = {}


def register_api(api: str, fn: StreamFn) -> None:
    """Make ``fn`` the adapter for models whose ``api`` is ``api``."""
    _ADAPTERS[api] = fn


def get_adapter(api: str) -> StreamFn | None:
    """The adapter for ``api``, importing its module on first use."""
    if api not in _ADAPTERS and api in _ADAPTER_MODULES:
        module = importlib.import_module(_ADAPTER_MODULES[api])
        fn: StreamFn = module.stream
        _ADAPTERS.setdefault(api, fn)
    return _ADAPTERS.get(api)


def prepare_connection(model: Model) -> None:
    """Get ready for the first request to ``model``: import its adapter now, and start
    building, in the background, the TLS context of an ``https`` endpoint (adapters
    default to their vendor's https URL; a local ``http://`` model needs none)."""
    get_adapter(model.api)
    if model.api in _ADAPTER_MODULES and model.api != "demo":
        tls.prepare(model.base_url or "https://")


def empty_output(model: Model) -> AssistantMessage:
    """The partial message every stream starts from (PI_SPEC §1.5)."""
    return AssistantMessage(api=model.api, provider=model.provider, model=model.id)


def stream(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AssistantMessageEventStream:
    """Stream one reply of ``model`` to ``context``. Never raises."""
    adapter = get_adapter(model.api)
    if adapter is None:
        return error_stream(empty_output(model), f"No adapter for api: {model.api}")
    return adapter(model, context, options or StreamOptions())


async def complete(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AssistantMessage:
    """Run a stream to its end and return the final message."""
    events = stream(model, context, options)
    async for _ in events:
        pass
    return await events.result()
