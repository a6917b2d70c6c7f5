"""Agent: the stateful owner of a transcript that runs the loop (pi's ``Agent``, PI_SPEC §3)."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import TypeAlias

from pitui.agent.config import (
    AfterToolCall,
    AgentContext,
    AgentLoopConfig,
    BeforeToolCall,
    ConvertToLlm,
    GetApiKey,
    QueueMode,
    ToolResultFilter,
    TransformContext,
)
from pitui.agent.events import (
    AgentEndEvent,
    AgentEvent,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    TurnEndEvent,
)
from pitui.agent.loop import (
    RequestTrace,
    build_llm_context,
    run_agent_loop,
    run_agent_loop_continue,
)
from pitui.agent.messages import AgentMessage, default_convert_to_llm
from pitui.agent.state import AgentState
from pitui.agent.tool import ExecutionMode
from pitui.ai.abort import AbortSignal
from pitui.ai.options import StreamOptions
from pitui.ai.stream import StreamFn, stream
from pitui.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    TextContent,
    UserMessage,
)
from pitui.errors import PituiError

AgentListener: TypeAlias = Callable[[AgentEvent], Awaitable[None] | None]
"""A subscriber; if it returns an awaitable, the run waits for it before going on."""

BUSY_PROMPT = (
    "Agent is already processing a prompt. Use steer() or followUp() to queue messages, "
    "or wait for completion."
)
BUSY_CONTINUE = "Agent is already processing. Wait for completion before continuing."


class AgentError(PituiError):
    """A call the agent refuses in its current state (busy, no model, nothing to continue)."""

    title = "Agent"


class Agent:
    """Holds the state, the queues and the hooks, and runs the loop on ``prompt()``.

    Events reach subscribers after the state has been updated for them, in the orders of
    PI_SPEC §3.5. Failures never escape a run: they end it on the failure path (§3.10).
    """

    def __init__(
        self,
        *,
        initial_state: AgentState | None = None,
        stream_fn: StreamFn = stream,
        convert_to_llm: ConvertToLlm = default_convert_to_llm,
        transform_context: TransformContext | None = None,
        get_api_key: GetApiKey | None = None,
        stream_options: StreamOptions | None = None,
        session_id: str | None = None,
        steering_mode: QueueMode = "one-at-a-time",
        follow_up_mode: QueueMode = "one-at-a-time",
        tool_execution: ExecutionMode = "parallel",
        before_tool_call: BeforeToolCall | None = None,
        after_tool_call: AfterToolCall | None = None,
        filter_tool_result: ToolResultFilter | None = None,
    ) -> None:
        self.state = initial_state or AgentState()
        self.stream_fn = stream_fn
        self.convert_to_llm = convert_to_llm
        self.transform_context = transform_context
        self.get_api_key = get_api_key
        self.stream_options = stream_options or StreamOptions()
        self.session_id = session_id
        self.steering_mode: QueueMode = steering_mode
        self.follow_up_mode: QueueMode = follow_up_mode
        self.tool_execution: ExecutionMode = tool_execution
        self.before_tool_call = before_tool_call
        self.after_tool_call = after_tool_call
        self.filter_tool_result = filter_tool_result
        self._listeners: list[AgentListener] = []
        self._steering: list[AgentMessage] = []
        self._follow_up: list[AgentMessage] = []
        self._signal: AbortSignal | None = None
        self._idle: asyncio.Future[None] | None = None

    # ------------------------------------------------------------------ subscribers

    def subscribe(self, listener: AgentListener) -> Callable[[], None]:
        """Call ``listener`` with every event; returns a function that unsubscribes it."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    async def _emit(self, event: AgentEvent) -> None:
        for listener in list(self._listeners):
            pending = listener(event)
            if pending is not None and inspect.isawaitable(pending):
                await pending

    # ------------------------------------------------------------------ queues

    def steer(self, message: AgentMessage) -> None:
        """Queue a message for the next steering poll; it skips the remaining tool calls."""
        self._steering.append(message)

    def follow_up(self, message: AgentMessage) -> None:
        """Queue a message for when the agent would otherwise stop."""
        self._follow_up.append(message)

    def clear_steering_queue(self) -> None:
        """Drop every queued steering message."""
        self._steering.clear()

    def clear_follow_up_queue(self) -> None:
        """Drop every queued follow-up message."""
        self._follow_up.clear()

    def clear_all_queues(self) -> None:
        """Drop every queued message."""
        self._steering.clear()
        self._follow_up.clear()

    def has_queued_messages(self) -> bool:
        """True while a steering or follow-up message waits for delivery."""
        return bool(self._steering or self._follow_up)

    @property
    def queued_steering(self) -> list[AgentMessage]:
        """A copy of the steering queue, oldest first."""
        return list(self._steering)

    @property
    def queued_follow_up(self) -> list[AgentMessage]:
        """A copy of the follow-up queue, oldest first."""
        return list(self._follow_up)

    @staticmethod
    def _dequeue(queue: list[AgentMessage], mode: QueueMode) -> list[AgentMessage]:
        taken = queue[:1] if mode == "one-at-a-time" else queue[:]
        del queue[: len(taken)]
        return taken

    # ------------------------------------------------------------------ transcript

    def replace_messages(self, messages: list[AgentMessage]) -> None:
        """Replace the transcript (resume, branch navigation)."""
        self.state.messages = list(messages)

    def append_message(self, message: AgentMessage) -> None:
        """Add one message to the transcript without running anything."""
        self.state.messages = [*self.state.messages, message]

    def reset(self) -> None:
        """Forget the transcript, the queues and any streaming state."""
        self.state.messages = []
        self.state.is_streaming = False
        self.state.stream_message = None
        self.state.pending_tool_calls = set()
        self.state.error = None
        self.clear_all_queues()

    # ------------------------------------------------------------------ requests

    async def request_context(
        self,
        messages: list[AgentMessage] | None = None,
        trace: RequestTrace | None = None,
    ) -> Context:
        """The context the next model call would carry for ``messages`` (default: the
        transcript): the same builder, hooks, system prompt and tools as a real call.
        """
        transcript = self.state.messages if messages is None else messages
        current = AgentContext(self.state.system_prompt, list(transcript), list(self.state.tools))
        return await build_llm_context(current, self, AbortSignal(), trace)

    # ------------------------------------------------------------------ runs

    async def prompt(
        self,
        message: str | AgentMessage | list[AgentMessage],
        images: list[ImageContent] | None = None,
    ) -> None:
        """Run the agent with new input; returns when the run has ended.

        A string becomes a user message of a text block followed by ``images``.

        Raises:
            AgentError: while a run is in progress, or without a model.
        """
        if self.state.is_streaming:
            raise AgentError(BUSY_PROMPT)
        if self.state.model is None:
            raise AgentError("No model configured")
        if isinstance(message, str):
            content: list[TextContent | ImageContent] = [TextContent(text=message), *(images or [])]
            prompts: list[AgentMessage] = [UserMessage(content=content)]
        elif isinstance(message, list):
            prompts = list(message)
        else:
            prompts = [message]
        await self._run(prompts)

    async def continue_(self) -> None:
        """Run the model again on the transcript (retries, queued messages after a stop).

        Raises:
            AgentError: while busy, on an empty transcript, or when it ends with an
                assistant message and nothing is queued.
        """
        if self.state.is_streaming:
            raise AgentError(BUSY_CONTINUE)
        messages = self.state.messages
        if not messages:
            raise AgentError("No messages to continue from")
        if messages[-1].role == "assistant":
            steering = self._dequeue(self._steering, self.steering_mode)
            if steering:
                await self._run(steering, skip_initial_steering_poll=True)
                return
            follow_up = self._dequeue(self._follow_up, self.follow_up_mode)
            if follow_up:
                await self._run(follow_up)
                return
            raise AgentError("Cannot continue from message role: assistant")
        await self._run(None)

    def abort(self) -> None:
        """Abort the current run: the model call and every running tool see the signal."""
        if self._signal is not None:
            self._signal.abort("aborted by user")

    async def wait_for_idle(self) -> None:
        """Return once no run is in progress."""
        if self._idle is not None:
            await asyncio.shield(self._idle)

    async def _run(
        self, prompts: list[AgentMessage] | None, *, skip_initial_steering_poll: bool = False
    ) -> None:
        model = self.state.model
        if model is None:
            raise AgentError("No model configured")
        self._idle = asyncio.get_running_loop().create_future()
        signal = self._signal = AbortSignal()
        self.state.is_streaming = True
        self.state.stream_message = None
        self.state.error = None
        context = AgentContext(
            self.state.system_prompt, list(self.state.messages), list(self.state.tools)
        )
        config = self._loop_config(model, skip_initial_steering_poll)
        try:
            if prompts is not None:
                await run_agent_loop(prompts, context, config, self._process, signal)
            else:
                await run_agent_loop_continue(context, config, self._process, signal)
        except Exception as exc:  # the failure path (PI_SPEC §3.10), not a crash
            await self._fail(model, exc, signal)
        finally:
            self.state.is_streaming = False
            self.state.stream_message = None
            self.state.pending_tool_calls = set()
            self._signal = None
            if not self._idle.done():
                self._idle.set_result(None)
            self._idle = None

    def _loop_config(self, model: Model, skip_initial_steering_poll: bool) -> AgentLoopConfig:
        skip = [skip_initial_steering_poll]

        async def steering() -> list[AgentMessage]:
            if skip[0]:
                skip[0] = False
                return []
            return self._dequeue(self._steering, self.steering_mode)

        async def follow_up() -> list[AgentMessage]:
            return self._dequeue(self._follow_up, self.follow_up_mode)

        return AgentLoopConfig(
            model=model,
            stream_fn=self.stream_fn,
            convert_to_llm=self.convert_to_llm,
            transform_context=self.transform_context,
            get_api_key=self.get_api_key,
            stream_options=self.stream_options,
            reasoning=self.state.thinking_level,
            session_id=self.session_id,
            get_steering_messages=steering,
            get_follow_up_messages=follow_up,
            tool_execution=self.tool_execution,
            before_tool_call=self.before_tool_call,
            after_tool_call=self.after_tool_call,
            filter_tool_result=self.filter_tool_result,
            get_tools=lambda: self.state.tools,
        )

    async def _process(self, event: AgentEvent) -> None:
        """Update the state for ``event``, then tell the subscribers (pi's order)."""
        state = self.state
        if isinstance(event, MessageStartEvent | MessageUpdateEvent):
            state.stream_message = event.message
        elif isinstance(event, MessageEndEvent):
            state.stream_message = None
            state.messages.append(event.message)
        elif isinstance(event, ToolExecutionStartEvent):
            state.pending_tool_calls.add(event.tool_call_id)
        elif isinstance(event, ToolExecutionEndEvent):
            state.pending_tool_calls.discard(event.tool_call_id)
        elif isinstance(event, TurnEndEvent):
            if isinstance(event.message, AssistantMessage) and event.message.error_message:
                state.error = event.message.error_message
        elif isinstance(event, AgentEndEvent):
            state.is_streaming = False
            state.stream_message = None
        await self._emit(event)

    async def _fail(self, model: Model, exc: Exception, signal: AbortSignal) -> None:
        text = str(exc) or type(exc).__name__
        failed = AssistantMessage(
            content=[TextContent(text="")],
            api=model.api,
            provider=model.provider,
            model=model.id,
            stop_reason="aborted" if signal.aborted else "error",
            error_message=text,
        )
        self.append_message(failed)
        self.state.error = text
        await self._emit(AgentEndEvent(messages=[failed]))
