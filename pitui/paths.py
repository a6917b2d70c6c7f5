"""Every on-disk location pitui uses, one function each.

The pitui home (``~/.pitui``, or ``$PITUI_HOME``) has the same layout as pi's agent dir.
pitui writes nothing inside a project: it only reads ``<project>/.pitui/`` (settings that
may narrow permissions, never widen them; skills and templates once trusted). What pitui
remembers about a project lives in the home, under :func:`project_state_dir`.
"""

from __future__ import annotations

import os
from pathlib import Path


def home() -> Path:
    """The pitui home directory: ``$PITUI_HOME`` or ``~/.pitui``."""
    override = os.environ.get("PITUI_HOME")
    if override:
        return Path(override).expanduser()
    return Path.home() / ".pitui"


def settings_file() -> Path:
    """Global settings (pi's ``settings.json`` keys)."""
    return home() / "settings.json"


def models_file() -> Path:
    """User-defined providers and models (pi's ``models.json`` schema)."""
    return home() / "models.json"


def auth_file() -> Path:
    """Stored API keys, written with mode 0600."""
    return home() / "auth.json"


def keybindings_file() -> Path:
    """User key bindings: action id → key or list of keys."""
    return home() / "keybindings.json"


def sessions_dir() -> Path:
    """Root of the per-cwd session directories."""
    return home() / "sessions"


def session_list_cache() -> Path:
    """Cache of session-listing rows, keyed by file path, size and mtime."""
    return home() / "cache" / "session-list.json"


def git_version_cache() -> Path:
    """The version of the git executable checkpoints use, keyed by its file's identity
    (so a ``pitui -p`` run does not start ``git --version`` each time)."""
    return home() / "cache" / "git-version.json"


def trash_dir() -> Path:
    """Where deleted session files go (moved, never unlinked): one folder per project
    folder of the sessions tree, so a file can be put back by hand."""
    return home() / "trash"


def themes_dir() -> Path:
    """User theme files (pi's theme JSON format)."""
    return home() / "themes"


def pi_agent_dir() -> Path:
    """pi's own agent folder (``$PI_CODING_AGENT_DIR`` or ``~/.pi/agent``): its user
    themes, skills and prompt templates load unchanged."""
    override = os.environ.get("PI_CODING_AGENT_DIR")
    if override:
        return Path(override).expanduser()
    return Path.home() / ".pi" / "agent"


def pi_themes_dir() -> Path:
    """pi's own user themes, loaded unchanged."""
    return pi_agent_dir() / "themes"


def skills_dir() -> Path:
    """User skills (folders with a ``SKILL.md``)."""
    return home() / "skills"


def prompts_dir() -> Path:
    """User prompt templates (``<name>.md`` → ``/name``)."""
    return home() / "prompts"


def agents_skills_dir() -> Path:
    """The user's Agent Skills folder (``~/.agents/skills``), shared with other agents."""
    return Path.home() / ".agents" / "skills"


def project_dir(cwd: Path) -> Path:
    """The project's own pitui folder (read, never written: the repository owns it)."""
    return cwd / ".pitui"


def project_settings_file(cwd: Path) -> Path:
    """Project settings, merged over the global ones where they narrow permissions."""
    return project_dir(cwd) / "settings.json"


def project_state_dir(cwd: Path) -> Path:
    """pitui's own state about one project folder, kept in the pitui home, never in the
    project (a cloned repository or a sandboxed command must not be able to write it):
    ``<home>/projects/<folder name>-<hash of the resolved path>``."""
    import hashlib

    resolved = cwd.expanduser().resolve()
    digest = hashlib.sha256(str(resolved).encode("utf-8", "surrogateescape")).hexdigest()[:12]
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in resolved.name)[:40]
    return home() / "projects" / f"{name or 'root'}-{digest}"


def mcp_file() -> Path:
    """The user's MCP servers (the ``mcpServers`` format other MCP clients share)."""
    return home() / "mcp.json"


def mcp_log_file() -> Path:
    """Log notifications and stderr of MCP servers (rotated to ``mcp.log.1`` at 5 MB)."""
    return home() / "mcp.log"


def project_mcp_file(cwd: Path) -> Path:
    """A project's MCP servers: started only once the user allowed each one."""
    return project_dir(cwd) / "mcp.json"


def trust_file() -> Path:
    """The user's trust decisions about projects (project skills and prompt templates,
    project MCP servers): in the pitui home, keyed by project folder."""
    return home() / "trust.json"


def project_approvals_file(cwd: Path) -> Path:
    """The approvals remembered for one project ("always" answers), in the pitui home:
    a repository cannot ship them and a sandboxed command cannot plant them."""
    return project_state_dir(cwd) / "approvals.json"
