"""pi-compatible session files: a JSONL tree of entries (PI_SPEC §5).

Modules: :mod:`.entries` (header + entry union), :mod:`.store` (``SessionStore``: open,
create, append, branch, fork), :mod:`.context` (``build_session_context``), :mod:`.tree`,
:mod:`.listing` (``list_sessions``; standard library only, so ``pitui session ls`` starts
fast). This package file imports nothing on purpose, for the same reason.
"""
