"""Project servers start only once the user allowed them (per project and command).

A project's ``.pitui/mcp.json`` names programs pitui would run on your machine, so each
project server is a trust subject ``mcp:<name>:<fingerprint>`` in the trust store
(:mod:`pitui.core.trust`, in the pitui home, never in the project). The fingerprint
covers what it runs and with what (command, args, env, cwd, url, headers): a changed
entry is a new subject and is asked about again. User servers and project entries that
only override ``enabled``/``exposure``/``toolExposure`` of a user server need no trust.
"""

from __future__ import annotations

from pathlib import Path

from pitui.core.mcp.config import ServerEntry
from pitui.core.trust import TrustStore, subject_fingerprint


def trust_subject(entry: ServerEntry) -> str:
    return f"mcp:{entry.name}:{subject_fingerprint(entry.trust_data())}"


def needs_trust(entry: ServerEntry) -> bool:
    return entry.scope == "project"


def is_allowed(store: TrustStore, cwd: Path, entry: ServerEntry) -> bool:
    """True for user servers and allowed project servers."""
    return not needs_trust(entry) or store.decision(cwd, trust_subject(entry)) is True


def is_refused(store: TrustStore, cwd: Path, entry: ServerEntry) -> bool:
    """The user said no to this very entry (not asked again)."""
    return needs_trust(entry) and store.decision(cwd, trust_subject(entry)) is False


def not_started_line(entry: ServerEntry) -> str:
    """Print mode's one line about a project server it did not start."""
    return (
        f'MCP: project server "{entry.name}" ({entry.transport_label()}) was not started: '
        f"allow it with `pitui mcp trust {entry.name}` or in the TUI"
    )
