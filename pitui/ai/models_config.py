"""User providers and models from ``<pitui home>/models.json`` (pi's schema, unchanged).

A pi ``models.json`` copied over works as is: the same fields, the same defaults
(contextWindow 128000, maxTokens 16384, input ``["text"]``, zero cost) and the same
validation rules and messages (pi ``coding-agent/src/core/model-registry.ts``).
"""

# No ``from __future__ import annotations``: pydantic would compile each field's
# annotation string (a ForwardRef) when the class is made, ~50 k instructions a field.

import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pitui.ai._base import to_camel
from pitui.ai.keys import resolve_config_value, resolve_headers
from pitui.ai.types import InputKind, Model, ModelCost

NonEmpty = Annotated[str, Field(min_length=1)]
Number = int | float


class _Schema(BaseModel):
    # Strict like pi's JSON schema (no "3" for 3); extra keys allowed as ajv allows them.
    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_alias=True,
        validate_by_name=True,
        strict=True,
        extra="allow",
    )


class CostDef(_Schema):
    """Prices per million tokens; all four are required when ``cost`` is given."""

    input: Number
    output: Number
    cache_read: Number
    cache_write: Number


class PartialCostDef(_Schema):
    """A cost override: only the given components change."""

    input: Number | None = None
    output: Number | None = None
    cache_read: Number | None = None
    cache_write: Number | None = None


class ModelDef(_Schema):
    """One custom model of a provider."""

    id: NonEmpty
    name: NonEmpty | None = None
    api: NonEmpty | None = None
    base_url: NonEmpty | None = None
    reasoning: bool | None = None
    input: list[Literal["text", "image"]] | None = None
    cost: CostDef | None = None
    context_window: Number | None = None
    max_tokens: Number | None = None
    headers: dict[str, str] | None = None
    compat: dict[str, Any] | None = None


class ModelOverrideDef(_Schema):
    """Changes to one built-in model (``modelOverrides``)."""

    name: NonEmpty | None = None
    reasoning: bool | None = None
    input: list[Literal["text", "image"]] | None = None
    cost: PartialCostDef | None = None
    context_window: Number | None = None
    max_tokens: Number | None = None
    headers: dict[str, str] | None = None
    compat: dict[str, Any] | None = None


class ProviderDef(_Schema):
    """A provider entry: custom models, or overrides of a built-in provider."""

    base_url: NonEmpty | None = None
    api_key: NonEmpty | None = None
    api: NonEmpty | None = None
    headers: dict[str, str] | None = None
    compat: dict[str, Any] | None = None
    auth_header: bool | None = None
    models: list[ModelDef] | None = None
    model_overrides: dict[str, ModelOverrideDef] | None = None


class ModelsConfig(_Schema):
    """The whole file."""

    providers: dict[str, ProviderDef]


class ModelsConfigError(ValueError):
    """models.json is invalid; the message is pi's wording, naming the field and file."""


def parse_models_config(text: str, path: Path) -> ModelsConfig:
    """Parse and validate models.json text; raises :class:`ModelsConfigError`."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ModelsConfigError(
            f"Failed to parse models.json: {exc.msg} at line {exc.lineno} column {exc.colno}"
            f"\n\nFile: {path}"
        ) from None
    try:
        config = ModelsConfig.model_validate(data)
    except ValidationError as exc:
        lines = [f"  - {_pointer(err['loc'])}: {err['msg']}" for err in exc.errors()]
        raise ModelsConfigError(
            "Invalid models.json schema:\n" + "\n".join(lines) + f"\n\nFile: {path}"
        ) from None
    problem = _check_rules(config)
    if problem:
        raise ModelsConfigError(f"Failed to load models.json: {problem}\n\nFile: {path}")
    return config


def _pointer(loc: tuple[int | str, ...]) -> str:
    # JSON pointer like ajv's instancePath: /providers/ollama/models/0/id
    return "/" + "/".join(str(part) for part in loc) if loc else "root"


def _check_rules(config: ModelsConfig) -> str | None:
    """pi's checks beyond the schema; the first problem found, or ``None``."""
    for name, provider in config.providers.items():
        models = provider.models or []
        if not models:
            if not (provider.base_url or provider.compat or provider.model_overrides):
                return (
                    f'Provider {name}: must specify "baseUrl", "compat", "modelOverrides", '
                    'or "models".'
                )
        elif not provider.base_url:
            return f'Provider {name}: "baseUrl" is required when defining custom models.'
        elif not provider.api_key:
            return f'Provider {name}: "apiKey" is required when defining custom models.'
        for model in models:
            if not (provider.api or model.api):
                return (
                    f'Provider {name}, model {model.id}: no "api" specified. '
                    "Set at provider or model level."
                )
            if model.context_window is not None and model.context_window <= 0:
                return f"Provider {name}, model {model.id}: invalid contextWindow"
            if model.max_tokens is not None and model.max_tokens <= 0:
                return f"Provider {name}, model {model.id}: invalid maxTokens"
    return None


