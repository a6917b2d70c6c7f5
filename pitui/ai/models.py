"""The model catalogue: built-in models, user models from models.json, and the default.

Built-in facts (ids, context windows, output limits, prices in USD per million tokens)
are those of pi's ``packages/ai/src/models.generated.ts`` for Anthropic and OpenAI, and
for the default model of OpenRouter and Groq.
:class:`ModelRegistry` merges them with ``<pitui home>/models.json`` exactly as pi does
and answers "which models can I use now" and "which one by default".
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import msgspec

from pitui import paths
from pitui.ai.files import read_config_text
from pitui.ai.keys import AuthStorage
from pitui.ai.models_config import (
    ModelsConfig,
    ModelsConfigError,
    apply_provider_overrides,
    build_custom_models,
    parse_models_config,
)
from pitui.ai.ollama import detect_ollama
from pitui.ai.types import THINKING_LEVELS, InputKind, Model, ModelCost, Number, ThinkingLevel
from pitui.errors import ConfigError, ModelNotFoundError
from pitui.lazy_pattern import lazy_pattern

ANTHROPIC_URL = "https://api.anthropic.com"
OPENAI_URL = "https://api.openai.com/v1"
OPENROUTER_URL = "https://openrouter.ai/api/v1"
GROQ_URL = "https://api.groq.com/openai/v1"

_Row = tuple[str, str, bool, bool, Number, Number, Number, Number, int, int]
# (id, name, reasoning, images, $in, $out, $cacheRead, $cacheWrite, contextWindow, maxTokens)
_ANTHROPIC: tuple[_Row, ...] = (
    ("claude-opus-4-6", "Claude Opus 4.6", True, True, 5, 25, 0.5, 6.25, 1000000, 128000),
    ("claude-sonnet-4-6", "Claude Sonnet 4.6", True, True, 3, 15, 0.3, 3.75, 1000000, 64000),
    ("claude-opus-4-5", "Claude Opus 4.5 (latest)", True, True, 5, 25, 0.5, 6.25, 200000, 64000),
    ("claude-opus-4-5-20251101", "Claude Opus 4.5", True, True, 5, 25, 0.5, 6.25, 200000, 64000),
    ("claude-sonnet-4-5", "Claude Sonnet 4.5 (latest)", True, True, 3, 15, 0.3, 3.75, 200000, 64000),  # noqa: E501
    ("claude-sonnet-4-5-20250929", "Claude Sonnet 4.5", True, True, 3, 15, 0.3, 3.75, 200000, 64000),  # noqa: E501
    ("claude-haiku-4-5", "Claude Haiku 4.5 (latest)", True, True, 1, 5, 0.1, 1.25, 200000, 64000),
    ("claude-haiku-4-5-20251001", "Claude Haiku 4.5", True, True, 1, 5, 0.1, 1.25, 200000, 64000),
    ("claude-opus-4-1", "Claude Opus 4.1 (latest)", True, True, 15, 75, 1.5, 18.75, 200000, 32000),
    ("claude-opus-4-1-20250805", "Claude Opus 4.1", True, True, 15, 75, 1.5, 18.75, 200000, 32000),
    ("claude-opus-4-0", "Claude Opus 4 (latest)", True, True, 15, 75, 1.5, 18.75, 200000, 32000),
    ("claude-opus-4-20250514", "Claude Opus 4", True, True, 15, 75, 1.5, 18.75, 200000, 32000),
    ("claude-sonnet-4-0", "Claude Sonnet 4 (latest)", True, True, 3, 15, 0.3, 3.75, 200000, 64000),
    ("claude-sonnet-4-20250514", "Claude Sonnet 4", True, True, 3, 15, 0.3, 3.75, 200000, 64000),
    ("claude-3-7-sonnet-latest", "Claude Sonnet 3.7 (latest)", True, True, 3, 15, 0.3, 3.75, 200000, 64000),  # noqa: E501
    ("claude-3-7-sonnet-20250219", "Claude Sonnet 3.7", True, True, 3, 15, 0.3, 3.75, 200000, 64000),  # noqa: E501
    ("claude-3-5-haiku-latest", "Claude Haiku 3.5 (latest)", False, True, 0.8, 4, 0.08, 1, 200000, 8192),  # noqa: E501
    ("claude-3-5-haiku-20241022", "Claude Haiku 3.5", False, True, 0.8, 4, 0.08, 1, 200000, 8192),
    ("claude-3-5-sonnet-20241022", "Claude Sonnet 3.5 v2", False, True, 3, 15, 0.3, 3.75, 200000, 8192),  # noqa: E501
    ("claude-3-5-sonnet-20240620", "Claude Sonnet 3.5", False, True, 3, 15, 0.3, 3.75, 200000, 8192),  # noqa: E501
    ("claude-3-opus-20240229", "Claude Opus 3", False, True, 15, 75, 1.5, 18.75, 200000, 4096),
    ("claude-3-sonnet-20240229", "Claude Sonnet 3", False, True, 3, 15, 0.3, 0.3, 200000, 4096),
    ("claude-3-haiku-20240307", "Claude Haiku 3", False, True, 0.25, 1.25, 0.03, 0.3, 200000, 4096),
)  # fmt: skip
_OPENAI: tuple[_Row, ...] = (
    ("gpt-5.4", "GPT-5.4", True, True, 2.5, 15, 0.25, 0, 272000, 128000),
    ("gpt-5.4-pro", "GPT-5.4 Pro", True, True, 30, 180, 0, 0, 1050000, 128000),
    ("gpt-5.3-codex", "GPT-5.3 Codex", True, True, 1.75, 14, 0.175, 0, 400000, 128000),
    ("gpt-5.3-codex-spark", "GPT-5.3 Codex Spark", True, True, 1.75, 14, 0.175, 0, 128000, 32000),
    ("gpt-5.2", "GPT-5.2", True, True, 1.75, 14, 0.175, 0, 400000, 128000),
    ("gpt-5.2-chat-latest", "GPT-5.2 Chat", True, True, 1.75, 14, 0.175, 0, 128000, 16384),
    ("gpt-5.2-codex", "GPT-5.2 Codex", True, True, 1.75, 14, 0.175, 0, 400000, 128000),
    ("gpt-5.2-pro", "GPT-5.2 Pro", True, True, 21, 168, 0, 0, 400000, 128000),
    ("gpt-5.1", "GPT-5.1", True, True, 1.25, 10, 0.13, 0, 400000, 128000),
    ("gpt-5.1-chat-latest", "GPT-5.1 Chat", True, True, 1.25, 10, 0.125, 0, 128000, 16384),
    ("gpt-5.1-codex", "GPT-5.1 Codex", True, True, 1.25, 10, 0.125, 0, 400000, 128000),
    ("gpt-5.1-codex-max", "GPT-5.1 Codex Max", True, True, 1.25, 10, 0.125, 0, 400000, 128000),
    ("gpt-5.1-codex-mini", "GPT-5.1 Codex mini", True, True, 0.25, 2, 0.025, 0, 400000, 128000),
    ("gpt-5", "GPT-5", True, True, 1.25, 10, 0.125, 0, 400000, 128000),
    ("gpt-5-chat-latest", "GPT-5 Chat Latest", False, True, 1.25, 10, 0.125, 0, 128000, 16384),
    ("gpt-5-codex", "GPT-5-Codex", True, True, 1.25, 10, 0.125, 0, 400000, 128000),
    ("gpt-5-mini", "GPT-5 Mini", True, True, 0.25, 2, 0.025, 0, 400000, 128000),
    ("gpt-5-nano", "GPT-5 Nano", True, True, 0.05, 0.4, 0.005, 0, 400000, 128000),
    ("gpt-5-pro", "GPT-5 Pro", True, True, 15, 120, 0, 0, 400000, 272000),
    ("gpt-4.1", "GPT-4.1", False, True, 2, 8, 0.5, 0, 1047576, 32768),
    ("gpt-4.1-mini", "GPT-4.1 mini", False, True, 0.4, 1.6, 0.1, 0, 1047576, 32768),
    ("gpt-4.1-nano", "GPT-4.1 nano", False, True, 0.1, 0.4, 0.03, 0, 1047576, 32768),
    ("gpt-4o", "GPT-4o", False, True, 2.5, 10, 1.25, 0, 128000, 16384),
    ("gpt-4o-2024-11-20", "GPT-4o (2024-11-20)", False, True, 2.5, 10, 1.25, 0, 128000, 16384),
    ("gpt-4o-2024-08-06", "GPT-4o (2024-08-06)", False, True, 2.5, 10, 1.25, 0, 128000, 16384),
    ("gpt-4o-2024-05-13", "GPT-4o (2024-05-13)", False, True, 5, 15, 0, 0, 128000, 4096),
    ("gpt-4o-mini", "GPT-4o mini", False, True, 0.15, 0.6, 0.08, 0, 128000, 16384),
    ("gpt-4-turbo", "GPT-4 Turbo", False, True, 10, 30, 0, 0, 128000, 4096),
    ("gpt-4", "GPT-4", False, False, 30, 60, 0, 0, 8192, 8192),
    ("o4-mini", "o4-mini", True, True, 1.1, 4.4, 0.28, 0, 200000, 100000),
    ("o4-mini-deep-research", "o4-mini-deep-research", True, True, 2, 8, 0.5, 0, 200000, 100000),
    ("o3", "o3", True, True, 2, 8, 0.5, 0, 200000, 100000),
    ("o3-pro", "o3-pro", True, True, 20, 80, 0, 0, 200000, 100000),
    ("o3-mini", "o3-mini", True, False, 1.1, 4.4, 0.55, 0, 200000, 100000),
    ("o3-deep-research", "o3-deep-research", True, True, 10, 40, 2.5, 0, 200000, 100000),
    ("o1", "o1", True, True, 15, 60, 7.5, 0, 200000, 100000),
    ("o1-pro", "o1-pro", True, True, 150, 600, 0, 0, 200000, 100000),
    ("codex-mini-latest", "Codex Mini", True, False, 1.5, 6, 0.375, 0, 200000, 100000),
)  # fmt: skip
# The default model of each key-only provider (DEFAULT_MODEL_PER_PROVIDER), so that its
# key alone selects it as in pi; models.json adds the rest of a provider's catalogue.
_OPENROUTER: tuple[_Row, ...] = (
    ("openai/gpt-5.1-codex", "OpenAI: GPT-5.1-Codex", True, True, 1.25, 10, 0.125, 0, 400000, 128000),  # noqa: E501
)  # fmt: skip
_GROQ: tuple[_Row, ...] = (
    ("openai/gpt-oss-120b", "GPT OSS 120B", True, False, 0.15, 0.6, 0, 0, 131072, 65536),
)  # fmt: skip

#: pi's default model per provider (model-resolver.ts), tried in this order.
DEFAULT_MODEL_PER_PROVIDER: dict[str, str] = {
    "anthropic": "claude-opus-4-6",
    "openai": "gpt-5.4",
    "openrouter": "openai/gpt-5.1-codex",
    "groq": "openai/gpt-oss-120b",
}

DEMO_MODEL = Model(
    id="demo",
    name="Demo (offline)",
    api="demo",
    provider="demo",
    base_url="",
    reasoning=True,
    input=["text", "image"],
    cost=ModelCost(),
    context_window=128_000,
    max_tokens=16_384,
)


def _from_rows(rows: tuple[_Row, ...], provider: str, api: str, base_url: str) -> list[Model]:
    models = []
    for mid, name, reasoning, images, cin, cout, cread, cwrite, window, max_out in rows:
        inputs: list[InputKind] = ["text", "image"] if images else ["text"]
        models.append(
            Model(
                id=mid,
                name=name,
                api=api,
                provider=provider,
                base_url=base_url,
                reasoning=reasoning,
                input=inputs,
                cost=ModelCost(input=cin, output=cout, cache_read=cread, cache_write=cwrite),
                context_window=window,
                max_tokens=max_out,
            )
        )
    return models


def builtin_models() -> list[Model]:
    """Fresh copies of every built-in model, demo last."""
    return [
        *_from_rows(_ANTHROPIC, "anthropic", "anthropic-messages", ANTHROPIC_URL),
        *_from_rows(_OPENAI, "openai", "openai-responses", OPENAI_URL),
        *_from_rows(_OPENROUTER, "openrouter", "openai-completions", OPENROUTER_URL),
        *_from_rows(_GROQ, "groq", "openai-completions", GROQ_URL),
        DEMO_MODEL.model_copy(deep=True),
    ]


class ModelChoice(msgspec.Struct, frozen=True):
    """A model picked from a ``--model`` argument, with its ``:thinking`` suffix if any."""

    model: Model
    thinking: ThinkingLevel | None = None
    warning: str | None = None


class ModelRegistry:
    """Built-in plus user models, and the keys to use them.

    Build with :meth:`load` (reads models.json and auth.json). An invalid models.json
    never breaks the registry: the built-ins stay usable and :attr:`error` says why.
    """

    def __init__(
        self,
        models: list[Model] | None = None,
        auth: AuthStorage | None = None,
        error: ConfigError | None = None,
    ) -> None:
        self._models = models if models is not None else builtin_models()
        self.auth = auth or AuthStorage()
        self.error = error

    def __repr__(self) -> str:
        return f"ModelRegistry({len(self._models)} models, error={self.error is not None})"

    def warnings(self) -> list[str]:
        """What to tell the user about models.json and the auth file (never fatal)."""
        found = [str(self.error)] if self.error is not None else []
        return found + self.auth.problems()

    def default_problem(self, provider: str | None, model_id: str | None) -> str | None:
        """Why the settings' ``defaultProvider``/``defaultModel`` cannot be used (or None)."""
        if provider and all(m.provider != provider for m in self._models):
            return f'settings: defaultProvider "{provider}" is not a known provider'
        if provider and model_id and self.find(provider, model_id) is None:
            return f'settings: defaultModel "{model_id}" is not a model of "{provider}"'
        if model_id and not provider:
            return f'settings: defaultModel "{model_id}" has no defaultProvider'
        return None

    @classmethod
    async def load(
        cls, models_file: Path | None = None, auth: AuthStorage | None = None
    ) -> ModelRegistry:
        """Read models.json (and the auth file unless ``auth`` is given).

        Never raises for a bad file: an invalid auth file leaves only environment keys,
        an invalid models.json leaves the built-ins; either way :attr:`error` says why.
        """
        auth_error: ConfigError | None = None
        if auth is None:
            try:
                auth = await AuthStorage.load()
            except ConfigError as exc:
                auth, auth_error = AuthStorage(), exc
        path = models_file or paths.models_file()
        try:
            text = await read_config_text(path)
        except ConfigError as exc:
            return cls(builtin_models(), auth, ConfigError(f"Failed to load models.json: {exc}"))
        if text is None:
            return cls(builtin_models(), auth, auth_error)
        try:
            config = parse_models_config(text, path)
        except ModelsConfigError as exc:
            return cls(builtin_models(), auth, ConfigError(str(exc)))
        return cls(await _merge(config), _with_configured_keys(auth, config), auth_error)

    # ------------------------------------------------------------------ lookups

    def all(self) -> list[Model]:
        """Every known model: built-ins (with overrides), custom ones, detected Ollama ones."""
        return list(self._models)

    def find(self, provider: str, model_id: str) -> Model | None:
        """The model with exactly this provider and id."""
        return next((m for m in self._models if m.provider == provider and m.id == model_id), None)

    def available(self) -> list[Model]:
        """Models whose provider has a key configured (or needs none)."""
        return [m for m in self._models if self.auth.has_auth(m.provider)]

    def usable_reason(self, model: Model) -> str | None:
        """Why ``model`` can be used now: ``key``, ``demo``, ``ollama``; ``None`` if it cannot."""
        source = self.auth.source(model.provider)
        if source is None:
            return None
        return model.provider if source == "keyless" else "key"

    async def get_api_key(self, model: Model) -> str | None:
        """The key to send with requests to ``model`` (keyless providers get a placeholder)."""
        return await self.auth.get_api_key(model.provider)

    def add_models(self, models: list[Model]) -> None:
        """Add (or replace, by provider and id) models found at run time, e.g. Ollama's."""
        for model in models:
            self._models = [
                m for m in self._models if (m.provider, m.id) != (model.provider, model.id)
            ]
            self._models.append(model)

    async def refresh_ollama(self, base_url: str | None = None) -> list[Model]:
        """Detect Ollama and add its models; returns what was found."""
        found = await detect_ollama(base_url)
        self.add_models(found)
        return found

    # ------------------------------------------------------------------ --model

    def parse_model_arg(self, arg: str, provider: str | None = None) -> ModelChoice:
        """Resolve ``provider/id[:thinking]`` (or a fuzzy id) as pi's ``--model`` does.

        Raises:
            ModelNotFoundError: with pi's message when nothing matches.
        """
        choice = _resolve_cli_model(self._models, arg, provider)
        if provider or "/" in arg:
            return choice
        return _disambiguate(self._models, choice, self.auth.has_auth)

    # ------------------------------------------------------------------ default

    async def resolve_default(
        self,
        default_provider: str | None = None,
        default_model: str | None = None,
        ollama_url: str | None = None,
    ) -> Model:
        """The model to start with when none was chosen.

        The settings' default → the first provider with a key (its pi default model if
        present) → the first model of a local Ollama → the offline demo model.
        """
        if default_provider and default_model:
            found = self.find(default_provider, default_model)
            if found is not None:
                return found
        keyed = [m for m in self.available() if self.auth.source(m.provider) != "keyless"]
        for provider, model_id in DEFAULT_MODEL_PER_PROVIDER.items():
            match = next((m for m in keyed if (m.provider, m.id) == (provider, model_id)), None)
            if match is not None:
                return match
        if keyed:
            return keyed[0]
        detected = await self.refresh_ollama(ollama_url)
        if detected:
            return detected[0]
        return self.find("demo", "demo") or DEMO_MODEL.model_copy(deep=True)


