"""Ids, timestamps and file names exactly as pi makes them (PI_SPEC §5.1, §5.4)."""

from __future__ import annotations

import uuid
from collections.abc import Container
from datetime import UTC, datetime

CURRENT_SESSION_VERSION = 3


def new_session_id() -> str:
    """A full random UUID v4, the id of a session."""
    return str(uuid.uuid4())


def new_entry_id(taken: Container[str]) -> str:
    """First 8 hex chars of a UUID v4, retried on collision (100 tries, then a full UUID)."""
    for _ in range(100):
        candidate = uuid.uuid4().hex[:8]
        if candidate not in taken:
            return candidate
    return str(uuid.uuid4())


def iso_now() -> str:
    """UTC now as ``YYYY-MM-DDTHH:MM:SS.sssZ`` (JavaScript's ``toISOString``)."""
    now = datetime.now(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def session_file_name(iso_timestamp: str, session_id: str) -> str:
    """``<ISO with ':' and '.' replaced by '-'>_<uuid>.jsonl``."""
    stamp = iso_timestamp.replace(":", "-").replace(".", "-")
    return f"{stamp}_{session_id}.jsonl"


def encode_cwd(cwd: str) -> str:
    """pi's per-cwd directory name: ``/home/u/proj`` → ``--home-u-proj--``."""
    trimmed = cwd[1:] if cwd[:1] in ("/", "\\") else cwd
    for sep in ("/", "\\", ":"):
        trimmed = trimmed.replace(sep, "-")
    return f"--{trimmed}--"