# --------------------------------------------------------------------------- building models


def merge_compat(
    base: dict[str, Any] | None, override: dict[str, Any] | None
) -> dict[str, Any] | None:
    """Shallow-merge compat settings; the routing objects are merged one level deeper."""
    if not override:
        return base
    merged = {**(base or {}), **override}
    for key in ("openRouterRouting", "vercelGatewayRouting"):
        if (base or {}).get(key) or override.get(key):
            merged[key] = {**(base or {}).get(key, {}), **override.get(key, {})}
    return merged


async def build_custom_models(config: ModelsConfig) -> list[Model]:
    """The custom models of every provider, with pi's defaults filled in."""
    models: list[Model] = []
    for name, provider in config.providers.items():
        provider_headers = await resolve_headers(provider.headers)
        for definition in provider.models or []:
            api = definition.api or provider.api
            if not api:
                continue
            model_headers = await resolve_headers(definition.headers)
            headers = (
                {**(provider_headers or {}), **(model_headers or {})}
                if provider_headers or model_headers
                else None
            )
            if provider.auth_header and provider.api_key:
                key = await resolve_config_value(provider.api_key)
                if key:
                    headers = {**(headers or {}), "Authorization": f"Bearer {key}"}
            models.append(_custom_model(name, provider, definition, api, headers))
    return models


def _custom_model(
    provider_name: str,
    provider: ProviderDef,
    definition: ModelDef,
    api: str,
    headers: dict[str, str] | None,
) -> Model:
    cost = definition.cost
    inputs: list[InputKind] = list(definition.input or ["text"])
    optional: dict[str, Any] = {}
    # Unset optionals stay absent from the model's JSON, as in pi.
    if headers:
        optional["headers"] = headers
    compat = merge_compat(provider.compat, definition.compat)
    if compat is not None:
        optional["compat"] = compat
    return Model(
        id=definition.id,
        name=definition.name or definition.id,
        api=api,
        provider=provider_name,
        base_url=definition.base_url or provider.base_url or "",
        reasoning=bool(definition.reasoning),
        input=inputs,
        cost=ModelCost(
            input=cost.input,
            output=cost.output,
            cache_read=cost.cache_read,
            cache_write=cost.cache_write,
        )
        if cost
        else ModelCost(),
        context_window=int(definition.context_window or 128_000),
        max_tokens=int(definition.max_tokens or 16_384),
        **optional,
    )


async def apply_provider_overrides(model: Model, provider: ProviderDef) -> Model:
    """A built-in model with the provider's baseUrl / headers / compat / model override."""
    update: dict[str, Any] = {}
    if provider.base_url:
        update["base_url"] = provider.base_url
    headers = await resolve_headers(provider.headers)
    if headers:
        update["headers"] = {**(model.headers or {}), **headers}
    if provider.compat:
        update["compat"] = merge_compat(model.compat, provider.compat)
    result = model.model_copy(update=update, deep=True)
    override = (provider.model_overrides or {}).get(model.id)
    if override is not None:
        result = await _apply_model_override(result, override)
    return result


async def _apply_model_override(model: Model, override: ModelOverrideDef) -> Model:
    update: dict[str, Any] = {}
    for field in ("name", "reasoning", "context_window", "max_tokens"):
        value = getattr(override, field)
        if value is not None:
            update[field] = int(value) if field in ("context_window", "max_tokens") else value
    if override.input is not None:
        update["input"] = list(override.input)
    if override.cost is not None:
        update["cost"] = ModelCost(
            input=_pick(override.cost.input, model.cost.input),
            output=_pick(override.cost.output, model.cost.output),
            cache_read=_pick(override.cost.cache_read, model.cost.cache_read),
            cache_write=_pick(override.cost.cache_write, model.cost.cache_write),
        )
    headers = await resolve_headers(override.headers)
    if headers:
        update["headers"] = {**(model.headers or {}), **headers}
    if override.compat:
        update["compat"] = merge_compat(model.compat, override.compat)
    return model.model_copy(update=update, deep=True)


def _pick(value: Number | None, fallback: Number) -> Number:
    return fallback if value is None else value
