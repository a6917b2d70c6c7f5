"""Errors a user can meet. Each carries a short user-facing title."""

from __future__ import annotations


class PituiError(Exception):
    """Base of every error pitui reports to a user (CLI: on stderr, TUI: in a notice)."""

    title = "Error"

    def __init__(self, message: str, title: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if title is not None:
            self.title = title

    def __str__(self) -> str:
        return self.message


class ConfigError(PituiError):
    """A settings, models, keybindings or theme file is invalid."""

    title = "Configuration error"


class SessionError(PituiError):
    """A session file cannot be read, written or locked."""

    title = "Session error"


class ModelNotFoundError(PituiError):
    """A requested model or provider is unknown or has no key."""

    title = "Model not found"
