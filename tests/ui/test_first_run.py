"""A first start with nothing configured draws its final screen in the first frame
(issue 26: the demo model's notice was ~0.2 s late on every newcomer's first run)."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from pitui import paths
from pitui.cli import build_parser
from pitui.ui.live.first_run import first_run_facts, first_run_listing
from pitui.ui.view.state import NoticeItem
from tests.ui.flows import launch, started, wait_for
from tests.ui.test_flows_demo import slow_startup

FACTS = ("model_id", "thinking_level", "context_window", "auto_compaction", "demo")


def guess(project: Path, *argv: str) -> object:
    return first_run_facts(build_parser().parse_args(list(argv)), project)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no ~/.pi, ~/.agents of the machine
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    return folder


@pytest.fixture
def no_ollama() -> Iterator[None]:
    """Skip where something really listens on Ollama's port (the guess must say no)."""
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", 11434)) == 0:
            pytest.skip("something listens on 127.0.0.1:11434")
    yield


def notices(app: object) -> list[str]:
    from pitui.ui.app import PituiApp

    assert isinstance(app, PituiApp)
    return [i.text for i in app.chat.items if isinstance(i, NoticeItem)]


async def test_the_guess_is_what_the_core_resolves(project: Path, no_ollama: None) -> None:
    from pitui.ui.controllers.launcher import DEMO_HINT

    guessed = guess(project, "--no-session")
    listing = first_run_listing(project)
    assert guessed is not None and listing is not None
    app = launch(project, "--no-session")
    release = slow_startup(app)
    async with app.run_test(size=(140, 36)) as pilot:
        await pilot.pause()
        early = {name: getattr(app.info, name) for name in FACTS}
        assert notices(app) == [DEMO_HINT]  # in the first frame, before the session
        assert app.main.listing == listing
        release.set()
        await started(pilot)
        await pilot.pause(0.2)
        live = app.live
        assert live is not None
        resolved = {name: getattr(live.info(), name) for name in FACTS}
        assert early == resolved
        assert notices(app) == [DEMO_HINT]  # not a second time
        assert app.main.listing == listing  # the core lists the same


@pytest.mark.parametrize(
    "configure",
    [
        "settings",
        "project settings",
        "models.json",
        "auth.json",
        "key variable",
        "ollama host",
        "--model",
        "--api-key",
    ],
)
def test_anything_configured_means_no_guess(
    configure: str, project: Path, monkeypatch: pytest.MonkeyPatch, no_ollama: None
) -> None:
    argv: list[str] = []
    files = {
        "settings": paths.settings_file(),
        "project settings": paths.project_settings_file(project),
        "models.json": paths.models_file(),
        "auth.json": paths.auth_file(),
    }
    if configure in files:
        files[configure].parent.mkdir(parents=True, exist_ok=True)
        files[configure].write_text(json.dumps({}))
    elif configure == "key variable":
        monkeypatch.setenv("MISTRAL_API_KEY", "k" * 20)
    elif configure == "ollama host":
        monkeypatch.setenv("OLLAMA_HOST", "10.0.0.9:11434")
    else:
        argv = [configure, "x"]
    assert guess(project, *argv) is None


def test_an_ollama_listening_means_no_guess(project: Path, no_ollama: None) -> None:
    with socket.socket() as server:
        try:
            server.bind(("127.0.0.1", 11434))
        except OSError:
            pytest.skip("Ollama's port cannot be bound here")
        server.listen()
        assert guess(project) is None


@pytest.mark.parametrize("found", ["AGENTS.md", ".pitui/skills", ".agents/skills", ".pi/prompts"])
def test_anything_to_list_means_the_listing_waits_for_the_core(found: str, project: Path) -> None:
    target = project / found
    if found.endswith(".md"):
        target.write_text("be brief\n")
    else:
        target.mkdir(parents=True)
    assert first_run_listing(project) is None


def test_a_context_file_in_a_parent_counts(project: Path) -> None:
    (project.parent / "CLAUDE.md").write_text("hi\n")
    assert first_run_listing(project) is None


async def test_a_wrong_guess_is_corrected_at_attach(
    project: Path, monkeypatch: pytest.MonkeyPatch, no_ollama: None
) -> None:
    """A key that appears between the guess and the core's look (or a source the guess
    does not know) is followed, with pi's words."""
    from pitui.ui.app import PituiApp

    app = launch(project, "--no-session")
    assert isinstance(app, PituiApp) and app.info.demo
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-key-123456")
    async with app.run_test(size=(140, 36)) as pilot:
        await started(pilot)
        await wait_for(pilot, lambda: len(notices(app)) > 1, "the correction")
        assert "an API key was found after all" in notices(app)[-1]
        live = app.live
        assert live is not None and not live.info().demo


def test_the_guess_needs_no_key_resolution(tmp_path: Path) -> None:
    """The check for a provider key variable reads the variable names alone: the key
    machinery (auth file, key commands) is not loaded before the first frame."""
    import os
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "from pathlib import Path\n"
        "from pitui.cli import build_parser\n"
        "from pitui.ui.live.first_run import first_run_facts\n"
        "first_run_facts(build_parser().parse_args([]), Path.cwd())\n"
        "assert 'pitui.ai.key_env' in sys.modules\n"
        "assert 'pitui.ai.keys' not in sys.modules, 'the key machinery was loaded'\n"
    )
    env = {**os.environ, "HOME": str(tmp_path), "PITUI_HOME": str(tmp_path / "home")}
    subprocess.run([sys.executable, "-c", probe], env=env, cwd=tmp_path, check=True)


def test_the_keys_module_still_offers_the_table() -> None:
    from pitui.ai import key_env, keys

    assert keys.ENV_KEYS is key_env.ENV_KEYS
    assert keys.ENV_KEYS["anthropic"] == ("ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY")


def test_the_demo_hint_names_the_command_not_a_key() -> None:
    """It is shown before keybindings.json is read, and "ctrl+l" was wrong for a user who
    bound the model picker elsewhere (ctrl+l then did nothing)."""
    from pitui.ui.controllers.launcher import DEMO_HINT

    assert DEMO_HINT.endswith("pick a model with /model.") and "ctrl+" not in DEMO_HINT
