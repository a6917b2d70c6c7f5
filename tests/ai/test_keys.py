"""API key resolution: environment, auth file (0600, pi format), models.json values, redaction."""

from __future__ import annotations

import json
import stat
import time
from pathlib import Path

import pytest

from pitui import paths
from pitui.ai.keys import (
    AuthStorage,
    clear_command_cache,
    env_api_key,
    redact,
    resolve_config_value,
    resolve_headers,
)
from pitui.ai.options import StreamOptions
from pitui.errors import ConfigError

SECRET = "sk-test-0123456789abcdef"


@pytest.fixture(autouse=True)
def _fresh_command_cache() -> None:
    clear_command_cache()


def test_env_keys_follow_pis_map(monkeypatch: pytest.MonkeyPatch) -> None:
    assert env_api_key("openai") is None
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or")
    monkeypatch.setenv("GROQ_API_KEY", "gsk")
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-ds")
    assert env_api_key("openai") == "sk-openai"
    assert env_api_key("openrouter") == "sk-or"
    assert env_api_key("groq") == "gsk"
    assert env_api_key("deepseek") == "sk-ds"
    assert env_api_key("nobody") is None


def test_anthropic_oauth_token_wins_over_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api")
    assert env_api_key("anthropic") == "sk-ant-api"
    monkeypatch.setenv("ANTHROPIC_OAUTH_TOKEN", "sk-ant-oat-token")
    assert env_api_key("anthropic") == "sk-ant-oat-token"


async def test_config_value_literal_env_and_command(monkeypatch: pytest.MonkeyPatch) -> None:
    assert await resolve_config_value("sk-literal") == "sk-literal"
    monkeypatch.setenv("MY_KEY_VAR", "from-env")
    assert await resolve_config_value("MY_KEY_VAR") == "from-env"
    assert await resolve_config_value("!printf '  from-command \\n'") == "from-command"
    assert await resolve_config_value("!exit 3") is None
    assert await resolve_config_value("!true") is None


async def test_command_results_are_cached(tmp_path: Path) -> None:
    counter = tmp_path / "count"
    command = f"!echo x >> {counter}; echo key"
    assert await resolve_config_value(command) == "key"
    assert await resolve_config_value(command) == "key"
    assert counter.read_text().count("x") == 1


async def test_headers_resolve_like_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PORTKEY", "pk-1")
    headers = await resolve_headers({"x-a": "PORTKEY", "x-b": "!echo cmd", "x-c": "!false"})
    assert headers == {"x-a": "pk-1", "x-b": "cmd"}
    assert await resolve_headers(None) is None


async def test_set_api_key_writes_pi_format_with_mode_0600(pitui_home: Path) -> None:
    auth = await AuthStorage.load()
    await auth.set_api_key("openai", SECRET)
    path = paths.auth_file()
    assert json.loads(path.read_text()) == {"openai": {"type": "api_key", "key": SECRET}}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    reloaded = await AuthStorage.load()
    assert await reloaded.get_api_key("openai") == SECRET


async def test_writes_merge_with_entries_written_meanwhile(pitui_home: Path) -> None:
    auth = await AuthStorage.load()
    path = paths.auth_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    oauth = {"type": "oauth", "access": "a", "refresh": "r", "expires": 1}
    path.write_text(json.dumps({"anthropic": oauth}))
    await auth.set_api_key("openai", SECRET)
    assert json.loads(path.read_text()) == {
        "anthropic": oauth,
        "openai": {"type": "api_key", "key": SECRET},
    }
    await auth.remove("openai")
    assert json.loads(path.read_text()) == {"anthropic": oauth}


async def test_resolution_order(pitui_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    auth = AuthStorage({"openai": {"type": "api_key", "key": "from-auth"}})
    auth.set_configured_keys({"openai": "from-models-json", "custom": "CUSTOM_VAR"})
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    assert await auth.get_api_key("openai") == "from-auth"
    auth.set_runtime_api_key("openai", "from-cli")
    assert await auth.get_api_key("openai") == "from-cli"
    plain = AuthStorage()
    plain.set_configured_keys({"openai": "from-models-json"})
    assert await plain.get_api_key("openai") == "from-env"
    monkeypatch.delenv("OPENAI_API_KEY")
    assert await plain.get_api_key("openai") == "from-models-json"
    monkeypatch.setenv("CUSTOM_VAR", "custom-secret")
    assert await auth.get_api_key("custom") == "custom-secret"


async def test_auth_file_key_may_name_an_env_var(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOME_VAR", "resolved")
    auth = AuthStorage({"groq": {"type": "api_key", "key": "SOME_VAR"}})
    assert await auth.get_api_key("groq") == "resolved"


async def test_oauth_access_token_used_until_expiry(monkeypatch: pytest.MonkeyPatch) -> None:
    future = int(time.time() * 1000) + 60_000
    auth = AuthStorage({"anthropic": {"type": "oauth", "access": "sk-ant-oat", "expires": future}})
    assert await auth.get_api_key("anthropic") == "sk-ant-oat"
    expired = AuthStorage({"anthropic": {"type": "oauth", "access": "old", "expires": 1}})
    monkeypatch.setenv("ANTHROPIC_API_KEY", "env-key")
    assert await expired.get_api_key("anthropic") == "env-key"


async def test_has_auth_and_keyless_providers(monkeypatch: pytest.MonkeyPatch) -> None:
    auth = AuthStorage()
    assert not auth.has_auth("openai")
    assert auth.has_auth("demo") and auth.has_auth("ollama")
    assert auth.source("demo") == "keyless"
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    assert auth.has_auth("openai") and auth.source("openai") == "env"
    auth.set_configured_keys({"mine": "!never-run-by-has-auth"})
    assert auth.has_auth("mine") and auth.source("mine") == "models.json"
    assert await auth.get_api_key("demo") == "demo"


async def test_invalid_auth_file_names_the_file(pitui_home: Path) -> None:
    path = paths.auth_file()
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    with pytest.raises(ConfigError) as info:
        await AuthStorage.load()
    assert str(path) in str(info.value)


def test_redact_hides_every_key() -> None:
    text = f"Authorization: Bearer {SECRET}; again {SECRET}; other sk-other-secret-value"
    out = redact(text, [SECRET, "sk-other-secret-value", None, ""])
    assert SECRET not in out and "sk-other-secret-value" not in out
    assert out.count("[redacted]") == 3


def test_redact_prefers_longer_keys_and_ignores_tiny_ones() -> None:
    assert redact("key=abcdefgh12345", ["abcdefgh", "abcdefgh12345"]) == "key=[redacted]"
    assert redact("the demo model", ["demo"]) == "the demo model"


async def test_keys_absent_from_reprs(monkeypatch: pytest.MonkeyPatch) -> None:
    auth = AuthStorage({"openai": {"type": "api_key", "key": SECRET}})
    auth.set_runtime_api_key("anthropic", SECRET)
    assert SECRET not in repr(auth)
    assert SECRET not in repr(StreamOptions(api_key=SECRET))
    monkeypatch.setenv("GROQ_API_KEY", "gsk-environment-key")
    assert {SECRET, "gsk-environment-key"} <= set(auth.known_secrets())
