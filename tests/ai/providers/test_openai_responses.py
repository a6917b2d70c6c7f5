"""The Responses adapter against every recorded Responses stream, plus synthetic events.

Per fixture: final AssistantMessage, PI_SPEC 1.4 order (with the 1.4.6 summary quirk),
request structure. Then request details (replay of reasoning items, message ids, ids
across providers, cache keys) and the terminal/error events.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from pitui.ai.options import StreamOptions
from pitui.ai.providers.openai_responses import stream
from pitui.ai.providers.openai_responses_request import (
    build_body,
    parse_text_signature,
    short_hash,
)
from pitui.ai.types import (
    Context,
    ImageContent,
    Message,
    Model,
    ModelCost,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tests.ai.providers.harness import (
    assert_event_order,
    assert_same_protocol,
    load_json,
    run_replay,
)
from tests.ai.providers.openai_helpers import (
    ADD,
    BOTH_TOOLS_PROMPT,
    MULTIPLY,
    WEATHER,
    assistant,
    fast_options,
    last_body,
    model,
    protocol_canon,
    sse_body,
    usage_tuple,
)
from tests.replay_server import ReplayServer, Reply

API = "openai-responses"
CALL = "call_nYgMM3oZuxort2H8Ky4uP5RE"
ITEM = "fc_0967f4efea4061d0016a3c1223286481a0b6b3834cdd7c6574"
REASONING_ITEM = '{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"gAAA"}'


def gpt5(**extra: Any) -> Model:
    """gpt-5 as the catalogue names it (display name ``GPT-5``)."""
    return model(API, "openai", "gpt-5", name="GPT-5", reasoning=True, **extra)


@dataclass
class Case:
    context: Context
    options: StreamOptions = field(default_factory=lambda: fast_options(max_tokens=4000))
    ignore: tuple[str, ...] = ("tool_choice",)


def _tool_turn(source_model: str) -> list[Message]:
    """The weather tool turn, as produced by ``source_model`` of provider openai."""
    return [
        UserMessage(content="What's the weather in Florence,Italy?"),
        assistant(
            API,
            "openai",
            source_model,
            ThinkingContent(thinking="", thinking_signature=REASONING_ITEM),
            ToolCall(
                id=f"{CALL}|{ITEM}", name="weather", arguments={"location": "Florence, Italy"}
            ),
            stop_reason="toolUse",
        ),
        ToolResultMessage(
            tool_call_id=f"{CALL}|{ITEM}", tool_name="weather", content=[TextContent(text="40 C")]
        ),
    ]


SYSTEM = "You are a helpful assistant"
CASES = {
    "openai_responses_text": Case(
        Context(system_prompt=SYSTEM, messages=[UserMessage(content="Say hi in Portuguese")]),
        ignore=(),
    ),
    "openai_responses_tool": Case(
        Context(
            system_prompt=SYSTEM,
            messages=[UserMessage(content="What's the weather in Florence,Italy?")],
            tools=[WEATHER],
        )
    ),
    # The recording client did not replay the reasoning item nor the fc_ item id; pi does
    # the same for a turn of another model of the same provider (gpt-5-mini here).
    "openai_responses_tool_result": Case(
        Context(system_prompt=SYSTEM, messages=_tool_turn("gpt-5-mini"), tools=[WEATHER])
    ),
    "openai_responses_parallel_tools": Case(
        Context(
            system_prompt=BOTH_TOOLS_PROMPT,
            messages=[UserMessage(content="Add and multiply the number 2 and 3")],
            tools=[ADD, MULTIPLY],
        )
    ),
    "openai_responses_reasoning_summary": Case(
        Context(
            system_prompt=SYSTEM,
            messages=[UserMessage(content="What's the weather in Florence, Italy?")],
            tools=[WEATHER],
        ),
        fast_options(reasoning="high"),
        ("tool_choice", "max_output_tokens"),
    ),
}


async def _run_case(server: ReplayServer, name: str, **model_extra: Any) -> Any:
    case = CASES[name]
    return await run_replay(
        server,
        stream,
        gpt5(**model_extra),
        case.context,
        case.options,
        Reply.sse_file(f"{name}.sse"),
    )


@pytest.mark.parametrize("name", sorted(CASES))
async def test_event_order_and_request_structure(replay_server: ReplayServer, name: str) -> None:
    run = await _run_case(replay_server, name)
    assert_event_order(run, deltas_concat_to_end=False)
    expected = load_json(f"{name}.request.json")
    sent = last_body(replay_server)
    assert_same_protocol(sent, expected, ignore=CASES[name].ignore, canon=protocol_canon)
    assert replay_server.requests[-1].path == "/v1/responses"


async def test_text_reply(replay_server: ReplayServer) -> None:
    run = await _run_case(replay_server, "openai_responses_text")
    thinking, text = run.message.content
    assert isinstance(thinking, ThinkingContent) and isinstance(text, TextContent)
    # An empty reasoning item still becomes a (blank) thinking block carrying the item.
    assert thinking.thinking == ""
    assert json.loads(thinking.thinking_signature or "") == {
        "id": "rs_0f80f320b6d3bc2b016a3c121a0ae4819292601257c72b5d09",
        "type": "reasoning",
        "content": [],
        "summary": [],
    }
    assert text.text == "Oi!"
    assert text.text_signature == (
        '{"v":1,"id":"msg_0f80f320b6d3bc2b016a3c121b2bf481929859fbd5c84b5199"}'
    )
    assert (run.message.stop_reason, usage_tuple(run.message.usage)) == (
        "stop",
        (19, 118, 0, 0, 137),
    )
    assert run.types == [
        "start",
        "thinking_start",
        "thinking_end",
        "text_start",
        "text_delta",
        "text_delta",
        "text_end",
        "done",
    ]
    # The recorded request is reproduced exactly: no reasoning param, store:false.
    assert last_body(replay_server) == load_json("openai_responses_text.request.json")


async def test_tool_call_ids_and_stop_reason(replay_server: ReplayServer) -> None:
    message = (await _run_case(replay_server, "openai_responses_tool")).message
    (call,) = message.tool_calls()
    assert (call.id, call.name, call.arguments) == (
        f"{CALL}|{ITEM}",
        "weather",
        {"location": "Florence, Italy"},
    )
    assert message.stop_reason == "toolUse"
    assert usage_tuple(message.usage) == (63, 77, 0, 0, 140)


async def test_tool_result_reply(replay_server: ReplayServer) -> None:
    message = (await _run_case(replay_server, "openai_responses_tool_result")).message
    assert message.text().startswith("Florence, Italy is currently about 40°C (104°F).")
    assert message.stop_reason == "stop"
    items = last_body(replay_server)["input"]
    assert items[2] == {
        "type": "function_call",
        "call_id": CALL,
        "name": "weather",
        "arguments": '{"location":"Florence, Italy"}',
    }
    assert items[3] == {"type": "function_call_output", "call_id": CALL, "output": "40 C"}


async def test_parallel_tools(replay_server: ReplayServer) -> None:
    message = (await _run_case(replay_server, "openai_responses_parallel_tools")).message
    assert [(c.name, c.arguments) for c in message.tool_calls()] == [
        ("add", {"a": 2, "b": 3}),
        ("multiply", {"a": 2, "b": 3}),
    ]
    assert all("|fc_" in c.id for c in message.tool_calls())
    assert message.stop_reason == "toolUse"


async def test_reasoning_summary_quirk(replay_server: ReplayServer) -> None:
    run = await _run_case(replay_server, "openai_responses_reasoning_summary")
    thinking = run.message.content[0]
    assert isinstance(thinking, ThinkingContent)
    item = json.loads(thinking.thinking_signature or "")
    assert item["type"] == "reasoning" and item["encrypted_content"].startswith("gAAAAA")
    parts = [part["text"] for part in item["summary"]]
    # Final text = summary parts joined by a blank line, no trailing separator …
    assert thinking.thinking == "\n\n".join(parts)
    assert thinking.thinking.startswith("**Getting weather info**")
    # … while the deltas carry one extra "\n\n" per part (PI_SPEC 1.4 item 6).
    deltas = run.deltas[0]
    assert deltas.count("\n\n") == len(parts)
    assert "".join(deltas) == "\n\n".join(parts) + "\n\n"
    assert run.message.stop_reason == "toolUse"
    sent = last_body(replay_server)
    assert sent["reasoning"] == {"effort": "high", "summary": "auto"}
    assert sent["include"] == ["reasoning.encrypted_content"]


# --------------------------------------------------------------------------- request details


def _body(context: Context, options: StreamOptions | None = None, **model_extra: Any) -> Any:
    return build_body(gpt5(**model_extra), context, options or StreamOptions())


def test_same_model_turn_replays_reasoning_item_and_item_id() -> None:
    items = _body(Context(messages=_tool_turn("gpt-5")))["input"]
    assert items[1] == json.loads(REASONING_ITEM)
    assert items[2]["id"] == ITEM and items[2]["call_id"] == CALL


def test_message_items_take_id_and_phase_from_the_signature() -> None:
    long_id = "msg_" + "x" * 80
    texts = [
        TextContent(text="a", text_signature='{"v":1,"id":"msg_abc","phase":"commentary"}'),
        TextContent(text="b", text_signature="msg_legacy"),
        TextContent(text="c"),
        TextContent(text="d", text_signature=long_id),
    ]
    history = [UserMessage(content="q"), assistant(API, "openai", "gpt-5", *texts)]
    items = _body(Context(messages=history))["input"]
    assert [(i["id"], i.get("phase")) for i in items[1:]] == [
        ("msg_abc", "commentary"),
        ("msg_legacy", None),
        ("msg_1", None),
        (f"msg_{short_hash(long_id)}", None),
    ]
    assert items[1]["content"] == [{"type": "output_text", "text": "a", "annotations": []}]
    assert items[1]["status"] == "completed"


def test_short_hash_matches_pi() -> None:
    # Values computed with pi's shortHash in node.
    assert short_hash("msg_" + "x" * 80) == "12405yh12udpq4"
    assert short_hash("") == "k4n83c7h0j2b"
    assert short_hash("héllo 👋 world") == "ahxuga3w8a2o"


def test_text_signature_parsing() -> None:
    assert parse_text_signature('{"v":1,"id":"m","phase":"final_answer"}') == ("m", "final_answer")
    assert parse_text_signature('{"v":1,"id":"m","phase":"other"}') == ("m", None)
    assert parse_text_signature('{"v":2,"id":"m"}') == ('{"v":2,"id":"m"}', None)
    assert parse_text_signature("{broken") == ("{broken", None)
    assert parse_text_signature(None) == (None, None)


def test_ids_from_other_providers_are_normalised() -> None:
    codex_call = ToolCall(id="call_a+b|item/x=_", name="read", arguments={})
    history = [
        UserMessage(content="q"),
        assistant(API, "openai-codex", "gpt-5-codex", codex_call, stop_reason="toolUse"),
        ToolResultMessage(tool_call_id=codex_call.id, tool_name="read", content=[]),
    ]
    items = _body(Context(messages=history))["input"]
    assert (items[1]["id"], items[1]["call_id"]) == ("fc_item_x", "call_a_b")
    assert items[2] == {
        "type": "function_call_output",
        "call_id": "call_a_b",
        "output": "(see attached image)",
    }


def test_cache_key_retention_and_roles() -> None:
    context = Context(system_prompt="sys", messages=[UserMessage(content="q")])
    body = _body(context, StreamOptions(session_id="s1", cache_retention="long"))
    assert body["prompt_cache_key"] == "s1" and "prompt_cache_retention" not in body
    direct = gpt5().model_copy(update={"base_url": "https://api.openai.com/v1"})
    on_openai = build_body(direct, context, StreamOptions(session_id="s1", cache_retention="long"))
    assert on_openai["prompt_cache_retention"] == "24h"
    none = _body(context, StreamOptions(session_id="s1", cache_retention="none"))
    assert "prompt_cache_key" not in none
    assert body["input"][0] == {"role": "developer", "content": "sys"}
    plain = build_body(model(API, "openai", "gpt-4.1"), context, StreamOptions())
    assert plain["input"][0] == {"role": "system", "content": "sys"}
    assert "reasoning" not in plain


def test_gpt5_without_effort_gets_pis_hint_message() -> None:
    context = Context(messages=[UserMessage(content="q")])
    hinted = build_body(
        model(API, "openai", "gpt-5", name="gpt-5", reasoning=True), context, StreamOptions()
    )
    assert hinted["input"][-1] == {
        "role": "developer",
        "content": [{"type": "input_text", "text": "# Juice: 0 !important"}],
    }
    # pi tests the display name: the catalogue's "GPT-5" gets no hint.
    assert len(_body(context)["input"]) == 1
    clamped = _body(context, StreamOptions(reasoning="xhigh"))
    assert clamped["reasoning"] == {"effort": "high", "summary": "auto"}


def test_images_in_user_messages_and_tool_results() -> None:
    image = ImageContent(data="AAAA", mime_type="image/png")
    call = ToolCall(id="c1", name="read", arguments={})
    history = [
        UserMessage(content=[TextContent(text="see"), image]),
        assistant(API, "openai", "gpt-5", call, stop_reason="toolUse"),
        ToolResultMessage(
            tool_call_id="c1", tool_name="read", content=[TextContent(text="pic"), image]
        ),
    ]
    with_images = _body(Context(messages=history), input=["text", "image"])["input"]
    url = "data:image/png;base64,AAAA"
    assert with_images[0]["content"][1] == {
        "type": "input_image",
        "detail": "auto",
        "image_url": url,
    }
    assert with_images[2]["output"] == [
        {"type": "input_text", "text": "pic"},
        {"type": "input_image", "detail": "auto", "image_url": url},
    ]
    text_only = _body(Context(messages=history))["input"]
    assert text_only[0]["content"] == [{"type": "input_text", "text": "see"}]
    assert text_only[2]["output"] == "pic"


# --------------------------------------------------------------------------- stream events


def _created() -> dict[str, Any]:
    return {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}}


def _message(text: str, item_id: str = "msg_1", phase: str | None = None) -> list[dict[str, Any]]:
    item: dict[str, Any] = {"id": item_id, "type": "message", "role": "assistant", "content": []}
    done_item = {**item, "content": [{"type": "output_text", "text": text, "annotations": []}]}
    if phase:
        done_item["phase"] = phase
    return [
        {"type": "response.output_item.added", "item": item},
        {
            "type": "response.content_part.added",
            "part": {"type": "output_text", "text": "", "annotations": []},
        },
        {"type": "response.output_text.delta", "delta": text},
        {"type": "response.output_item.done", "item": done_item},
    ]


def _completed(status: str = "completed", **response: Any) -> dict[str, Any]:
    usage = {
        "input_tokens": 1000,
        "input_tokens_details": {"cached_tokens": 400},
        "output_tokens": 100,
        "total_tokens": 1100,
    }
    return {
        "type": "response.completed",
        "response": {"status": status, "usage": usage, **response},
    }


async def _run_events(
    server: ReplayServer,
    *events: dict[str, Any] | str,
    replies: tuple[Reply, ...] = (),
    **extra: Any,
) -> Any:
    reply = Reply(body=sse_body(*events, named=True))
    context = Context(messages=[UserMessage(content="q")])
    return await run_replay(server, stream, gpt5(**extra), context, fast_options(), reply, *replies)


async def test_usage_cost_and_service_tier(replay_server: ReplayServer) -> None:
    cost = ModelCost(input=1.0, output=10.0, cache_read=0.1)
    events = (_created(), *_message("hi", phase="final_answer"), _completed(service_tier="flex"))
    run = await _run_events(replay_server, *events, cost=cost)
    message = run.message
    assert usage_tuple(message.usage) == (600, 100, 400, 0, 1100)
    assert message.usage.cost.input == pytest.approx(0.0003)
    assert message.usage.cost.output == pytest.approx(0.0005)
    assert message.usage.cost.cache_read == pytest.approx(0.00002)
    assert message.usage.cost.total == pytest.approx(0.00082)
    assert message.content[0].to_json_dict()["textSignature"] == (
        '{"v":1,"id":"msg_1","phase":"final_answer"}'
    )
    priority = await _run_events(replay_server, _completed(service_tier="priority"), cost=cost)
    assert priority.message.usage.cost.total == pytest.approx(2 * 0.00164)


async def test_incomplete_is_length(replay_server: ReplayServer) -> None:
    incomplete = _completed("incomplete", incomplete_details={"reason": "max_output_tokens"})
    incomplete["type"] = "response.incomplete"
    run = await _run_events(replay_server, _created(), *_message("partial"), incomplete)
    assert (run.message.stop_reason, run.message.text()) == ("length", "partial")
    assert run.types[-1] == "done"


@pytest.mark.parametrize(
    ("response", "message"),
    [
        ({"error": {"code": "server_error", "message": "boom"}}, "server_error: boom"),
        ({"incomplete_details": {"reason": "content_filter"}}, "incomplete: content_filter"),
        ({}, "Unknown error (no error details in response)"),
    ],
)
async def test_response_failed(
    replay_server: ReplayServer, response: dict[str, Any], message: str
) -> None:
    failed = {"type": "response.failed", "response": {"status": "failed", **response}}
    run = await _run_events(replay_server, _created(), *_message("so far"), failed)
    assert (run.message.stop_reason, run.message.error_message) == ("error", message)
    assert run.message.text() == "so far"


async def test_error_event_after_content(replay_server: ReplayServer) -> None:
    error = {
        "type": "error",
        "code": "server_is_overloaded",
        "message": "Overloaded",
        "param": None,
    }
    run = await _run_events(replay_server, _created(), *_message("so far"), error)
    assert run.message.error_message == "Error Code server_is_overloaded: Overloaded"
    assert len(replay_server.requests) == 1


async def test_overloaded_before_content_is_retried(replay_server: ReplayServer) -> None:
    error = {
        "type": "error",
        "code": "server_is_overloaded",
        "message": "Overloaded",
        "param": None,
    }
    retry = Reply(body=sse_body(_created(), *_message("ok"), _completed(), named=True))
    run = await _run_events(replay_server, _created(), error, replies=(retry,))
    assert (run.message.stop_reason, run.message.text()) == ("stop", "ok")
    assert len(replay_server.requests) == 2 and run.types.count("start") == 1
    assert_event_order(run)


async def test_refusal_and_arguments_done(replay_server: ReplayServer) -> None:
    refusal_item = {"id": "msg_r", "type": "message", "role": "assistant", "content": []}
    call_item = {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "f"}
    events = [
        _created(),
        {"type": "response.output_item.added", "item": refusal_item},
        {"type": "response.content_part.added", "part": {"type": "refusal", "refusal": ""}},
        {"type": "response.refusal.delta", "delta": "I can't"},
        {
            "type": "response.output_item.done",
            "item": {**refusal_item, "content": [{"type": "refusal", "refusal": "I can't."}]},
        },
        {"type": "response.output_item.added", "item": {**call_item, "arguments": ""}},
        {"type": "response.function_call_arguments.delta", "delta": '{"a": 1'},
        {"type": "response.function_call_arguments.done", "arguments": '{"a": 2}'},
        {"type": "response.output_item.done", "item": {**call_item, "arguments": '{"a": 2}'}},
        _completed(),
    ]
    run = await _run_events(replay_server, *events)
    text, call = run.message.content
    assert isinstance(text, TextContent) and isinstance(call, ToolCall)
    assert text.text == "I can't."  # recomputed from the finished item
    assert run.deltas[0] == ["I can't"]
    assert (call.id, call.arguments) == ("call_1|fc_1", {"a": 2})
    assert run.message.stop_reason == "toolUse"
    assert_event_order(run, deltas_concat_to_end=False)


async def test_stream_without_terminal_event_is_an_error(replay_server: ReplayServer) -> None:
    run = await _run_events(replay_server, _created(), *_message("cut"))
    assert run.message.stop_reason == "error"
    assert run.message.error_message == "Stream ended before the response was complete"
    assert run.message.text() == "cut"


async def test_malformed_event_is_an_error(replay_server: ReplayServer) -> None:
    run = await _run_events(replay_server, _created(), *_message("x"), "{nope")
    assert run.message.stop_reason == "error"
    assert (run.message.error_message or "").startswith("Malformed event data from provider")
