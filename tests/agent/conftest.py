"""Fixtures of the agent tests: an agent wired to a scripted model, recording its events."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from pitui.agent.agent import Agent
from pitui.agent.events import AgentEvent
from pitui.agent.state import AgentState
from pitui.agent.tool import AgentTool
from tests.agent.scripted import MODEL, Reply, ScriptedModel, SeqTool, WorkTool, describe


@dataclass
class Harness:
    agent: Agent
    model: ScriptedModel
    work: WorkTool
    seq: SeqTool
    events: list[AgentEvent] = field(default_factory=list)

    def names(self, *, updates: bool = True) -> list[str]:
        """The recorded events as compact names (optionally without tool updates)."""
        out = [describe(e) for e in self.events]
        return out if updates else [n for n in out if not n.startswith("tool_execution_update")]

    def clear(self) -> None:
        self.events.clear()


HarnessFactory = Callable[..., Harness]


@pytest.fixture
def harness() -> HarnessFactory:
    """``harness(replies, **agent_kwargs)``: an agent with the work/seq tools."""

    def make(replies: list[Reply] | None = None, **kwargs: Any) -> Harness:
        model = ScriptedModel(replies)
        work, seq = WorkTool(), SeqTool()
        tools: list[AgentTool] = [work, seq]
        state = AgentState(system_prompt="be brief", model=MODEL, tools=tools)
        agent = Agent(initial_state=state, stream_fn=model, **kwargs)
        h = Harness(agent, model, work, seq)
        agent.subscribe(h.events.append)
        return h

    return make
