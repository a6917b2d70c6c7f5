"""The context report: what the next request carries, where each message came from, and
what stays out of it and why."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pitui.agent.loop import RequestTrace
from pitui.agent.messages import AgentMessage
from pitui.ai.abort import AbortSignal
from pitui.ai.event_stream import AssistantMessageEventStream
from pitui.ai.options import StreamOptions
from pitui.ai.stream import stream
from pitui.ai.types import Context, Message, Model, TextContent, UserMessage
from pitui.core.agent_session import AgentSession
from pitui.core.compaction.tokens import estimate_raw_entry
from pitui.core.context_report import (
    FAILED_REPLY_NOTE,
    align_entry_ids,
    build_context_report,
    report_for_file,
)
from pitui.core.context_unsent import (
    BASH_EXCLUDED,
    CUSTOM_EXCLUDED,
    EARLIER_COMPACTION,
    estimate_range_tokens,
)
from pitui.core.message_text import message_preview, message_text
from pitui.core.session.context import UNSET
from pitui.core.session.table import EntryTable, plain_json
from pitui.core.session_setup import SessionOptions, create_agent_session
from tests.core.session.helpers import ORACLE

FIXTURES = Path(__file__).parents[1] / "fixtures"
VIEWS = FIXTURES / "context" / "views.jsonl"
COMPACTED = ORACLE / "before-compaction.v3.jsonl"


@pytest.fixture(autouse=True)
def _fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")


def copy_with_cwd(source: Path, target: Path, cwd: Path) -> Path:
    """``source`` with its header's cwd set to ``cwd`` (so a session resumes there)."""
    lines = source.read_text().splitlines()
    header = json.loads(lines[0])
    header["cwd"] = str(cwd)
    target.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    return target


async def _session(tmp: Path, source: Path = VIEWS, **kw: Any) -> AgentSession:
    path = copy_with_cwd(source, tmp / "s.jsonl", tmp)
    return await create_agent_session(SessionOptions(cwd=tmp, session_file=path, **kw))


async def test_views_fixture_messages_sources_and_switches(tmp_path: Path) -> None:
    session = await _session(tmp_path)
    report = await build_context_report(session)
    sources = [(m.message.role, m.source_role) for m in report.messages]
    assert sources == [
        ("user", "user"),
        ("assistant", "assistant"),
        ("toolResult", "toolResult"),
        ("assistant", "assistant"),
        ("toolResult", "toolResult"),
        ("assistant", "assistant"),
        ("user", "bashExecution"),
        ("user", "custom"),
        ("user", "branchSummary"),
        ("user", "user"),
        ("assistant", "assistant"),
    ]
    ids = {e.id for e in session.store.get_branch()}
    assert all(m.entry_id in ids for m in report.messages)
    reasons = {n.preview: n.reason for n in report.not_sent}
    assert reasons["$ ls -la"] == BASH_EXCLUDED
    assert reasons["Shown to the user only."] == CUSTOM_EXCLUDED
    kinds = {n.kind for n in report.not_sent}
    assert {"model_change", "thinking_level_change", "label", "session_info", "custom"} <= kinds
    switches = {(c.custom_type, c.display, c.sent) for c in report.custom}
    assert switches == {("reminder", False, True), ("ui-note", True, False)}
    # display: false hides nothing from the model: its text is in the request
    hidden = next(m for m in report.messages if m.source_role == "custom")
    assert "the model reads it" in message_text(hidden.message)


async def test_report_is_what_the_next_call_sends(tmp_path: Path) -> None:
    captured: list[Context] = []

    def capture(
        model: Model, context: Context, options: StreamOptions
    ) -> AssistantMessageEventStream:
        captured.append(context)
        return stream(model, context, options)

    session = await _session(tmp_path, model="demo/demo", stream_fn=capture)
    report = await build_context_report(session)
    await session.prompt("next")
    sent = captured[0]
    assert sent.system_prompt == report.system_prompt
    assert [t.to_json_dict() for t in sent.tools or []] == [t.definition for t in report.tools]
    assert [m.to_json_dict() for m in sent.messages[:-1]] == [
        m.message.to_json_dict() for m in report.messages
    ]
    assert report.total_tokens == report.system_tokens + sum(t.tokens for t in report.tools) + sum(
        m.tokens for m in report.messages
    )
    await session.close()