async def _merge(config: ModelsConfig) -> list[Model]:
    """Built-ins with provider/model overrides, then custom models upserted by id."""
    merged: list[Model] = []
    for model in builtin_models():
        provider = config.providers.get(model.provider)
        merged.append(await apply_provider_overrides(model, provider) if provider else model)
    for custom in await build_custom_models(config):
        index = next(
            (i for i, m in enumerate(merged) if (m.provider, m.id) == (custom.provider, custom.id)),
            None,
        )
        if index is None:
            merged.append(custom)
        else:
            merged[index] = custom
    return merged


def _with_configured_keys(auth: AuthStorage, config: ModelsConfig) -> AuthStorage:
    auth.set_configured_keys({name: p.api_key for name, p in config.providers.items() if p.api_key})
    auth.set_configured_headers(_header_values(config))
    return auth


def _header_values(config: ModelsConfig) -> list[str]:
    """Every ``headers`` value of models.json: provider, model and override level."""
    values: list[str] = []
    for provider in config.providers.values():
        levels = [provider.headers, *(m.headers for m in provider.models or [])]
        levels += [o.headers for o in (provider.model_overrides or {}).values()]
        values += [v for headers in levels for v in (headers or {}).values()]
    return values


# --------------------------------------------------------------------------- --model matching

