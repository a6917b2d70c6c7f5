"""The catalogue, models.json (pi's schema), --model parsing, Ollama detection, the default."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from pitui import paths
from pitui.ai.keys import AuthStorage
from pitui.ai.models import DEMO_MODEL, ModelRegistry, builtin_models
from pitui.ai.ollama import OLLAMA_COMPAT, default_ollama_url, detect_ollama
from pitui.ai.types import Usage, calculate_cost
from pitui.errors import ConfigError, ModelNotFoundError
from tests.replay_server import ReplayServer, Reply


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture(autouse=True)
def _no_ollama(monkeypatch: pytest.MonkeyPatch) -> None:
    # Never talk to an Ollama that might run on the test machine.
    monkeypatch.setenv("OLLAMA_HOST", closed_port_url())


def write_models_json(data: dict[str, Any] | str) -> Path:
    path = paths.models_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


async def load() -> ModelRegistry:
    return await ModelRegistry.load(auth=AuthStorage())


# --------------------------------------------------------------------------- catalogue


def test_builtin_catalogue_has_current_models_with_pis_facts() -> None:
    models = {(m.provider, m.id): m for m in builtin_models()}
    for mid in ("claude-opus-4-6", "claude-opus-4-5", "claude-sonnet-4-6", "claude-haiku-4-5"):
        model = models["anthropic", mid]
        assert model.api == "anthropic-messages"
        assert model.base_url == "https://api.anthropic.com"
        assert model.reasoning and model.input == ["text", "image"]
    sonnet = models["anthropic", "claude-sonnet-4-6"]
    assert (sonnet.context_window, sonnet.max_tokens) == (1_000_000, 64_000)
    assert sonnet.cost.to_json_dict() == {
        "input": 3,
        "output": 15,
        "cacheRead": 0.3,
        "cacheWrite": 3.75,
    }
    for mid in ("gpt-5.4", "gpt-5.2", "gpt-4.1", "gpt-4o", "o3", "o4-mini"):
        model = models["openai", mid]
        assert model.api == "openai-responses"
        assert model.base_url == "https://api.openai.com/v1"
    gpt = models["openai", "gpt-5.4"]
    assert (gpt.context_window, gpt.max_tokens, gpt.cost.input, gpt.cost.output) == (
        272_000,
        128_000,
        2.5,
        15,
    )
    assert not models["openai", "gpt-4o"].reasoning
    assert len(models) == len(builtin_models())


def test_demo_model() -> None:
    demo = next(m for m in builtin_models() if m.provider == "demo")
    assert (demo.id, demo.api, demo.reasoning) == ("demo", "demo", True)
    assert demo.cost.to_json_dict() == DEMO_MODEL.cost.to_json_dict()
    assert all(v == 0 for v in demo.cost.to_json_dict().values())


def test_cost_from_catalogue_prices() -> None:
    model = next(m for m in builtin_models() if m.id == "claude-sonnet-4-6")
    usage = Usage(input=1_000_000, output=100_000, cache_read=2_000_000, cache_write=0)
    cost = calculate_cost(model, usage)
    assert cost.input == pytest.approx(3)
    assert cost.output == pytest.approx(1.5)
    assert cost.cache_read == pytest.approx(0.6)
    assert cost.total == pytest.approx(5.1)


# --------------------------------------------------------------------------- models.json


async def test_no_models_json_gives_builtins() -> None:
    registry = await load()
    assert registry.error is None
    assert len(registry.all()) == len(builtin_models())


async def test_pi_minimal_example_gets_pis_defaults() -> None:
    write_models_json(
        {
            "providers": {
                "ollama": {
                    "baseUrl": "http://localhost:11434/v1",
                    "api": "openai-completions",
                    "apiKey": "ollama",
                    "compat": {"supportsDeveloperRole": False},
                    "models": [{"id": "llama3.1:8b"}, {"id": "gpt-oss:20b", "reasoning": True}],
                }
            }
        }
    )
    registry = await load()
    assert registry.error is None
    llama = registry.find("ollama", "llama3.1:8b")
    assert llama is not None
    assert llama.to_json_dict() == {
        "id": "llama3.1:8b",
        "name": "llama3.1:8b",
        "api": "openai-completions",
        "provider": "ollama",
        "baseUrl": "http://localhost:11434/v1",
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 128000,
        "maxTokens": 16384,
        "compat": {"supportsDeveloperRole": False},
    }
    gpt_oss = registry.find("ollama", "gpt-oss:20b")
    assert gpt_oss is not None and gpt_oss.reasoning
    assert llama in registry.available()
    assert await registry.get_api_key(llama) == "ollama"


async def test_full_model_definition_and_compat_merge(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROXY_TOKEN", "tok-123")
    write_models_json(
        {
            "providers": {
                "proxy": {
                    "baseUrl": "https://proxy.example/v1",
                    "api": "openai-completions",
                    "apiKey": "PROXY_KEY",
                    "headers": {"x-token": "PROXY_TOKEN", "x-a": "1"},
                    "compat": {
                        "maxTokensField": "max_tokens",
                        "openRouterRouting": {"only": ["a"]},
                    },
                    "models": [
                        {
                            "id": "big",
                            "name": "Big Model",
                            "api": "openai-responses",
                            "reasoning": True,
                            "input": ["text", "image"],
                            "contextWindow": 200000,
                            "maxTokens": 32000,
                            "cost": {"input": 1, "output": 2, "cacheRead": 0.5, "cacheWrite": 0},
                            "headers": {"x-a": "2"},
                            "compat": {"openRouterRouting": {"order": ["b"]}},
                        }
                    ],
                }
            }
        }
    )
    registry = await load()
    big = registry.find("proxy", "big")
    assert big is not None
    assert (big.name, big.api, big.context_window, big.max_tokens) == (
        "Big Model",
        "openai-responses",
        200000,
        32000,
    )
    assert big.headers == {"x-token": "tok-123", "x-a": "2"}
    assert big.compat == {
        "maxTokensField": "max_tokens",
        "openRouterRouting": {"only": ["a"], "order": ["b"]},
    }
    assert big.cost.cache_read == 0.5
    assert registry.auth.source("proxy") == "models.json"
    assert await registry.get_api_key(big) == "PROXY_KEY"  # unset env var name → literal


async def test_auth_header_adds_bearer() -> None:
    write_models_json(
        {
            "providers": {
                "p": {
                    "baseUrl": "http://x/v1",
                    "api": "openai-completions",
                    "apiKey": "!echo secret-from-cmd",
                    "authHeader": True,
                    "models": [{"id": "m"}],
                }
            }
        }
    )
    registry = await load()
    model = registry.find("p", "m")
    assert model is not None and model.headers == {"Authorization": "Bearer secret-from-cmd"}


async def test_overriding_builtin_provider_and_models() -> None:
    write_models_json(
        {
            "providers": {
                "anthropic": {
                    "baseUrl": "https://my-proxy.example.com/v1",
                    "modelOverrides": {
                        "claude-sonnet-4-6": {"name": "Sonnet via proxy", "cost": {"input": 1}},
                        "no-such-model": {"name": "ignored"},
                    },
                },
                "openai": {
                    "baseUrl": "https://api.openai.com/v1",
                    "apiKey": "OPENAI_API_KEY",
                    "api": "openai-responses",
                    "models": [{"id": "gpt-4o", "contextWindow": 5000}, {"id": "my-ft"}],
                },
            }
        }
    )
    registry = await load()
    assert registry.error is None
    anthropic = [m for m in registry.all() if m.provider == "anthropic"]
    assert anthropic and all(m.base_url == "https://my-proxy.example.com/v1" for m in anthropic)
    sonnet = registry.find("anthropic", "claude-sonnet-4-6")
    assert sonnet is not None and sonnet.name == "Sonnet via proxy"
    assert (sonnet.cost.input, sonnet.cost.output) == (1, 15)
    gpt4o = registry.find("openai", "gpt-4o")
    assert gpt4o is not None and gpt4o.context_window == 5000 and gpt4o.name == "gpt-4o"
    assert registry.find("openai", "my-ft") is not None
    assert len([m for m in registry.all() if m.id == "gpt-4o"]) == 1


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ("{oops", "Failed to parse models.json"),
        ({"providers": {"x": {"baseUrl": "u", "apiKey": "k", "api": "a", "models": [{}]}}},
         "/providers/x/models/0/id"),
        ({"providers": {"x": {"baseUrl": "u", "apiKey": "k", "api": "a",
                              "models": [{"id": "m", "contextWindow": "big"}]}}},
         "/providers/x/models/0/contextWindow"),
        ({"providers": {"x": {"baseUrl": "", "apiKey": "k", "api": "a", "models": []}}},
         "/providers/x/baseUrl"),
        ({"providers": {"x": {"apiKey": "k", "api": "a", "models": [{"id": "m"}]}}},
         'Provider x: "baseUrl" is required when defining custom models.'),
        ({"providers": {"x": {"baseUrl": "u", "api": "a", "models": [{"id": "m"}]}}},
         'Provider x: "apiKey" is required when defining custom models.'),
        ({"providers": {"x": {"baseUrl": "u", "apiKey": "k", "models": [{"id": "m"}]}}},
         'Provider x, model m: no "api" specified.'),
        ({"providers": {"x": {"baseUrl": "u", "apiKey": "k", "api": "a",
                              "models": [{"id": "m", "maxTokens": 0}]}}},
         "Provider x, model m: invalid maxTokens"),
        ({"providers": {"x": {}}}, 'must specify "baseUrl", "compat", "modelOverrides"'),
        ({"models": []}, "/providers"),
    ],
)  # fmt: skip
async def test_invalid_models_json_is_a_config_error_and_builtins_survive(
    data: dict[str, Any] | str, fragment: str
) -> None:
    path = write_models_json(data)
    registry = await load()
    assert isinstance(registry.error, ConfigError)
    message = str(registry.error)
    assert fragment in message
    assert str(path) in message
    assert registry.find("anthropic", "claude-sonnet-4-6") is not None
    assert registry.find("demo", "demo") is not None


async def test_invalid_auth_file_is_reported_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    path = paths.auth_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[1, 2")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-test-key")
    registry = await ModelRegistry.load()
    assert isinstance(registry.error, ConfigError) and str(path) in str(registry.error)
    assert registry.find("openai", "gpt-5.4") in registry.available()


# --------------------------------------------------------------------------- availability


async def test_available_follows_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = await load()
    assert {m.provider for m in registry.available()} == {"demo"}
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-test-key")
    assert {m.provider for m in registry.available()} == {"demo", "openai"}
    gpt = registry.find("openai", "gpt-5.4")
    assert gpt is not None and registry.usable_reason(gpt) == "key"
    sonnet = registry.find("anthropic", "claude-sonnet-4-6")
    assert sonnet is not None and registry.usable_reason(sonnet) is None
    assert registry.usable_reason(DEMO_MODEL) == "demo"


# --------------------------------------------------------------------------- --model


async def test_parse_model_arg() -> None:
    registry = await load()
    choice = registry.parse_model_arg("anthropic/claude-sonnet-4-6:high")
    assert (choice.model.id, choice.thinking) == ("claude-sonnet-4-6", "high")
    assert registry.parse_model_arg("claude-opus-4-5").model.id == "claude-opus-4-5"
    # Fuzzy: aliases beat dated ids, the highest id wins.
    assert registry.parse_model_arg("sonnet-4-5").model.id == "claude-sonnet-4-5"
    assert registry.parse_model_arg("opus").model.id == "claude-opus-4-6"
    assert registry.parse_model_arg("gpt-4o", provider="openai").model.id == "gpt-4o"
    assert registry.parse_model_arg("openai/gpt-5.4", provider="OpenAI").model.id == "gpt-5.4"
    demo = registry.parse_model_arg("demo/demo:minimal")
    assert (demo.model.provider, demo.thinking) == ("demo", "minimal")


async def test_parse_model_arg_unknown_id_on_known_provider_is_a_custom_id() -> None:
    registry = await load()
    choice = registry.parse_model_arg("openai/gpt-9-preview")
    assert (choice.model.id, choice.model.provider, choice.model.api) == (
        "gpt-9-preview",
        "openai",
        "openai-responses",
    )
    assert choice.warning and "Using custom model id" in choice.warning


async def test_a_bare_id_offered_by_several_providers_says_which_was_picked() -> None:
    provider = {"api": "openai-completions", "apiKey": "k", "models": [{"id": "tiny"}]}
    config = {
        "providers": {
            "alpha": {**provider, "baseUrl": "http://127.0.0.1:1"},
            "beta": {**provider, "baseUrl": "http://127.0.0.1:2"},
        }
    }
    write_models_json(config)
    registry = await ModelRegistry.load()
    choice = registry.parse_model_arg("tiny:high")
    assert (choice.model.provider, choice.thinking) == ("alpha", "high")
    assert choice.warning == (
        'Model "tiny" is offered by several providers (alpha/tiny, beta/tiny); using '
        "alpha/tiny. Pass --model PROVIDER/tiny to choose another."
    )
    explicit = registry.parse_model_arg("beta/tiny")
    assert (explicit.model.provider, explicit.warning) == ("beta", None)
    assert registry.parse_model_arg("tiny", provider="beta").warning is None


async def test_parse_model_arg_errors() -> None:
    registry = await load()
    with pytest.raises(ModelNotFoundError, match='Model "zzz-nothing" not found'):
        registry.parse_model_arg("zzz-nothing")
    with pytest.raises(ModelNotFoundError, match='Unknown provider "nope"'):
        registry.parse_model_arg("x", provider="nope")
    with pytest.raises(ModelNotFoundError):
        registry.parse_model_arg("claude-sonnet-4-6:bogus")


# --------------------------------------------------------------------------- ollama


def _ollama_replies(server: ReplayServer) -> None:
    server.add(
        Reply.json_error(200, {"models": [{"name": "qwen3:8b", "model": "qwen3:8b"}]}),
        Reply.json_error(
            200,
            {
                "capabilities": ["completion", "tools", "thinking"],
                "model_info": {"qwen3.context_length": 40960},
            },
        ),
    )


async def test_detect_ollama_native_api(replay_server: ReplayServer) -> None:
    _ollama_replies(replay_server)
    models = await detect_ollama(replay_server.url)
    assert [r.path for r in replay_server.requests] == ["/api/tags", "/api/show"]
    assert replay_server.requests[1].json() == {"model": "qwen3:8b"}
    [model] = models
    assert (model.provider, model.id, model.api) == ("ollama", "qwen3:8b", "openai-completions")
    assert model.base_url == f"{replay_server.url}/v1"
    assert model.reasoning and model.input == ["text"]
    assert (model.context_window, model.max_tokens) == (40960, 16384)
    assert model.compat == OLLAMA_COMPAT


async def test_detect_ollama_openai_fallback(replay_server: ReplayServer) -> None:
    replay_server.add(
        Reply.json_error(404, {"error": "not found"}),
        Reply.json_error(200, {"object": "list", "data": [{"id": "llava:7b", "object": "model"}]}),
    )
    models = await detect_ollama(f"{replay_server.url}/v1")
    assert [r.path for r in replay_server.requests] == ["/api/tags", "/v1/models"]
    assert [(m.id, m.context_window) for m in models] == [("llava:7b", 128000)]


async def test_detect_ollama_closed_port_is_empty() -> None:
    assert await detect_ollama(closed_port_url()) == []


def test_ollama_host_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "0.0.0.0:8080")
    assert default_ollama_url() == "http://127.0.0.1:8080"
    monkeypatch.setenv("OLLAMA_HOST", "https://box.local")
    assert default_ollama_url() == "https://box.local:11434"
    monkeypatch.delenv("OLLAMA_HOST")
    assert default_ollama_url() == "http://127.0.0.1:11434"


# --------------------------------------------------------------------------- default model


async def test_default_prefers_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-test-key")
    registry = await load()
    model = await registry.resolve_default("anthropic", "claude-haiku-4-5")
    assert model.id == "claude-haiku-4-5"


async def test_default_first_provider_with_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-test-key")
    registry = await load()
    assert (await registry.resolve_default("anthropic", "gone-model")).id == "gpt-5.4"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key")
    assert (await registry.resolve_default()).id == "claude-opus-4-6"


async def test_default_custom_provider_with_key() -> None:
    write_models_json(
        {
            "providers": {
                "local": {
                    "baseUrl": "http://127.0.0.1:9/v1",
                    "api": "openai-completions",
                    "apiKey": "x",
                    "models": [{"id": "tiny"}],
                }
            }
        }
    )
    registry = await load()
    assert (await registry.resolve_default()).label == "local/tiny"


async def test_default_ollama_then_demo(replay_server: ReplayServer) -> None:
    registry = await load()
    _ollama_replies(replay_server)
    model = await registry.resolve_default(ollama_url=replay_server.url)
    assert model.label == "ollama/qwen3:8b"
    assert registry.find("ollama", "qwen3:8b") is not None
    fresh = await load()
    assert (await fresh.resolve_default()).label == "demo/demo"


@pytest.mark.parametrize(
    ("variable", "label"),
    [
        ("OPENROUTER_API_KEY", "openrouter/openai/gpt-5.1-codex"),
        ("GROQ_API_KEY", "groq/openai/gpt-oss-120b"),
    ],
)
async def test_a_key_alone_selects_its_provider(
    variable: str, label: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pi's key-to-provider table (issue 22 item 17): the README's promise that any of
    these keys is used holds with only that key set."""
    monkeypatch.setenv(variable, "sk-test-key")
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")
    registry = await load()
    assert (await registry.resolve_default()).label == label
