"""pi-compatible session files: a JSONL tree of entries (PI_SPEC §5).

- :mod:`.store`: ``SessionStore`` (create / open / append / branch / fork / close), with
  :mod:`.append` (the typed appends) and :mod:`.writer` (locked, fsynced appends; atomic rewrites).
- :mod:`.entries`: header + entry union; :mod:`.table`: entries indexed, validated lazily;
  :mod:`.load`: bytes → table (bad lines, torn tail, cycles); :mod:`.migrate`: v1/v2 → v3.
- :mod:`.context`: ``build_session_context``; :mod:`.tree`: children, roots, leaves.
- :mod:`.listing` (+ :mod:`.list_cache`): ``list_sessions``, ``most_recent_session``;
  standard library only, so ``pitui session ls`` starts fast. This package file imports
  nothing on purpose, for the same reason.
- :mod:`.check`: validation and repaired copies; :mod:`.fork` (``fork_store``),
  :mod:`.ids`, :mod:`.bulk`.
"""