_DATED = lazy_pattern(r"-\d{8}$")


def _is_alias(model_id: str) -> bool:
    return model_id.endswith("-latest") or not _DATED.search(model_id)


def _exact(models: list[Model], ref: str) -> Model | None:
    ref = ref.strip().lower()
    if not ref:
        return None
    for key in (lambda m: f"{m.provider}/{m.id}".lower(), lambda m: m.id.lower()):
        hits = [m for m in models if key(m) == ref]
        if hits:
            return hits[0] if len(hits) == 1 else None
    return None


def _match(models: list[Model], pattern: str) -> Model | None:
    exact = _exact(models, pattern)
    if exact is not None:
        return exact
    needle = pattern.lower()
    hits = [m for m in models if needle in m.id.lower() or needle in (m.name or "").lower()]
    if not hits:
        return None
    aliases = [m for m in hits if _is_alias(m.id)]
    pool = aliases or hits
    return max(pool, key=lambda m: m.id)


def _parse_pattern(models: list[Model], pattern: str) -> tuple[Model | None, ThinkingLevel | None]:
    found = _match(models, pattern)
    if found is not None or ":" not in pattern:
        return found, None
    prefix, _, suffix = pattern.rpartition(":")
    if suffix not in THINKING_LEVELS:
        return None, None
    model, _ = _parse_pattern(models, prefix)
    level: ThinkingLevel | None = next((t for t in THINKING_LEVELS if t == suffix), None)
    return model, (level if model is not None else None)


