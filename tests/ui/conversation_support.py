"""Sessions for conversation tests: the views fixture, and long ones written by the store."""

from __future__ import annotations

from pathlib import Path

from pitui.ai.types import AssistantMessage, TextContent, Usage, UserMessage
from pitui.core.agent_session import AgentSession
from pitui.core.session.store import SessionStore
from pitui.core.session_setup import SessionOptions, create_agent_session
from tests.core.test_context_report import VIEWS, copy_with_cwd
from tests.ui.command_support import make_registry


def reply(text: str) -> AssistantMessage:
    """A finished assistant reply."""
    return AssistantMessage(
        content=[TextContent(text=text)],
        api="anthropic-messages",
        provider="anthropic",
        model="claude-sonnet-4-5",
        usage=Usage(input=10, output=5, total_tokens=15),
    )


async def long_session_file(tmp: Path, turns: int, special: dict[int, str] | None = None) -> Path:
    """A session of ``turns`` user/assistant pairs; ``special`` replaces some user texts."""
    store = SessionStore.create(tmp, tmp / "sessions")
    for turn in range(turns):
        text = (special or {}).get(turn, f"question {turn}")
        await store.append_message(UserMessage(content=[TextContent(text=text)]))
        await store.append_message(reply(f"answer {turn}\n\n```sh\necho {turn}\n```"))
    await store.close()
    assert store.path is not None
    return store.path


async def session_on(tmp: Path, path: Path | None = None) -> AgentSession:
    """An AgentSession resumed on ``path`` (default: the views fixture, cwd ``tmp``)."""
    path = path or copy_with_cwd(VIEWS, tmp / "views.jsonl", tmp)
    options = SessionOptions(cwd=tmp, session_file=path, registry=make_registry())
    return await create_agent_session(options)
