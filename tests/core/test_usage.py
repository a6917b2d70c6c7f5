"""The footer's file totals, read from the entries' JSON, equal the typed sum."""

from __future__ import annotations

from pathlib import Path

from pitui.ai.types import AssistantMessage, Usage
from pitui.core.session.entries import MessageEntry
from pitui.core.session.store import SessionStore
from pitui.core.usage import FileUsage, UsageTotals

FIXTURE = Path(__file__).parents[1] / "fixtures" / "pi-oracle" / "large-session.v3.jsonl"


def _typed_sum(store: SessionStore) -> UsageTotals:
    totals = UsageTotals()
    for entry in store.get_entries():
        if isinstance(entry, MessageEntry) and isinstance(entry.message, AssistantMessage):
            totals = totals.plus(entry.message)
    return totals


async def test_file_totals_match_the_typed_sum_and_follow_appends(tmp_path: Path) -> None:
    copy = tmp_path / "s.jsonl"
    copy.write_bytes(FIXTURE.read_bytes())
    store = await SessionStore.open(copy)
    usage = FileUsage()
    fast, typed = usage.of(store.table), _typed_sum(store)
    assert (fast.input, fast.output, fast.cache_read, fast.cache_write) == (
        typed.input,
        typed.output,
        typed.cache_read,
        typed.cache_write,
    )
    assert abs(fast.cost - typed.cost) < 1e-9 and fast.input > 0
    reply = AssistantMessage(
        api="demo", provider="demo", model="m", usage=Usage(input=7, output=3), content=[]
    )
    await store.append_message(reply)
    assert usage.of(store.table).input == fast.input + 7
    await store.close()