def _resolve_cli_model(models: list[Model], arg: str, cli_provider: str | None) -> ModelChoice:
    providers = {m.provider.lower(): m.provider for m in models}
    provider = providers.get(cli_provider.lower()) if cli_provider else None
    if cli_provider and provider is None:
        raise ModelNotFoundError(
            f'Unknown provider "{cli_provider}". '
            "Use --list-models to see available providers/models."
        )
    pattern = arg
    if provider is None and "/" in arg:
        head, _, tail = arg.partition("/")
        provider = providers.get(head.lower())
        pattern = tail if provider else arg
    elif provider and arg.lower().startswith(f"{provider.lower()}/"):
        pattern = arg[len(provider) + 1 :]
    if provider is None:
        exact = _exact(models, arg)
        if exact is not None:
            return ModelChoice(exact)
    candidates = [m for m in models if m.provider == provider] if provider else models
    model, thinking = _parse_pattern(candidates, pattern)
    if model is None and provider and pattern != arg:
        # "openai/gpt-4o:extended" may be an OpenRouter id, not provider "openai".
        model, thinking = _parse_pattern(models, arg)
    if model is not None:
        return ModelChoice(model, thinking)
    if provider:
        fallback = _fallback_model(models, provider, pattern)
        if fallback is not None:
            return ModelChoice(
                fallback,
                warning=f'Model "{pattern}" not found for provider "{provider}". '
                "Using custom model id.",
            )
    display = f"{provider}/{pattern}" if provider else arg
    raise ModelNotFoundError(
        f'Model "{display}" not found. Use --list-models to see available models.'
    )


def _disambiguate(
    models: list[Model], choice: ModelChoice, has_auth: Callable[[str], bool]
) -> ModelChoice:
    """A bare id that several providers offer: prefer one with a key, and say so."""
    model_id = choice.model.id
    same = [m for m in models if m.id.lower() == model_id.lower()]
    if len({m.provider for m in same}) < 2:
        return choice
    picked = next((m for m in same if has_auth(m.provider)), choice.model)
    names = ", ".join(f"{m.provider}/{m.id}" for m in same)
    warning = (
        f'Model "{model_id}" is offered by several providers ({names}); using '
        f"{picked.provider}/{picked.id}. Pass --model PROVIDER/{model_id} to choose another."
    )
    return ModelChoice(picked, choice.thinking, warning)


def _fallback_model(models: list[Model], provider: str, model_id: str) -> Model | None:
    """An unknown id on a known provider: pi reuses the provider's default model's settings."""
    own = [m for m in models if m.provider == provider]
    if not own:
        return None
    default_id = DEFAULT_MODEL_PER_PROVIDER.get(provider)
    base = next((m for m in own if m.id == default_id), own[0])
    return base.model_copy(update={"id": model_id, "name": model_id}, deep=True)
