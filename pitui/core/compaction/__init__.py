"""Compaction and branch summaries (PI_SPEC §6, §7).

Modules: :mod:`.tokens` (chars/4 estimates, context size), :mod:`.jsjson` (JavaScript
string length and ``JSON.stringify``), :mod:`.files` (file-operation tracking),
:mod:`.serialize` (the conversation text a summariser reads), :mod:`.prompts` (pi's
prompt texts), :mod:`.view` (a branch path read without validation), :mod:`.cut` (cut
point and :func:`~.cut.prepare_compaction`),
:mod:`.summarize` (the LLM calls), :mod:`.branch` (branch summaries on navigation),
:mod:`.apply` (compacting / navigating a session store, with pi's error texts).
"""
