"""Trust decisions about what a project ships: asked once, kept in the pitui home.

A repository you cloned can carry files that become instructions to the model (project
skills, prompt templates) or programs pitui would start (project MCP servers). None of
them is used until you said so for that project; the answer is remembered in
``<home>/trust.json`` (mode 0600), never inside the project, so the project cannot
answer for you.

A decision is keyed by the project's resolved folder and a *subject*: a short string
naming what was allowed, e.g. ``"project-resources"`` (skills and templates) or
``"mcp:<server>:<fingerprint>"`` (one server with one command line; a changed command
is a new subject, so it is asked again). :func:`subject_fingerprint` makes the
fingerprint part from the data that must not change silently.

File format::

    {"version": 1, "projects": {"/abs/project": {"project-resources": true,
                                                  "mcp:db:3f2a…": false}}}

Unreadable or malformed files count as "nothing decided" (everything asks again) and
are never overwritten blindly: :meth:`TrustStore.decide` reads the file again first.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path

from pitui import paths
from pitui.private_files import write_private

PROJECT_RESOURCES = "project-resources"
"""The subject for a project's skills and prompt templates (``.pitui/``, ``.pi/``,
``.agents/``): instructions to the model from the repository."""
VERSION = 1


def project_key(cwd: Path) -> str:
    """The key of a project folder in the trust file (its resolved absolute path)."""
    return str(cwd.expanduser().resolve())


def subject_fingerprint(data: object) -> str:
    """A short stable hash of JSON-able ``data`` (e.g. a server's command and args)."""
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def _read(path: Path) -> dict[str, dict[str, bool]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        return {}
    return {
        str(project): {str(k): v for k, v in subjects.items() if isinstance(v, bool)}
        for project, subjects in projects.items()
        if isinstance(subjects, dict)
    }


class TrustStore:
    """The decisions read from the trust file (a snapshot; :meth:`decide` writes)."""

    def __init__(self, decisions: dict[str, dict[str, bool]], path: Path) -> None:
        self._decisions = decisions
        self.path = path

    @classmethod
    def read(cls, path: Path | None = None) -> TrustStore:
        """Read the trust file now (blocking: a few hundred bytes; use :func:`load_trust`
        on the event loop)."""
        file = path or paths.trust_file()
        return cls(_read(file), file)

    def decision(self, cwd: Path, subject: str) -> bool | None:
        """True allowed, False refused, None never asked."""
        return self._decisions.get(project_key(cwd), {}).get(subject)

    def closest_decision(self, cwd: Path, subject: str) -> bool | None:
        """The decision for ``cwd`` or, failing that, its nearest parent that has one
        (trusting a repository covers its subfolders, as pi's trust does)."""
        resolved = Path(project_key(cwd))
        for folder in (resolved, *resolved.parents):
            decision = self.decision(folder, subject)
            if decision is not None:
                return decision
        return None

    def decide_now(self, cwd: Path, subject: str, allowed: bool) -> None:
        """Record a decision (blocking; re-reads the file so other writers' keys stay)."""
        current = _read(self.path)
        current.setdefault(project_key(cwd), {})[subject] = allowed
        self._decisions = current
        text = json.dumps({"version": VERSION, "projects": current}, indent=2) + "\n"
        write_private(self.path, text)

    async def decide(self, cwd: Path, subject: str, allowed: bool) -> None:
        """Record a decision, off the event loop."""
        await asyncio.to_thread(self.decide_now, cwd, subject, allowed)


async def load_trust(path: Path | None = None) -> TrustStore:
    """Read the trust file off the event loop."""
    return await asyncio.to_thread(TrustStore.read, path)
