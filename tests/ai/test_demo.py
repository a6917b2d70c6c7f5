"""The offline demo provider: event protocol, determinism, tool-call scripts, abort, usage."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pitui.ai.abort import AbortSignal
from pitui.ai.events import (
    AssistantMessageEvent,
    DoneEvent,
    ErrorEvent,
    TextDeltaEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
)
from pitui.ai.models import DEMO_MODEL
from pitui.ai.options import StreamOptions
from pitui.ai.providers import demo
from pitui.ai.providers.demo_script import fence
from pitui.ai.stream import stream
from pitui.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Message,
    TextContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

DEFAULT_TOOLS = ("read", "bash", "edit", "write")
ALL_TOOLS = (*DEFAULT_TOOLS, "grep", "find", "ls")


@pytest.fixture(autouse=True)
def _fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(demo.PACE_ENV, "0")


def ctx(*messages: Message, tools: tuple[str, ...] | None = DEFAULT_TOOLS) -> Context:
    return Context(
        system_prompt="You are helpful.",
        messages=list(messages),
        tools=None if tools is None else [Tool(name=n, description=f"{n} tool") for n in tools],
    )


def user(text: str) -> UserMessage:
    return UserMessage(content=text, timestamp=1)


async def run(
    context: Context, options: StreamOptions | None = None
) -> tuple[list[AssistantMessageEvent], AssistantMessage]:
    events = stream(DEMO_MODEL, context, options)
    seen = [event async for event in events]
    return seen, await events.result()


def check_protocol(events: list[AssistantMessageEvent]) -> None:
    """PI_SPEC 1.4: one start first, per-block start → deltas → end, one terminal last."""
    assert events[0].type == "start"
    assert [e.type for e in events].count("start") == 1
    assert events[-1].type in ("done", "error")
    assert sum(e.type in ("done", "error") for e in events) == 1
    open_blocks: dict[int, str] = {}
    closed: set[int] = set()
    for event in events[1:-1]:
        kind, _, phase = event.type.rpartition("_")
        index = getattr(event, "content_index")  # noqa: B009
        if phase == "start":
            assert index not in open_blocks and index not in closed
            open_blocks[index] = kind
        else:
            assert open_blocks.get(index) == kind, event.type
            if phase == "end":
                closed.add(index)
                del open_blocks[index]
    if events[-1].type == "done":
        assert not open_blocks


def signature(events: list[AssistantMessageEvent]) -> list[tuple[str, Any]]:
    return [(e.type, getattr(e, "delta", None)) for e in events]


# --------------------------------------------------------------------------- protocol


async def test_plain_reply_protocol_and_markdown() -> None:
    events, message = await run(ctx(user("hello there")))
    check_protocol(events)
    assert [b.type for b in message.content] == ["thinking", "text"]
    assert isinstance(events[-1], DoneEvent) and events[-1].reason == "stop"
    assert events[-1].message is message
    assert (message.api, message.provider, message.model) == ("demo", "demo", "demo")
    text = message.text()
    assert "offline demo model" in text
    assert text.startswith("# ") and "\n- `read FILE`" in text and "```bash" in text
    assert "hello there" in text
    deltas = "".join(e.delta for e in events if isinstance(e, TextDeltaEvent))
    assert deltas == text
    assert sum(isinstance(e, TextDeltaEvent) for e in events) > 5


async def test_partial_is_the_same_object_throughout() -> None:
    events, message = await run(ctx(user("hi")))
    for event in events[:-1]:
        assert getattr(event, "partial") is message  # noqa: B009


async def test_deterministic() -> None:
    context = ctx(user("please read README.md"))
    first, a = await run(context)
    second, b = await run(context)
    assert signature(first) == signature(second)
    a_json, b_json = a.to_json_dict(), b.to_json_dict()
    a_json.pop("timestamp"), b_json.pop("timestamp")
    assert a_json == b_json


async def test_usage_estimated_and_free() -> None:
    context = ctx(user("hello"))
    _, message = await run(context)
    usage = message.usage
    chars = len("You are helpful.") + len("hello")
    chars += sum(len(t.name) + len(t.description) + len('{"type": "object", "properties": {}}')
                 for t in context.tools or [])  # fmt: skip
    assert usage.input == math.ceil(chars / 4)
    produced = sum(
        len(getattr(b, "text", "") or getattr(b, "thinking", "")) for b in message.content
    )
    assert usage.output == math.ceil(produced / 4)
    assert usage.total_tokens == usage.input + usage.output
    assert usage.cost.total == 0


async def test_images_count_in_usage_and_are_mentioned() -> None:
    image = ImageContent(data="aGVsbG8=", mime_type="image/png")
    _, message = await run(ctx(UserMessage(content=[TextContent(text="look"), image])))
    assert message.usage.input >= 1200
    assert "1 image(s)" in message.text()


# --------------------------------------------------------------------------- tool scripts


@pytest.mark.parametrize(
    ("prompt", "name", "arguments"),
    [
        ("read README.md", "read", {"path": "README.md"}),
        ("Please read `src/app.py`.", "read", {"path": "src/app.py"}),
        ("list files", "ls", {}),
        ("ls src", "ls", {"path": "src"}),
        ("list files in docs", "ls", {"path": "docs"}),
        ("run ls -la", "bash", {"command": "ls -la"}),
        ("$ echo hi && false", "bash", {"command": "echo hi && false"}),
        ("run `pytest -q`", "bash", {"command": "pytest -q"}),
        (
            'change "hello" to "goodbye" in notes.txt',
            "edit",
            {"path": "notes.txt", "oldText": "hello", "newText": "goodbye"},
        ),
        ("write out.txt: one\ntwo", "write", {"path": "out.txt", "content": "one\ntwo"}),
        ("find *.py", "find", {"pattern": "*.py"}),
        ("grep TODO", "grep", {"pattern": "TODO"}),
    ],
)  # fmt: skip
async def test_tool_call_scripts(prompt: str, name: str, arguments: dict[str, Any]) -> None:
    events, message = await run(ctx(user(prompt), tools=ALL_TOOLS))
    check_protocol(events)
    assert message.stop_reason == "toolUse"
    assert isinstance(events[-1], DoneEvent) and events[-1].reason == "toolUse"
    [call] = message.tool_calls()
    assert (call.id, call.name, call.arguments) == ("demo_1_1", name, arguments)
    end = next(e for e in events if isinstance(e, ToolCallEndEvent))
    assert end.tool_call.arguments == arguments
    raw = "".join(e.delta for e in events if isinstance(e, ToolCallDeltaEvent))
    assert raw.startswith("{")
    assert "offline demo model" in message.text()


async def test_disabled_tools_fall_back_to_bash() -> None:
    _, message = await run(ctx(user("ls src")))
    [call] = message.tool_calls()
    assert (call.name, call.arguments) == ("bash", {"command": "ls -a src"})
    _, message = await run(ctx(user("grep 'a b'")))
    assert message.tool_calls()[0].arguments == {"command": "grep -rn 'a b' ."}


async def test_no_tools_explains_instead_of_calling() -> None:
    _, message = await run(ctx(user("read x.txt"), tools=None))
    assert message.stop_reason == "stop" and not message.tool_calls()
    assert "not enabled" in message.text() and "offline demo model" in message.text()


async def test_tool_call_ids_continue_numbering() -> None:
    earlier = AssistantMessage(
        api="demo",
        provider="demo",
        model="demo",
        content=[ToolCall(id="demo_1", name="read", arguments={"path": "a"})],
        stop_reason="toolUse",
    )
    result = ToolResultMessage(tool_call_id="demo_1", tool_name="read", content=[])
    _, message = await run(ctx(user("read a"), earlier, result, AssistantMessage(
        api="demo", provider="demo", model="demo", content=[TextContent(text="ok")]
    ), user("read b")))  # fmt: skip
    assert message.tool_calls()[0].id == "demo_2_1"


async def test_tool_call_ids_differ_when_the_numbering_restarts() -> None:
    """After a compaction (or on a new branch) the context holds fewer calls: the id still
    differs from every earlier one, by the time of the request it answers."""
    _, first = await run(ctx(user("read a")))
    later = UserMessage(content="read a", timestamp=1_765_238_067_786)
    _, second = await run(ctx(later))
    ids = [first.tool_calls()[0].id, second.tool_calls()[0].id]
    assert ids[0] != ids[1] and all(i.startswith("demo_1_") for i in ids)


# --------------------------------------------------------------------------- tool results


def after_call(name: str, arguments: dict[str, Any], text: str, is_error: bool = False) -> Context:
    call = ToolCall(id="demo_1", name=name, arguments=arguments)
    assistant = AssistantMessage(
        api="demo", provider="demo", model="demo", content=[call], stop_reason="toolUse"
    )
    result = ToolResultMessage(
        tool_call_id="demo_1",
        tool_name=name,
        content=[TextContent(text=text)],
        is_error=is_error,
    )
    return ctx(user("go"), assistant, result)


async def test_answer_quotes_read_file() -> None:
    body = "\n".join(f"line {i}" for i in range(1, 31))
    events, message = await run(after_call("read", {"path": "big.txt"}, body))
    check_protocol(events)
    text = message.text()
    assert message.stop_reason == "stop" and not message.tool_calls()
    assert "`big.txt` has 30 line(s)" in text
    assert "line 1\nline 2" in text and "line 10" in text and "line 11" not in text
    assert "offline demo model" in text


async def test_answer_reports_bash_exit_code() -> None:
    ok = (await run(after_call("bash", {"command": "echo hi"}, "hi")))[1].text()
    assert "`echo hi` exited with code 0" in ok and "hi" in ok
    failed = await run(
        after_call("bash", {"command": "false"}, "oops\n\nCommand exited with code 1", True)
    )
    assert "`false` exited with code 1" in failed[1].text() and "oops" in failed[1].text()


async def test_answer_reports_edit_and_errors() -> None:
    args = {"path": "n.txt", "oldText": "a", "newText": "b"}
    edited = (await run(after_call("edit", args, "Successfully replaced text in n.txt.")))[1]
    assert "I changed `n.txt`" in edited.text()
    error = "Could not find the exact text in n.txt."
    failed = (await run(after_call("edit", args, error, True)))[1]
    assert "The `edit` call failed" in failed.text() and error in failed.text()


def test_fence_outgrows_backticks() -> None:
    assert fence("a ``` b").startswith("````\n")
    assert fence("plain") == "```\nplain\n```"


# --------------------------------------------------------------------------- abort & pace


async def test_abort_mid_stream_keeps_partial_content() -> None:
    signal = AbortSignal()
    events = stream(DEMO_MODEL, ctx(user("hello")), StreamOptions(signal=signal))
    seen: list[AssistantMessageEvent] = []
    async for event in events:
        seen.append(event)
        if isinstance(event, TextDeltaEvent):
            signal.abort()
    message = await events.result()
    check_protocol(seen)
    last = seen[-1]
    assert isinstance(last, ErrorEvent) and last.reason == "aborted"
    assert message.stop_reason == "aborted" and message.error_message
    assert [b.type for b in message.content] == ["thinking", "text"]
    assert 0 < len(message.text()) < 200
    # The producer may run a few chunks ahead of the consumer, never to the end.
    full, _ = await run(ctx(user("hello")))
    count = sum(isinstance(e, TextDeltaEvent) for e in seen)
    assert count < sum(isinstance(e, TextDeltaEvent) for e in full) / 2


async def test_consumer_cancel_ends_with_aborted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(demo.PACE_ENV, "5")
    events = stream(DEMO_MODEL, ctx(user("hello")))

    async def consume() -> None:
        async for _ in events:
            pass

    task = asyncio.ensure_future(consume())
    await asyncio.sleep(0.03)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    message = await asyncio.wait_for(events.result(), 2)
    assert message.stop_reason == "aborted"


def test_pace_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(demo.PACE_ENV, "7.5")
    assert demo.pace_ms() == 7.5
    for bad in ("fast", "-3"):
        monkeypatch.setenv(demo.PACE_ENV, bad)
        assert demo.pace_ms() == demo.DEFAULT_PACE_MS
    monkeypatch.delenv(demo.PACE_ENV)
    assert demo.pace_ms() == demo.DEFAULT_PACE_MS


@given(st.text())
def test_chunks_join_back_to_the_text(text: str) -> None:
    chunks = demo.chunk_text(text)
    assert "".join(chunks) == text
    assert all(chunks)
