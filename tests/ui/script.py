"""Hand-built AgentEvent sequences, in the exact orders of PI_SPEC §3.5.

Each ``message_update`` carries its own snapshot of the partial (as pi's shallow copy
does), so a test can stop after any event and see the state at that point.
"""

from __future__ import annotations

import json
from typing import Any

from pitui.agent.events import (
    AgentEndEvent,
    AgentEvent,
    AgentStartEvent,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from pitui.agent.messages import AgentMessage
from pitui.agent.tool import AgentToolResult
from pitui.ai import events as ev
from pitui.ai.types import (
    AssistantMessage,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UsageCost,
    UserMessage,
)


class Script:
    """Builds a list of AgentEvents step by step."""

    def __init__(self) -> None:
        self.events: list[AgentEvent] = []
        self.run_messages: list[AgentMessage] = []
        self.partial: AssistantMessage | None = None
        self._ts = 1_700_000_000_000

    def _tick(self) -> int:
        self._ts += 1
        return self._ts

    # ------------------------------------------------------------------ run / user
    def start(self) -> Script:
        self.events += [AgentStartEvent(), TurnStartEvent()]
        self.run_messages = []
        return self

    def user(self, text: str) -> Script:
        msg = UserMessage(content=[TextContent(text=text)], timestamp=self._tick())
        self.events += [MessageStartEvent(message=msg), MessageEndEvent(message=msg)]
        self.run_messages.append(msg)
        return self

    def custom(self, message: AgentMessage) -> Script:
        self.events += [MessageStartEvent(message=message), MessageEndEvent(message=message)]
        return self

    # ------------------------------------------------------------------ assistant
    def assistant(self) -> Script:
        self.partial = AssistantMessage(
            api="demo", provider="demo", model="demo-model", timestamp=self._tick()
        )
        self.events.append(MessageStartEvent(message=self.partial.model_copy(deep=True)))
        return self

    def _update(self, sub: Any) -> None:
        assert self.partial is not None
        snapshot = self.partial.model_copy(deep=True)
        self.events.append(MessageUpdateEvent(message=snapshot, assistant_message_event=sub))

    def text(self, *chunks: str, end: bool = True) -> Script:
        p = self.partial
        assert p is not None
        idx = len(p.content)
        block = TextContent(text="")
        p.content.append(block)
        self._update(ev.TextStartEvent(partial=p, content_index=idx))
        for chunk in chunks:
            block.text += chunk
            self._update(ev.TextDeltaEvent(partial=p, content_index=idx, delta=chunk))
        if end:
            self._update(ev.TextEndEvent(partial=p, content_index=idx, content=block.text))
        return self

    def thinking(self, *chunks: str) -> Script:
        p = self.partial
        assert p is not None
        idx = len(p.content)
        block = ThinkingContent(thinking="")
        p.content.append(block)
        self._update(ev.ThinkingStartEvent(partial=p, content_index=idx))
        for chunk in chunks:
            block.thinking += chunk
            self._update(ev.ThinkingDeltaEvent(partial=p, content_index=idx, delta=chunk))
        self._update(ev.ThinkingEndEvent(partial=p, content_index=idx, content=block.thinking))
        return self

    def tool_call(self, call_id: str, name: str, args: dict[str, Any], end: bool = True) -> Script:
        p = self.partial
        assert p is not None
        idx = len(p.content)
        call = ToolCall(id=call_id, name=name, arguments={})
        p.content.append(call)
        self._update(ev.ToolCallStartEvent(partial=p, content_index=idx))
        # Arguments grow key by key, as a partial-JSON parser would recover them.
        for key, value in args.items():
            call.arguments = {**call.arguments, key: value}
            delta = json.dumps({key: value})
            self._update(ev.ToolCallDeltaEvent(partial=p, content_index=idx, delta=delta))
        if end:
            self._update(ev.ToolCallEndEvent(partial=p, content_index=idx, tool_call=call))
        return self

    def end(
        self,
        stop_reason: StopReason = "stop",
        error_message: str | None = None,
        usage: Usage | None = None,
    ) -> Script:
        p = self.partial
        assert p is not None
        p.stop_reason = stop_reason
        p.error_message = error_message
        if usage is not None:
            p.usage = usage
        final = p.model_copy(deep=True)
        self.events.append(MessageEndEvent(message=final))
        self.run_messages.append(final)
        self.partial = None
        return self

    def turn_end(self) -> Script:
        last = next(m for m in reversed(self.run_messages) if isinstance(m, AssistantMessage))
        self.events.append(TurnEndEvent(message=last, tool_results=[]))
        self.events.append(TurnStartEvent())
        return self

    # ------------------------------------------------------------------ tools
    def tool_start(self, call_id: str, name: str, args: dict[str, Any]) -> Script:
        self.events.append(ToolExecutionStartEvent(tool_call_id=call_id, tool_name=name, args=args))
        return self

    def tool_update(self, call_id: str, name: str, text: str) -> Script:
        result = AgentToolResult(content=[TextContent(text=text)])
        self.events.append(
            ToolExecutionUpdateEvent(
                tool_call_id=call_id, tool_name=name, args={}, partial_result=result
            )
        )
        return self

    def tool_end(
        self, call_id: str, name: str, text: str, is_error: bool = False, details: Any = None
    ) -> Script:
        result = AgentToolResult(content=[TextContent(text=text)], details=details)
        self.events.append(
            ToolExecutionEndEvent(
                tool_call_id=call_id, tool_name=name, result=result, is_error=is_error
            )
        )
        msg = ToolResultMessage(
            tool_call_id=call_id,
            tool_name=name,
            content=[TextContent(text=text)],
            details=details,
            is_error=is_error,
            timestamp=self._tick(),
        )
        self.events += [MessageStartEvent(message=msg), MessageEndEvent(message=msg)]
        self.run_messages.append(msg)
        return self

    def agent_end(self) -> Script:
        self.events.append(AgentEndEvent(messages=list(self.run_messages)))
        return self


def usage(inp: int, out: int, cache_read: int = 0, cost: float = 0.0) -> Usage:
    """A usage record."""
    return Usage(
        input=inp,
        output=out,
        cache_read=cache_read,
        total_tokens=inp + out + cache_read,
        cost=UsageCost(total=cost),
    )


EDIT_DIFF = "\n".join(
    [
        "  1 export const host = 'localhost';",
        "- 2 export const port = 3000;",
        "+ 2 export const port = 8080;",
        "  3 export default { host, port };",
    ]
)


def demo_conversation() -> list[AgentEvent]:
    """A deterministic conversation: a read, an edit with a diff, a bash call, a reply."""
    s = Script().start().user("Read src/config.ts and change the port to 8080.")
    s.assistant().thinking("The user wants the port changed.", " Read first.")
    s.text("I'll read the file first.").tool_call("call_1", "read", {"path": "src/config.ts"})
    s.end("toolUse", usage=usage(1200, 40, 3800, 0.004))
    s.tool_start("call_1", "read", {"path": "src/config.ts"})
    s.tool_end("call_1", "read", "export const host = 'localhost';\nexport const port = 3000;\n")
    s.turn_end().assistant().text("Now the edit.")
    edit_args = {"path": "src/config.ts", "oldText": "3000", "newText": "8080"}
    s.tool_call("call_2", "edit", edit_args)
    s.tool_call("call_3", "bash", {"command": "npm test"})
    s.end("toolUse", usage=usage(1500, 60, 3800, 0.003))
    s.tool_start("call_2", "edit", edit_args).tool_start("call_3", "bash", {"command": "npm test"})
    s.tool_update("call_3", "bash", "> test\n")
    s.tool_end(
        "call_2",
        "edit",
        "Successfully replaced text in src/config.ts.",
        details={"diff": EDIT_DIFF, "firstChangedLine": 2},
    )
    s.tool_end("call_3", "bash", "> test\n1 failing\n\nCommand exited with code 1", is_error=True)
    s.turn_end().assistant()
    s.text(
        "The default port is now **8080**.\n\n", "- `src/config.ts` updated\n", "- tests: 1 failing"
    )
    s.end("stop", usage=usage(2000, 44, 3800, 0.002))
    return s.agent_end().events
