"""API keys: environment variables, the auth file, and models.json ``apiKey`` values.

Resolution order per provider is pi's (``AuthStorage.getApiKey``): a runtime override
(``--api-key``), an ``api_key`` entry of the auth file, an unexpired OAuth access token of
the auth file, the provider's environment variable, and finally the ``apiKey`` of the
provider in models.json. Key values are never put in reprs or error messages; use
:func:`redact` before logging any text that might contain one.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pitui import paths
from pitui.ai.files import read_config_text
from pitui.ai.key_env import ENV_KEYS as ENV_KEYS  # re-exported: the keys API names it
from pitui.errors import ConfigError
from pitui.private_files import write_private

#: Providers that need no key; the value is the placeholder handed to the adapter.
KEYLESS_PROVIDERS: dict[str, str] = {"demo": "demo", "ollama": "ollama"}

COMMAND_TIMEOUT_S = 10.0
_REDACTED = "[redacted]"
# Shorter values are not redacted: replacing them would mangle ordinary words.
_MIN_REDACT_LEN = 8


def env_api_key(provider: str) -> str | None:
    """The key for ``provider`` from its environment variables, if any is set."""
    for name in ENV_KEYS.get(provider, ()):
        value = os.environ.get(name)
        if value:
            return value
    return None


def redact(text: str, keys: Iterable[str | None], mask: str = _REDACTED) -> str:
    """Replace every occurrence of any of ``keys`` in ``text`` with ``mask``.

    Longer keys are replaced first so that a key containing another is fully hidden.
    """
    for key in sorted({k for k in keys if k and len(k) >= _MIN_REDACT_LEN}, key=len, reverse=True):
        if key in text:
            text = text.replace(key, mask)
    return text


# --------------------------------------------------------------------------- config values

_command_cache: dict[str, str | None] = {}


def clear_command_cache() -> None:
    """Forget cached ``!command`` results (pi caches them for the process lifetime)."""
    _command_cache.clear()


async def resolve_config_value(value: str) -> str | None:
    """Resolve a models.json / auth.json value as pi does.

    ``!command`` runs the command in a shell and uses its trimmed stdout (cached; a
    failure, timeout or empty output gives ``None``). Otherwise the value names an
    environment variable if one is set and non-empty, else it is the literal value.
    """
    if value.startswith("!"):
        return await _run_command(value)
    return os.environ.get(value) or value


async def _run_command(config: str) -> str | None:
    if config in _command_cache:
        return _command_cache[config]
    result = await _execute(config[1:])
    _command_cache[config] = result
    return result


async def _execute(command: str) -> str | None:
    process = await asyncio.create_subprocess_shell(
        command,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        stdout, _ = await asyncio.wait_for(process.communicate(), COMMAND_TIMEOUT_S)
    except TimeoutError:
        process.kill()
        await process.wait()
        return None
    if process.returncode != 0:
        return None
    return stdout.decode("utf-8", "replace").strip() or None


async def resolve_headers(headers: Mapping[str, str] | None) -> dict[str, str] | None:
    """Resolve each header value like an API key; empty results are dropped."""
    if not headers:
        return None
    resolved: dict[str, str] = {}
    for name, value in headers.items():
        result = await resolve_config_value(value)
        if result:
            resolved[name] = result
    return resolved or None


# --------------------------------------------------------------------------- auth file


class AuthStorage:
    """Credentials of pi's ``auth.json`` plus runtime overrides and models.json keys.

    The file maps provider → ``{"type": "api_key", "key": ...}`` or an OAuth entry
    (``{"type": "oauth", "access", "refresh", "expires"}``); unknown entries are kept.
    """

    def __init__(self, data: dict[str, Any] | None = None, path: Path | None = None) -> None:
        self.path = path or paths.auth_file()
        self._data: dict[str, Any] = dict(data or {})
        self._runtime: dict[str, str] = {}
        self._configured: dict[str, str] = {}
        self._header_values: list[str] = []

    def __repr__(self) -> str:
        return f"AuthStorage(path={str(self.path)!r}, providers={sorted(self._data)!r})"

    @classmethod
    async def load(cls, path: Path | None = None) -> AuthStorage:
        """Read the auth file (missing → empty).

        Raises:
            ConfigError: Invalid JSON, not UTF-8, a directory or unreadable.
        """
        path = path or paths.auth_file()
        text = await read_config_text(path)
        if text is None:
            return cls(path=path)
        return cls(_parse_auth(text, path), path)

    # ------------------------------------------------------------------ queries

    def providers(self) -> list[str]:
        """Providers that have an entry in the auth file."""
        return list(self._data)

    def problems(self) -> list[str]:
        """Entries of the auth file that give no key (each is ignored, never fatal)."""
        found = []
        for provider, entry in self._data.items():
            why = _entry_problem(entry)
            if why is not None:
                found.append(
                    f'auth file: entry "{provider}" is ignored: {why}\n\nFile: {self.path}'
                )
        return found

    def set_runtime_api_key(self, provider: str, key: str) -> None:
        """A key for this run only (``--api-key``); never written anywhere."""
        self._runtime[provider] = key

    def set_configured_keys(self, keys: Mapping[str, str]) -> None:
        """The ``apiKey`` values of models.json providers (unresolved), the last fallback."""
        self._configured = dict(keys)

    def set_configured_headers(self, values: Iterable[str]) -> None:
        """The ``headers`` values of models.json (unresolved): secrets like ``apiKey``
        (``X-Custom-Auth`` …), so tool output never shows them."""
        self._header_values = [v for v in values if v]

    def has_auth(self, provider: str) -> bool:
        """True if some key is configured for ``provider`` (commands are not run)."""
        return bool(
            provider in KEYLESS_PROVIDERS
            or provider in self._runtime
            or (provider in self._data and _entry_problem(self._data[provider]) is None)
            or env_api_key(provider)
            or provider in self._configured
        )

    def source(self, provider: str) -> str | None:
        """Where the key of ``provider`` comes from: runtime, auth, env, models.json or keyless."""
        if provider in self._runtime:
            return "runtime"
        if provider in self._data:
            return "auth"
        if env_api_key(provider):
            return "env"
        if provider in self._configured:
            return "models.json"
        if provider in KEYLESS_PROVIDERS:
            return "keyless"
        return None

    async def get_api_key(self, provider: str) -> str | None:
        """The key to send for ``provider``, resolved in pi's order, or ``None``."""
        if provider in self._runtime:
            return self._runtime[provider]
        entry = self._data.get(provider)
        if isinstance(entry, dict):
            if entry.get("type") == "api_key" and isinstance(entry.get("key"), str):
                return await resolve_config_value(entry["key"])
            # pitui cannot refresh OAuth tokens; an expired one falls through to the env.
            token = _oauth_access(entry) if entry.get("type") == "oauth" else None
            if token:
                return token
        env = env_api_key(provider)
        if env:
            return env
        configured = self._configured.get(provider)
        if configured:
            return await resolve_config_value(configured)
        return KEYLESS_PROVIDERS.get(provider)

    def known_secrets(self) -> list[str]:
        """Key values this storage knows of, for :func:`redact`.

        The environment's provider keys, ``--api-key``, the auth file's keys and tokens and
        models.json ``apiKey`` and ``headers`` values, each as it is sent: a value naming an
        environment variable is that variable's value; a ``!command`` one is its result
        once it ran. Nothing is run here.
        """
        found = list(self._runtime.values())
        for entry in self._data.values():
            if isinstance(entry, dict):
                found += [v for k, v in entry.items() if k in ("key", "access", "refresh")]
        found += list(self._configured.values()) + self._header_values
        for values in ENV_KEYS.values():
            found += [os.environ.get(name, "") for name in values]
        return [_as_sent(v) for v in found if isinstance(v, str) and v]

    # ------------------------------------------------------------------ writes

    async def set_api_key(self, provider: str, key: str) -> None:
        """Store an API key for ``provider`` in the auth file (mode 0600)."""
        self._data[provider] = {"type": "api_key", "key": key}
        await self._persist(provider, self._data[provider])

    async def remove(self, provider: str) -> None:
        """Delete the stored credential of ``provider``."""
        self._data.pop(provider, None)
        await self._persist(provider, None)

    async def _persist(self, provider: str, entry: dict[str, Any] | None) -> None:
        # Merge into what is on disk now: another pitui or pi may have written meanwhile.
        current = await AuthStorage.load(self.path)
        merged = dict(current._data)
        if entry is None:
            merged.pop(provider, None)
        else:
            merged[provider] = entry
        await asyncio.to_thread(write_private, self.path, json.dumps(merged, indent=2))


def _as_sent(value: str) -> str:
    """The literal a config value resolves to, without running anything."""
    if value.startswith("!"):
        return _command_cache.get(value) or ""
    return os.environ.get(value) or value


def _oauth_access(entry: Mapping[str, Any]) -> str | None:
    # Refreshing needs each provider's OAuth client; an unexpired token is usable as is.
    access, expires = entry.get("access"), entry.get("expires")
    if (
        isinstance(access, str)
        and isinstance(expires, int | float)
        and time.time() * 1000 < expires
    ):
        return access
    return None


def _entry_problem(entry: object) -> str | None:
    """Why an auth-file entry can never give a key (None when it may: unknown types of
    entry are kept for the tools that wrote them, not reported)."""
    if not isinstance(entry, dict):
        return "must be an object"
    kind = entry.get("type")
    if kind == "api_key" and not isinstance(entry.get("key"), str):
        return '"key" must be a string'
    if kind == "oauth" and not isinstance(entry.get("access"), str):
        return '"access" must be a string'
    return None


def _parse_auth(text: str, path: Path) -> dict[str, Any]:
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"Failed to parse auth file: {exc.msg} (line {exc.lineno})\n\nFile: {path}"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"Invalid auth file: root: must be object\n\nFile: {path}")
    return data
