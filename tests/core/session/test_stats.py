"""Branch figures (issue 22 items 6 and 7): one count for ``/session``, the export header
and pi's ``/session`` numbers; the context use after reopening a compacted session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pitui.core.export.summary import export_header
from pitui.core.session.listing import list_sessions
from pitui.core.session.stats import branch_stats, context_unknown
from pitui.core.session.store import SessionStore
from tests.core.session.helpers import FIXTURES, HEADER, PI_SESSIONS, assistant, entry, jsonl

PI_STATS = json.loads((FIXTURES / "pi-1.6" / "session-stats.json").read_text())


@pytest.mark.parametrize("name", sorted(PI_STATS))
async def test_branch_figures_equal_pis_session_figures(name: str) -> None:
    store = await SessionStore.open(PI_SESSIONS / f"{name}.jsonl", read_only=True)
    stats = branch_stats(store.table, store.get_leaf_id())
    pi = PI_STATS[name]
    assert stats.count("user") == pi["userMessages"]
    assert stats.count("assistant") == pi["assistantMessages"]
    assert stats.count("toolResult") == pi["toolResults"]
    assert stats.total == pi["totalMessages"]
    assert stats.tool_calls == pi["toolCalls"]
    u = stats.usage
    tokens = pi["tokens"]
    assert (u.input, u.output, u.cache_read, u.cache_write) == (
        tokens["input"],
        tokens["output"],
        tokens["cacheRead"],
        tokens["cacheWrite"],
    )
    assert stats.total_tokens == tokens["total"]
    assert u.cost == pytest.approx(pi["cost"])
    header = export_header(store, [])
    assert header.messages == pi["totalMessages"]
    assert header.tokens.startswith(f"↑{tokens['input']:,} ↓{tokens['output']:,}")
    await store.close()


@pytest.mark.parametrize("name", sorted(PI_STATS))
def test_session_ls_counts_what_pi_counts(name: str, tmp_path: Path) -> None:
    (tmp_path / f"{name}.jsonl").write_bytes((PI_SESSIONS / f"{name}.jsonl").read_bytes())
    [info] = list_sessions(session_dir=tmp_path, use_cache=False)
    assert info.message_count == PI_STATS[name]["totalMessages"]


def _compacted(tmp_path: Path, *after: dict[str, object]) -> Path:
    path = tmp_path / "s.jsonl"
    compaction = entry(
        "c1", "a1", "compaction", summary="s", firstKeptEntryId="u1", tokensBefore=50_000
    )
    path.write_bytes(
        jsonl(
            [
                HEADER,
                entry("u1", None),
                entry("a1", "u1", message=assistant(usage=_usage(54_283))),
                compaction,
                *after,
            ]
        )
    )
    return path


def _usage(tokens: int) -> dict[str, object]:
    cost = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
    return {
        "input": tokens,
        "output": 0,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": tokens,
        "cost": cost,
    }


async def test_the_context_of_a_reopened_compacted_session_is_unknown(tmp_path: Path) -> None:
    """The kept reply (from before the compaction) follows the summary in the transcript:
    its usage measures the old context, so the figure is ``?`` until the next reply."""
    store = await SessionStore.open(_compacted(tmp_path), read_only=True)
    assert store.build_context().messages[0].role == "compactionSummary"
    assert context_unknown(store.table, store.get_leaf_id())
    assert not context_unknown(store.table, "a1")  # before the compaction: known


async def test_a_reply_after_the_compaction_makes_it_known(tmp_path: Path) -> None:
    failed = entry("a2", "u2", message=assistant(stopReason="error", usage=_usage(9)))
    path = _compacted(tmp_path, entry("u2", "c1"), failed)
    store = await SessionStore.open(path, read_only=True)
    assert context_unknown(store.table, "a2")  # a failed reply says nothing
    path.write_bytes(path.read_bytes() + jsonl([entry("a3", "u2", message=assistant())]))
    store = await SessionStore.open(path, read_only=True)
    assert not context_unknown(store.table, "a3")
