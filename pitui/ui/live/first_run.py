"""What a first start with nothing configured will show, known before the core loads.

A start with no snapshot (a new home, a new project) would draw "no model" and an empty
conversation, then ~0.3 s later the demo model, its "No API key found" notice and the
start-up listing, once the core has resolved settings, keys and models. When nothing
that resolution reads exists — no settings, models.json or stored keys, no provider key
variable, no ``--model``/``--provider``/``--api-key``/``--thinking``, no Ollama
listening — its outcome is fixed: the demo model with the default settings. This module
checks exactly that (a few stats and one refused loopback connect) and returns those
facts, so the first frame is the final one for every newcomer too. Anything it cannot
rule out means no guess: the screen then follows the core as before, and the core's
answer always wins (the launcher corrects a wrong guess). ``tests/ui/test_first_run.py``
checks the guess against what the core resolves.
"""

from __future__ import annotations

import errno
import os
import socket
from pathlib import Path
from typing import TYPE_CHECKING

from pitui import paths
from pitui.ui.view.session_info import SessionInfo

if TYPE_CHECKING:
    import argparse  # the TUI's flags may come without it (pitui.cli)

DEMO_MODEL_ID = "demo"
DEMO_THINKING = "off"
"""The default thinking level (no ``defaultThinkingLevel`` setting)."""
DEMO_CONTEXT_WINDOW = 128_000
_MODEL_FLAGS = ("model", "provider", "api_key", "thinking")
_OLLAMA = ("127.0.0.1", 11434)
"""Where the core looks for Ollama when ``OLLAMA_HOST`` is not set."""


def first_run_facts(args: argparse.Namespace, cwd: Path) -> SessionInfo | None:
    """The facts the core will resolve for this start, if nothing is configured that
    could change them (None: cannot tell before the core has looked)."""
    if any(getattr(args, name, None) for name in _MODEL_FLAGS):
        return None
    config = (
        paths.settings_file(),
        paths.project_settings_file(cwd),
        paths.models_file(),
        paths.auth_file(),
    )
    if any(path.exists() for path in config) or _provider_key_set() or _ollama_may_listen():
        return None
    return SessionInfo(
        cwd=str(cwd),
        model_id=DEMO_MODEL_ID,
        thinking_level=DEMO_THINKING,
        context_window=DEMO_CONTEXT_WINDOW,
        auto_compaction=True,
        demo=True,
    )


def first_run_listing(cwd: Path) -> list[str] | None:
    """The start-up listing of a start with no settings, if nothing can be listed but the
    keys: no context file, no skill or prompt folder (None: the resources must be read)."""
    from pitui.core.context_files import context_file_candidates
    from pitui.core.resources.locations import prompt_locations, skill_locations
    from pitui.ui.view.startup_listing import keys_line

    folders = [
        location.root
        for location in (
            *skill_locations(cwd, pi_folders=True),
            *prompt_locations(cwd, pi_folders=True),
        )
    ]
    for candidates in context_file_candidates(cwd):
        folders += candidates
    if any(path.exists() for path in folders):
        return None
    return [keys_line()]


def _provider_key_set() -> bool:
    from pitui.ai.key_env import ENV_KEYS

    return any(os.environ.get(name) for names in ENV_KEYS.values() for name in names)


def _ollama_may_listen() -> bool:
    """Whether an Ollama could answer the core's probe (anything but a refused connect on
    the default address counts as maybe)."""
    if os.environ.get("OLLAMA_HOST", "").strip():
        return True
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    probe.settimeout(0.05)
    try:
        return probe.connect_ex(_OLLAMA) != errno.ECONNREFUSED
    except OSError:
        return True
    finally:
        probe.close()
