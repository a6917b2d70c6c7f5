"""Property tests: any chunking of a Chat Completions reply keeps PI_SPEC 1.4 and the content.

The reader is fed parsed SSE events directly (no HTTP), so hypothesis can try many
splittings of text, reasoning and tool-call arguments quickly.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pitui.ai.event_stream import AssistantMessageEventStream, run_stream
from pitui.ai.events import StartEvent
from pitui.ai.providers._sse import ServerSentEvent
from pitui.ai.providers.openai_completions import ChunkReader
from pitui.ai.stream import empty_output
from pitui.ai.types import AssistantMessage, Model, TextContent, ThinkingContent, ToolCall
from tests.ai.providers.harness import assert_event_order, collect

MODEL = Model(id="m", api="openai-completions", provider="acme")

# A block: ("text" | "thinking", pieces) or ("tool", "", argument pieces); tool calls get
# distinct ids by position (continuation by a repeated id is tested elsewhere).
text_pieces = st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=6)
json_args = st.dictionaries(
    st.text(min_size=1, max_size=5), st.integers() | st.text(max_size=5), max_size=3
)


@st.composite
def tool_block(draw: st.DrawFn) -> tuple[str, str, list[str]]:
    raw = json.dumps(draw(json_args))
    cuts = sorted(draw(st.lists(st.integers(0, len(raw)), max_size=4)))
    pieces = [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True)]
    return ("tool", "", pieces)


blocks = st.lists(
    st.tuples(st.sampled_from(["text", "thinking"]), text_pieces) | tool_block(),
    min_size=1,
    max_size=5,
)


def _chunks(plan: list[Any]) -> list[dict[str, Any]]:
    chunks: list[dict[str, Any]] = []
    for position, block in enumerate(plan):
        if block[0] == "tool":
            call_id, pieces = f"call_{position}", block[2]
            for i, piece in enumerate(pieces):
                call: dict[str, Any] = {"index": 0, "function": {"arguments": piece}}
                if i == 0:
                    call.update(id=call_id, type="function")
                    call["function"]["name"] = "f"
                chunks.append({"choices": [{"delta": {"tool_calls": [call]}}]})
        else:
            field = "content" if block[0] == "text" else "reasoning_content"
            chunks.extend({"choices": [{"delta": {field: piece}}]} for piece in block[1])
    chunks.append({"choices": [{"delta": {}, "finish_reason": "stop"}]})
    return chunks


async def _events(chunks: list[dict[str, Any]]) -> AsyncIterator[ServerSentEvent]:
    for chunk in chunks:
        yield ServerSentEvent(data=json.dumps(chunk))
    yield ServerSentEvent(data="[DONE]")


def _merged(plan: list[Any]) -> list[Any]:
    """What the message must hold: adjacent same-kind text/thinking blocks merge."""
    out: list[Any] = []
    for position, block in enumerate(plan):
        if block[0] == "tool":
            out.append(("tool", f"call_{position}", "".join(block[2])))
        elif out and out[-1][0] == block[0]:
            out[-1] = (block[0], out[-1][1] + "".join(block[1]))
        else:
            out.append((block[0], "".join(block[1])))
    return out


@settings(max_examples=40, deadline=None)
@given(plan=blocks)
async def test_any_chunking_keeps_order_and_content(plan: list[Any]) -> None:
    async def body(stream: AssistantMessageEventStream, out: AssistantMessage) -> None:
        stream.push(StartEvent(partial=out))
        await ChunkReader(MODEL, stream, out).read(_events(_chunks(plan)))

    run = await collect(run_stream(empty_output(MODEL), body))
    assert_event_order(run)
    assert run.message.stop_reason == "stop"
    got: list[Any] = []
    for block in run.message.content:
        if isinstance(block, TextContent):
            got.append(("text", block.text))
        elif isinstance(block, ThinkingContent):
            got.append(("thinking", block.thinking))
        else:
            assert isinstance(block, ToolCall)
            got.append(("tool", block.id, json.dumps(block.arguments)))
    expected = [
        (b[0], b[1], json.dumps(json.loads(b[2]))) if b[0] == "tool" else b for b in _merged(plan)
    ]
    assert got == expected


async def test_odd_chunk_shapes_are_ignored_as_before() -> None:
    # The read loop's fast path recognises the common chunk by subscripts; anything
    # else must go through ChunkReader.chunk, which ignores shapes it does not know.
    chunks: list[Any] = [
        {"choices": [{"delta": {"content": "a"}}]},
        {"choices": "xy"},
        {"choices": []},
        {"choices": [["delta"]]},
        {"choices": [{"delta": "c"}]},
        {"choices": [{"delta": ["content"]}]},
        {"choices": [{"delta": {"content": 5}}]},
        {"choices": [{"delta": {"content": ""}}]},
        {"choices": [{"delta": {"content": "b"}, "finish_reason": "length"}]},
    ]

    async def body(stream: AssistantMessageEventStream, out: AssistantMessage) -> None:
        stream.push(StartEvent(partial=out))
        await ChunkReader(MODEL, stream, out).read(_events(chunks))

    run = await collect(run_stream(empty_output(MODEL), body))
    assert_event_order(run)
    assert run.message.stop_reason == "length"
    assert run.message.text() == "ab"
    assert run.deltas == {0: ["a", "b"]}