async def test_compaction_summarises_entries_before_the_first_kept(tmp_path: Path) -> None:
    report = await report_for_file(COMPACTED)
    store = (await _session(tmp_path, COMPACTED)).store
    context = store.build_context()
    first = report.messages[0]
    assert first.source_role == "compactionSummary" and first.entry_id == context.entry_ids[0]
    # What the compaction replaced is one row, not one per entry.
    assert not [n for n in report.not_sent if n.reason.startswith("summarised away")]
    compacted = report.compacted
    assert compacted is not None and compacted.compaction_id == first.entry_id
    table = store.table
    summarised = context.path[: context.summarised]
    replaced = [
        p
        for p in summarised
        if table.types[p] in ("message", "custom_message", "branch_summary", "compaction")
    ]
    assert compacted.count == len(replaced) > 100
    assert (compacted.first_entry_id, compacted.last_entry_id) == (
        table.ids[replaced[0]],
        table.ids[replaced[-1]],
    )
    # Under 1,024 entries the estimate is exact: the sum of each entry's.
    assert compacted.tokens == sum(estimate_raw_entry(table.raw(p)) for p in replaced) > 0
    earlier = sum(table.types[p] == "compaction" for p in replaced)
    assert compacted.earlier_compactions == earlier
    assert compacted.describe().startswith(f"{compacted.count} entries, ~")
    assert first.entry_id in compacted.reason
    # The entries of the range that are not sent for their own reason keep their rows.
    listed = {n.entry_id for n in report.not_sent}
    assert listed.isdisjoint(table.ids[p] for p in replaced)
    for row in report.not_sent:
        if row.reason == EARLIER_COMPACTION:
            assert row.kind == "compaction" and row.entry_id not in {
                table.ids[p] for p in summarised
            }


def test_a_long_range_is_estimated_from_a_sample_of_its_lines() -> None:
    table = EntryTable()
    for number in range(5_000):
        text = "word " * (number % 97)
        message = {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}
        line = json.dumps({"type": "message", "id": f"e{number}", "message": message})
        table.add_raw(line.encode(), f"e{number}", None, "message", "user")
    positions = list(range(len(table)))
    exact = sum(estimate_raw_entry(table.raw(p)) for p in positions)
    assert abs(estimate_range_tokens(table, positions) - exact) < exact * 0.02
    assert estimate_range_tokens(table, positions[:1000]) == sum(
        estimate_raw_entry(table.raw(p)) for p in positions[:1000]
    )


async def test_a_leaf_elsewhere_reports_the_context_there(tmp_path: Path) -> None:
    session = await _session(tmp_path)
    side = next(e for e in session.store.get_entries() if "9090" in str(e.to_json_dict()))
    report = await build_context_report(session, side.id)
    assert report.leaf_id == side.id
    assert "Also try port 9090?" in message_preview(report.messages[-1].message)
    assert report.transcript is not session.messages
    assert (await build_context_report(session, UNSET)).leaf_id == session.store.get_leaf_id()


async def test_a_failed_reply_taken_out_for_a_retry_is_reported(tmp_path: Path) -> None:
    session = await _session(tmp_path)
    last = session.messages[-1]
    session.agent.replace_messages(session.messages[:-1])
    report = await build_context_report(session)
    assert report.not_sent[-1].entry_id == session.store.get_leaf_id()
    assert "retry" in report.not_sent[-1].reason
    assert len(report.messages) == 10 and last not in report.transcript


def test_align_entry_ids_skips_context_messages_missing_from_the_transcript() -> None:
    a, b, c = (UserMessage(content=[TextContent(text=t)]) for t in "abc")
    context = _context([a, b, c], ["1", "2", "3"])
    assert align_entry_ids([a, c], context) == ["1", "3"]
    stranger = UserMessage(content=[TextContent(text="zzz")])
    assert align_entry_ids([stranger, b], context) == [None, "2"]


