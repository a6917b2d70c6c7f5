"""The agent loop (PI_SPEC §3.4–3.6): prompts in, turns of model calls and tool runs, events out.

The loop works on AgentMessages throughout and converts to LLM messages only at the
call boundary: ``transform_context`` then ``convert_to_llm``, both given a deep copy so
that whatever they do, the transcript stays as it was. Exceptions raised outside tool
execution (hooks, key lookup, a stream function that raises) propagate to the caller;
:class:`pitui.agent.agent.Agent` turns them into the failure path of §3.10.
"""

from __future__ import annotations

from typing import Protocol

import msgspec

from pitui.agent.clone import deep_clone, shallow_copy
from pitui.agent.config import (
    AgentContext,
    AgentEventSink,
    AgentLoopConfig,
    ConvertToLlm,
    MessageSource,
    TransformContext,
)
from pitui.agent.events import (
    AgentEndEvent,
    AgentStartEvent,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from pitui.agent.messages import AgentMessage, is_leaving_input_alone
from pitui.agent.tool_exec import ToolRunner, maybe_await
from pitui.ai.abort import AbortSignal
from pitui.ai.events import DoneEvent, ErrorEvent, StartEvent
from pitui.ai.options import StreamOptions
from pitui.ai.types import AssistantMessage, Context, Message, ToolResultMessage


async def run_agent_loop(
    prompts: list[AgentMessage],
    context: AgentContext,
    config: AgentLoopConfig,
    emit: AgentEventSink,
    signal: AbortSignal | None = None,
) -> list[AgentMessage]:
    """Run the agent on ``context`` plus new ``prompts`` until it stops.

    Emits ``agent_start``, ``turn_start`` and a start/end pair per prompt, then the turns.

    Returns:
        Every message this run added (prompts, deliveries, replies, tool results).
    """
    new_messages: list[AgentMessage] = list(prompts)
    current = AgentContext(context.system_prompt, [*context.messages, *prompts], context.tools)
    await emit(AgentStartEvent())
    await emit(TurnStartEvent())
    for prompt in prompts:
        await emit(MessageStartEvent(message=prompt))
        await emit(MessageEndEvent(message=prompt))
    await _run_turns(current, new_messages, config, emit, signal or AbortSignal())
    return new_messages


async def run_agent_loop_continue(
    context: AgentContext,
    config: AgentLoopConfig,
    emit: AgentEventSink,
    signal: AbortSignal | None = None,
) -> list[AgentMessage]:
    """Re-run the model on ``context`` as it is (retries, resuming after tool results).

    Raises:
        ValueError: on an empty context or one that ends with an assistant message.
    """
    if not context.messages:
        raise ValueError("Cannot continue: no messages in context")
    if context.messages[-1].role == "assistant":
        raise ValueError("Cannot continue from message role: assistant")
    new_messages: list[AgentMessage] = []
    current = AgentContext(context.system_prompt, list(context.messages), context.tools)
    await emit(AgentStartEvent())
    await emit(TurnStartEvent())
    await _run_turns(current, new_messages, config, emit, signal or AbortSignal())
    return new_messages


async def _run_turns(
    current: AgentContext,
    new_messages: list[AgentMessage],
    config: AgentLoopConfig,
    emit: AgentEventSink,
    signal: AbortSignal,
) -> None:
    """pi's ``runLoop``: turns until no tool calls, steering or follow-ups remain."""
    first_turn = True
    pending = await _poll(config.get_steering_messages)
    while True:
        more_tool_calls = True
        while more_tool_calls or pending:
            if not first_turn:
                await emit(TurnStartEvent())
            first_turn = False
            for message in pending:
                await emit(MessageStartEvent(message=message))
                await emit(MessageEndEvent(message=message))
                current.messages.append(message)
                new_messages.append(message)
            pending = []
            if config.get_tools is not None:  # a tool may have changed them (tool_search)
                current.tools = list(config.get_tools())
            reply = await stream_assistant_response(current, config, emit, signal)
            new_messages.append(reply)
            if reply.stop_reason in ("error", "aborted"):
                # Queues are not polled: whatever is queued stays queued.
                await emit(TurnEndEvent(message=reply, tool_results=[]))
                await emit(AgentEndEvent(messages=new_messages))
                return
            more_tool_calls = bool(reply.tool_calls())
            results: list[ToolResultMessage] = []
            steering: list[AgentMessage] | None = None
            if more_tool_calls:
                batch = await ToolRunner(current, reply, config, signal, emit).run()
                results, steering = batch.results, batch.steering
                current.messages.extend(results)
                new_messages.extend(results)
            await emit(TurnEndEvent(message=reply, tool_results=results))
            pending = steering or await _poll(config.get_steering_messages)
        pending = await _poll(config.get_follow_up_messages)
        if not pending:
            break
    await emit(AgentEndEvent(messages=new_messages))


async def _poll(source: MessageSource | None) -> list[AgentMessage]:
    return [] if source is None else await source()


class RequestHooks(Protocol):
    """The two hooks between a transcript and a request (an AgentLoopConfig, an Agent)."""

    @property
    def transform_context(self) -> TransformContext | None: ...

    @property
    def convert_to_llm(self) -> ConvertToLlm: ...


class RequestTrace(msgspec.Struct):
    """Where each message of a request came from (filled by :func:`build_llm_context`).

    Only inspection asks for it (the context report); a model call never does.
    """

    sources: list[int | None] = msgspec.field(default_factory=list)
    """Per ``Context.messages``: index of the transcript message it was made from, None
    when unknown (a transform's own message, or a converter that does not map one to one)."""


async def build_llm_context(
    current: AgentContext,
    config: RequestHooks,
    signal: AbortSignal,
    trace: RequestTrace | None = None,
) -> Context:
    """The request's context: transform_context → convert_to_llm on a copy (PI_SPEC §3.6).

    The one builder of what a model call carries: the loop calls it before every call,
    and the context report (what the model sees) calls it with a ``trace``.
    """
    originals = current.messages
    copied = config.transform_context is not None or not is_leaving_input_alone(
        config.convert_to_llm
    )
    # The hooks may edit what they are given; the transcript must not notice. (A
    # converter declared to leave its input alone, as pitui's own are, gets it as is.)
    messages = [deep_clone(m) for m in originals] if copied else list(originals)
    origin = {id(m): i for i, m in enumerate(messages)} if trace is not None else {}
    if config.transform_context is not None:
        messages = await maybe_await(config.transform_context(messages, signal))
    llm_messages = list(await maybe_await(config.convert_to_llm(messages)))
    if trace is not None:
        trace.sources = await _trace_sources(config, messages, llm_messages, origin)
    tools = [tool.to_tool() for tool in current.tools] or None
    # The messages are typed models already; validating thousands per call is the cost
    # that dominated long runs, so the context is assembled without re-validation.
    return Context.model_construct(
        system_prompt=current.system_prompt, messages=llm_messages, tools=tools
    )


async def _trace_sources(
    config: RequestHooks,
    transformed: list[AgentMessage],
    llm_messages: list[Message],
    origin: dict[int, int],
) -> list[int | None]:
    """Attribute each request message to a transcript message.

    The converter is run once more per message: when the pieces add up to the real
    result (any one-to-one or dropping converter, as pi's), each piece names its source;
    otherwise every source is unknown. The request itself is always the real result.
    """
    sources: list[int | None] = []
    roles: list[str] = []
    for message in transformed:
        piece = await maybe_await(config.convert_to_llm([message]))
        sources.extend([origin.get(id(message))] * len(piece))
        roles.extend(m.role for m in piece)
    if roles != [m.role for m in llm_messages]:
        return [None] * len(llm_messages)
    return sources


async def stream_options_for(config: AgentLoopConfig, signal: AbortSignal) -> StreamOptions:
    """The options of one call: the template plus this call's key, signal and reasoning."""
    base = config.stream_options
    api_key = None
    if config.get_api_key is not None:
        api_key = await maybe_await(config.get_api_key(config.model.provider))
    return msgspec.structs.replace(
        base,
        api_key=api_key or base.api_key,
        signal=signal,
        reasoning=config.reasoning,
        session_id=config.session_id or base.session_id,
    )


async def stream_assistant_response(
    current: AgentContext, config: AgentLoopConfig, emit: AgentEventSink, signal: AbortSignal
) -> AssistantMessage:
    """Make one model call and relay its events; append the reply to ``current``.

    ``message_start`` comes at the stream's ``start`` (or, without one, at its end);
    each block event becomes a ``message_update`` with a snapshot of the partial.
    """
    llm_context = await build_llm_context(current, config, signal)
    options = await stream_options_for(config, signal)
    response = config.stream_fn(config.model, llm_context, options)
    started = False
    async for event in response:
        if isinstance(event, StartEvent):
            started = True
            await emit(MessageStartEvent(message=snapshot(event.partial)))
        elif isinstance(event, DoneEvent | ErrorEvent):
            break
        elif started:
            await emit(
                MessageUpdateEvent(message=snapshot(event.partial), assistant_message_event=event)
            )
    final = await response.result()
    if not started:
        await emit(MessageStartEvent(message=snapshot(final)))
    await emit(MessageEndEvent(message=final))
    current.messages.append(final)
    return final


def snapshot(message: AssistantMessage) -> AssistantMessage:
    """A copy of a streaming message that later deltas do not change.

    Blocks are copied shallowly: providers replace strings and argument dicts rather than
    editing them in place, so this is a true snapshot at a cost of O(blocks).
    """
    copied = shallow_copy(message)
    usage = shallow_copy(message.usage)
    # Plain __dict__ writes: pydantic's __setattr__ costs more than the copies themselves.
    usage.__dict__["cost"] = shallow_copy(message.usage.cost)
    copied.__dict__["usage"] = usage
    copied.__dict__["content"] = [shallow_copy(block) for block in message.content]
    return copied
