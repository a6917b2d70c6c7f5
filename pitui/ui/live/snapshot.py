"""The status bar's facts from the last start, so the first frame is the final one.

Which model a new session starts with (and its thinking level and context window) is
resolved by the core from the settings, models.json, the stored keys and the flags; that
costs the import of the whole core, ~0.3 s, after the first frame. Without help the first
frame would say "no model" and change a moment later. So each start remembers what the
core resolved, keyed by everything the resolution reads — the flags, the project folder,
the identity (size, mtime) of each config file and the provider variables of the
environment (hashed, never stored) — and the next start with the same key draws those
facts at once. The core still resolves them; the app shows what it says, and if it
differs (a key changed in a way the fingerprint cannot see) the bar follows at attach,
as it would have anyway.

The start-up listing (what is loaded: context files, skills, templates, the keys) is
remembered the same way, so it is in the first frame too; the launcher replaces it if the
loaded resources say otherwise.

Only new sessions are remembered: a resumed session's model comes from its file.
Plain JSON, no Textual, no pydantic: this runs before the first frame.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

from pitui import __version__, paths
from pitui.digests import sha256
from pitui.private_files import write_private
from pitui.ui.view.session_info import SessionInfo

if TYPE_CHECKING:
    import argparse  # the TUI's flags may come without it (pitui.cli)

_log = logging.getLogger(__name__)
KEEP = 32
"""Snapshots kept (one per project and flag set), the least recently written dropped."""
_FACTS = ("model_id", "thinking_level", "context_window", "auto_compaction", "demo")
_FLAGS = ("model", "provider", "thinking", "api_key", "session_dir", "no_session")
# Environment variables that can change which model is picked or reachable.
_ENV_MARKERS = ("KEY", "TOKEN", "OLLAMA", "PITUI", "BASE_URL")


def snapshot_file() -> Path:
    """Where the snapshots live (the pitui home's cache folder)."""
    return paths.home() / "cache" / "startup.json"


def snapshot_key(args: argparse.Namespace, cwd: Path) -> str | None:
    """The fingerprint of what the start-up resolution reads; None for a resumed session."""
    if any(getattr(args, name, None) for name in ("continue_", "resume", "session")):
        return None
    parts: dict[str, object] = {
        "version": __version__,
        "cwd": str(cwd),
        "flags": {name: _flag(args, name) for name in _FLAGS},
        "files": {str(p): _identity(p) for p in _config_files(cwd)},
        "env": _env_digest(),
    }
    return sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def stored_entry(key: str | None) -> dict[str, object] | None:
    """What was stored under ``key`` (one read of the file; None: nothing)."""
    stored = _load().get(key) if key is not None else None
    return stored if isinstance(stored, dict) else None


def listing_of(entry: dict[str, object] | None) -> list[str] | None:
    """The start-up listing of a stored entry (None: not known)."""
    lines = entry.get("listing") if entry is not None else None
    if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
        return None
    return lines


def info_of(entry: dict[str, object] | None, cwd: Path) -> SessionInfo | None:
    """A stored entry's facts as a SessionInfo for ``cwd`` (None: not known)."""
    if entry is None:
        return None
    try:
        return SessionInfo(
            cwd=str(cwd),
            model_id=_optional_str(entry["model_id"]),
            thinking_level=_optional_str(entry["thinking_level"]),
            context_window=int(entry["context_window"]),  # type: ignore[call-overload]
            auto_compaction=bool(entry["auto_compaction"]),
            demo=bool(entry["demo"]),
        )
    except (KeyError, TypeError, ValueError):
        return None


def read_listing(key: str | None) -> list[str] | None:
    """The start-up listing stored under ``key`` (None: not known)."""
    return listing_of(stored_entry(key))


def read_snapshot(key: str | None, cwd: Path) -> SessionInfo | None:
    """The facts stored under ``key`` as a SessionInfo for ``cwd`` (None: not known)."""
    return info_of(stored_entry(key), cwd)


def write_snapshot(key: str | None, info: SessionInfo, listing: list[str] | None = None) -> None:
    """Remember ``info``'s facts (and the start-up listing's lines) under ``key`` (nothing
    when unchanged; errors are logged: a cache that cannot be written only costs the next
    start its head start)."""
    if key is None:
        return
    facts: dict[str, object] = {name: getattr(info, name) for name in _FACTS}
    if listing is not None:
        facts["listing"] = listing
    snapshots = _load()
    if snapshots.get(key) == facts:
        return
    snapshots.pop(key, None)
    snapshots[key] = facts
    kept = dict(list(snapshots.items())[-KEEP:])
    try:
        write_private(snapshot_file(), json.dumps(kept))
    except OSError as exc:
        _log.warning("could not write the start-up snapshot: %s", exc)


def _load() -> dict[str, object]:
    try:
        data = json.loads(snapshot_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _flag(args: argparse.Namespace, name: str) -> object:
    value = getattr(args, name, None)
    if name == "api_key":  # whether one was given, never the key itself
        return bool(value)
    return value if isinstance(value, str | bool) or value is None else str(value)


def _config_files(cwd: Path) -> tuple[Path, ...]:
    return (
        paths.settings_file(),
        paths.project_settings_file(cwd),
        paths.models_file(),
        paths.auth_file(),
    )


def _identity(path: Path) -> list[int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return [stat.st_size, stat.st_mtime_ns, stat.st_ino]


def _env_digest() -> str:
    """A hash of the provider-related variables (names and values)."""
    relevant = sorted(
        (name, value)
        for name, value in os.environ.items()
        if any(marker in name.upper() for marker in _ENV_MARKERS)
    )
    return sha256(json.dumps(relevant).encode()).hexdigest()


def _optional_str(value: object) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise TypeError(f"expected a string, got {type(value).__name__}")