def _context(messages: list[AgentMessage], ids: list[str]) -> Any:
    from pitui.core.session.context import SessionContext

    return SessionContext(messages=messages, entry_ids=ids, leaf_id=ids[-1])


async def test_trace_is_unknown_for_a_converter_that_merges(tmp_path: Path) -> None:
    session = await _session(tmp_path)

    def merge(messages: list[AgentMessage]) -> list[Message]:
        text = " ".join(m.role for m in messages)
        return [UserMessage(content=[TextContent(text=text)])]

    session.agent.convert_to_llm = merge
    trace = RequestTrace()
    request = await session.agent.request_context(None, trace)
    assert len(request.messages) == 1 and trace.sources == [None]
    report = await build_context_report(session)
    assert report.messages[0].entry_id is None and report.messages[0].source is None


async def test_a_transform_that_adds_a_message_is_attributed_to_nothing(tmp_path: Path) -> None:
    session = await _session(tmp_path)
    extra = UserMessage(content=[TextContent(text="injected")])

    def add(messages: list[AgentMessage], signal: AbortSignal | None) -> list[AgentMessage]:
        return [*messages, extra]

    session.agent.transform_context = add
    report = await build_context_report(session)
    assert report.messages[-1].source is None
    assert message_preview(report.messages[-1].message) == "injected"
    assert report.messages[0].entry_id is not None


async def test_failed_reply_carries_a_note(tmp_path: Path) -> None:
    session = await _session(tmp_path)
    failed = session.messages[-1].model_copy(update={"stop_reason": "error"})
    session.agent.replace_messages([*session.messages[:-1], failed])
    report = await build_context_report(session)
    assert report.messages[-1].note == FAILED_REPLY_NOTE


async def test_report_for_a_file_leaves_it_untouched(tmp_path: Path) -> None:
    path = tmp_path / "copy.jsonl"
    shutil.copy(VIEWS, path)
    before = path.read_bytes()
    report = await report_for_file(path)
    assert report.request_model == "anthropic/claude-sonnet-4-5"
    assert report.context_window and report.share(report.total_tokens)
    assert path.read_bytes() == before


def test_message_text_shows_every_block() -> None:
    from pitui.ai.types import AssistantMessage, ThinkingContent, ToolCall

    reply = AssistantMessage(
        content=[
            ThinkingContent(thinking="hmm"),
            TextContent(text="Reading."),
            ToolCall(id="t1", name="read", arguments={"path": "a.py"}),
        ],
        api="x",
        provider="p",
        model="m",
    )
    text = message_text(reply)
    assert text.startswith("assistant p/m · stop: stop")
    assert "── thinking ──\nhmm" in text and "── tool call read (t1) ──" in text
    assert '"path": "a.py"' in text
    assert message_preview(reply) == 'hmm Reading. → read({"path": "a.py"})'


async def test_other_branches_are_not_listed_as_not_sent(tmp_path: Path) -> None:
    """Not sent: entries of the current branch that do not reach the model; an entry of
    another branch is elsewhere, not left out."""
    session = await _session(tmp_path)
    store = session.store
    on_path = {e.id for e in store.get_branch()}
    assert len(on_path) < store.entry_count()  # the fixture has a side branch
    report = await build_context_report(session)
    assert report.not_sent and {n.entry_id for n in report.not_sent} <= on_path


async def test_printed_messages_are_the_json_they_were_read_from(tmp_path: Path) -> None:
    """With keep_json every loaded message has its JSON at hand (no re-serialising), even
    when an earlier build of the same file had validated it already."""
    path = copy_with_cwd(VIEWS, tmp_path / "s.jsonl", tmp_path)
    report = await report_for_file(path, keep_json=True)
    read = [m for m in report.transcript if m.role in ("user", "assistant", "toolResult")]
    assert read and all(id(m) in report.message_json for m in read)  # message entries
    assert all(plain_json(report.message_json[id(m)]) == m.to_json_dict() for m in read)
