"""The provider test harness catches the ordering bugs it is meant to catch."""

from __future__ import annotations

import pytest

from pitui.ai.event_stream import AssistantMessageEventStream, run_stream
from pitui.ai.events import StartEvent, TextDeltaEvent, TextEndEvent, TextStartEvent
from pitui.ai.types import AssistantMessage, TextContent
from tests.ai.providers.harness import (
    assert_event_order,
    assert_same_protocol,
    collect,
    key_paths,
)


def _output() -> AssistantMessage:
    return AssistantMessage(api="test", provider="test", model="m")


async def _text_body(stream: AssistantMessageEventStream, out: AssistantMessage) -> None:
    stream.push(StartEvent(partial=out))
    block = TextContent(text="")
    out.content.append(block)
    stream.push(TextStartEvent(content_index=0, partial=out))
    for piece in ("Ol", "á"):
        block.text += piece
        stream.push(TextDeltaEvent(content_index=0, delta=piece, partial=out))
    stream.push(TextEndEvent(content_index=0, content=block.text, partial=out))


async def test_valid_stream_passes() -> None:
    run = await collect(run_stream(_output(), _text_body))
    assert run.types[0] == "start" and run.types[-1] == "done"
    assert_event_order(run)
    assert run.deltas == {0: ["Ol", "á"]}


async def test_unclosed_block_on_done_fails() -> None:
    async def body(stream: AssistantMessageEventStream, out: AssistantMessage) -> None:
        stream.push(StartEvent(partial=out))
        out.content.append(TextContent(text=""))
        stream.push(TextStartEvent(content_index=0, partial=out))

    run = await collect(run_stream(_output(), body))
    with pytest.raises(AssertionError, match="never ended"):
        assert_event_order(run)
    assert_event_order(run, require_closed_on_done=False)


async def test_error_before_start_is_a_lone_terminal() -> None:
    async def body(stream: AssistantMessageEventStream, out: AssistantMessage) -> None:
        raise RuntimeError("boom")

    run = await collect(run_stream(_output(), body))
    assert run.types == ["error"]
    assert_event_order(run)
    assert run.message.error_message == "boom"


def test_protocol_compare_ignores_keys_and_string_content() -> None:
    sent = {"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}
    recorded = {"messages": [{"role": "user", "content": "hi"}], "tool_choice": {"type": "auto"}}
    assert_same_protocol(sent, recorded, ignore={"tool_choice"})
    with pytest.raises(AssertionError, match="differ"):
        assert_same_protocol(sent, {"messages": [{"role": "user", "content": "ho"}]})


def test_key_paths() -> None:
    body = {"a": [{"cache_control": 1}, {"b": {"cache_control": 2}}]}
    assert key_paths(body, "cache_control") == ["a[0].cache_control", "a[1].b.cache_control"]
