"""Both OpenAI adapters settle queued work before each network read.

Deltas of one read are queued and joined (tool arguments parsed once) before the next
read; these tests check what a consumer can observe: the partial message is never behind
the events it was handed, however the body is cut into reads, and the final message and
event order are those of the stream.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pitui.ai.events import AssistantMessageEvent, TextDeltaEvent, ToolCallDeltaEvent
from pitui.ai.partial_json import parse_streaming_json
from pitui.ai.providers import openai_completions, openai_responses
from pitui.ai.types import Context, Model, TextContent, ToolCall, UserMessage
from tests.ai.providers.harness import StreamFn, assert_event_order, collect, run_replay
from tests.ai.providers.openai_helpers import WEATHER, fast_options, model
from tests.replay_server import ReplayServer, Reply

CONTEXT = Context(messages=[UserMessage(content="What's the weather?")], tools=[WEATHER])


def _chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    data = {"id": "c1", "object": "chat.completion.chunk", "choices": [choice]}
    return f"data: {json.dumps(data)}\n\n".encode()


def chat_body(text_pieces: list[str], arg_pieces: list[str]) -> bytes:
    """A Chat Completions reply: text in ``text_pieces``, then one call in ``arg_pieces``."""
    parts = [_chunk({"role": "assistant", "content": ""})]
    parts += [_chunk({"content": piece}) for piece in text_pieces]
    call = {"index": 0, "id": "call_1", "function": {"name": "weather", "arguments": ""}}
    parts.append(_chunk({"tool_calls": [call]}))
    for piece in arg_pieces:
        parts.append(_chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}))
    parts += [_chunk({}, "tool_calls"), b"data: [DONE]\n\n"]
    return b"".join(parts)


ARGS = json.dumps({"location": "Florence, Italy", "unit": "celsius", "notes": "x" * 400})
ARG_PIECES = [ARGS[at : at + 3] for at in range(0, len(ARGS), 3)]
TEXT_PIECES = [f"word{i} " for i in range(300)]
SMALL_CHUNKS = 97


class Observer:
    """Checks, at every delta event, that the partial holds at least what was streamed."""

    def __init__(self, full_args: str) -> None:
        self.text = ""
        self.args: dict[int, str] = {}
        self.full_args = full_args
        self.states: set[str] = set()

    def see(self, event: AssistantMessageEvent) -> None:
        if isinstance(event, TextDeltaEvent):
            self.text += event.delta
            block = event.partial.content[event.content_index]
            assert isinstance(block, TextContent) and block.text.startswith(self.text)
        elif isinstance(event, ToolCallDeltaEvent):
            seen = self.args.get(event.content_index, "") + event.delta
            self.args[event.content_index] = seen
            block = event.partial.content[event.content_index]
            assert isinstance(block, ToolCall)
            # The arguments are the lenient parse of a prefix at least as long as the
            # fragments handed out so far.
            assert self.full_args.startswith(seen)
            ahead = range(len(seen), len(self.full_args) + 1)
            assert any(parse_streaming_json(self.full_args[:n]) == block.arguments for n in ahead)
            self.states.add(json.dumps(block.arguments, sort_keys=True))


async def observe(server: ReplayServer, fn: StreamFn, llm: Model, reply: Reply) -> Observer:
    server.add(reply)
    local = llm.model_copy(update={"base_url": server.url + llm.base_url})
    events = fn(local, CONTEXT, fast_options())
    observer = Observer(ARGS)
    async for event in events:
        observer.see(event)
    message = await events.result()
    assert message.stop_reason == "toolUse", message.error_message
    assert message.text() == "".join(TEXT_PIECES)
    assert message.tool_calls()[0].arguments == json.loads(ARGS)
    return observer


@pytest.mark.parametrize("chunk_size", [0, SMALL_CHUNKS, 1024])
async def test_chat_partial_is_never_behind(replay_server: ReplayServer, chunk_size: int) -> None:
    reply = Reply(body=chat_body(TEXT_PIECES, ARG_PIECES), chunk_size=chunk_size, delay_s=0.001)
    llm = model("openai-completions", "openai", "gpt-4o-mini")
    observer = await observe(replay_server, openai_completions.stream, llm, reply)
    if chunk_size == SMALL_CHUNKS:
        # ~150 paced reads: the consumer saw the arguments grow, not only the final ones.
        # (Larger chunks may all land in one read on a busy machine.)
        assert len(observer.states) > 2


async def test_chat_burst_event_order_and_deltas(replay_server: ReplayServer) -> None:
    llm = model("openai-completions", "openai", "gpt-4o-mini")
    body = chat_body(TEXT_PIECES, ARG_PIECES)
    run = await run_replay(
        replay_server, openai_completions.stream, llm, CONTEXT, fast_options(), Reply(body=body)
    )
    assert_event_order(run)
    # The chunk that opens the call carries empty arguments: an empty delta, as pi has.
    assert run.deltas == {0: TEXT_PIECES, 1: ["", *ARG_PIECES]}
    assert run.types[:3] == ["start", "text_start", "text_delta"]
    assert run.types[-3:] == ["toolcall_delta", "toolcall_end", "done"]


def responses_body(text_pieces: list[str], arg_pieces: list[str]) -> bytes:
    """A Responses reply: one message item, then one function_call item."""
    message = {"type": "message", "id": "msg_1", "role": "assistant", "content": []}
    call = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "weather"}
    part = {"type": "output_text", "text": ""}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"status": "in_progress"}},
        {"type": "response.output_item.added", "item": message},
        {"type": "response.content_part.added", "part": part},
        *({"type": "response.output_text.delta", "delta": piece} for piece in text_pieces),
        {
            "type": "response.output_item.done",
            "item": {
                **message,
                "content": [{"type": "output_text", "text": "".join(text_pieces)}],
            },
        },
        {"type": "response.output_item.added", "item": {**call, "arguments": ""}},
        *(
            {"type": "response.function_call_arguments.delta", "delta": piece}
            for piece in arg_pieces
        ),
        {"type": "response.function_call_arguments.done", "arguments": "".join(arg_pieces)},
        {"type": "response.output_item.done", "item": {**call, "arguments": "".join(arg_pieces)}},
        {"type": "response.completed", "response": {"status": "completed"}},
    ]
    return b"".join(
        f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode() for event in events
    )


@pytest.mark.parametrize("chunk_size", [0, SMALL_CHUNKS, 2048])
async def test_responses_partial_is_never_behind(
    replay_server: ReplayServer, chunk_size: int
) -> None:
    body = responses_body(TEXT_PIECES, ARG_PIECES)
    reply = Reply(body=body, chunk_size=chunk_size, delay_s=0.001)
    llm = model("openai-responses", "openai", "gpt-5-mini")
    observer = await observe(replay_server, openai_responses.stream, llm, reply)
    if chunk_size == SMALL_CHUNKS:
        assert len(observer.states) > 2


async def test_responses_burst_event_order_and_deltas(replay_server: ReplayServer) -> None:
    llm = model("openai-responses", "openai", "gpt-5-mini")
    reply = Reply(body=responses_body(TEXT_PIECES, ARG_PIECES))
    events = openai_responses.stream(
        llm.model_copy(update={"base_url": replay_server.url + "/v1"}), CONTEXT, fast_options()
    )
    replay_server.add(reply)
    run = await collect(events)
    assert_event_order(run)
    assert run.deltas == {0: TEXT_PIECES, 1: ARG_PIECES}
    assert run.message.tool_calls()[0].id == "call_1|fc_1"


async def test_non_strict_json_is_read_as_the_standard_library_reads_it(
    replay_server: ReplayServer,
) -> None:
    # orjson refuses NaN; the fallback keeps what json.loads accepts working.
    body = b'data: {"choices": [{"index": 0, "delta": {"content": "hi"}, "x": NaN}]}\n\n'
    body += _chunk({}, "stop") + b"data: [DONE]\n\n"
    llm = model("openai-completions", "openai", "gpt-4o-mini")
    run = await run_replay(
        replay_server, openai_completions.stream, llm, CONTEXT, fast_options(), Reply(body=body)
    )
    assert run.message.stop_reason == "stop" and run.message.text() == "hi"
