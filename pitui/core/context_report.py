"""What the model receives on the next request, and what it does not (PI_SPEC §4).

Computed by the request's own code: the transcript goes through
:meth:`pitui.agent.agent.Agent.request_context` (transform_context → convert_to_llm, the
system prompt and tool definitions of a real call). The session path then says where each
message came from and why everything else stays out. ``pitui session context`` prints
this report; the TUI's context inspector shows it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pitui.agent.loop import RequestTrace
from pitui.agent.messages import AgentMessage
from pitui.ai.transform import missing_tool_results
from pitui.ai.types import AssistantMessage, Message
from pitui.core.compaction.jsjson import js_stringify, utf16_len
from pitui.core.compaction.tokens import estimate_tokens
from pitui.core.context_unsent import Compacted, NotSent, not_sent_entries, not_sent_messages
from pitui.core.messages import CustomMessage
from pitui.core.resources.skill_prompt import format_skills_for_prompt
from pitui.core.session.context import UNSET, LeafArg, ModelRef, SessionContext
from pitui.core.session.store import SessionStore
from pitui.core.session.table import KeptJson, plain_json
from pitui.errors import SessionError

if TYPE_CHECKING:
    from pitui.core.agent_session import AgentSession

__all__ = [
    "Compacted",
    "ContextReport",
    "CustomSwitches",
    "NotSent",
    "SentMessage",
    "ToolReport",
    "build_context_report",
    "report_for_file",
    "tokens_of_text",
]

FAILED_REPLY_NOTE = "failed reply (error or aborted): every provider leaves it out"
SYNTHETIC_NOTE = "synthesized: the tool call has no result in the file, so one is inserted"


def tokens_of_text(text: str) -> int:
    """chars/4 rounded up, in JavaScript string length (pi's estimate, §6.2)."""
    return -(-utf16_len(text) // 4)


@dataclass(frozen=True, slots=True)
class ToolReport:
    """One tool definition as the model receives it."""

    name: str
    definition: dict[str, Any]
    """``{name, description, parameters}``: the definition the request carries."""
    tokens: int
    """The whole definition's size."""
    schema_tokens: int
    """The size of its JSON schema (``parameters``) alone."""


@dataclass(frozen=True, slots=True)
class SentMessage:
    """One message of the request, with where it came from."""

    message: Message
    source: int | None
    """Index of the transcript message it was made from (None: not attributable)."""
    entry_id: str | None
    """The session entry it stands for (None: not in the file, or not attributable)."""
    source_role: str | None
    """Role of the transcript message it was made from (``bashExecution``, ``custom``…)."""
    tokens: int
    note: str | None = None
    synthetic: bool = False
    """Not in the transcript: added when the request is built (``No result provided``)."""


@dataclass(frozen=True, slots=True)
class CustomSwitches:
    """A custom message's two independent switches."""

    entry_id: str | None
    custom_type: str
    display: bool
    """Shown in the conversation. ``False`` hides it from the user only."""
    sent: bool
    """Reaches the model (only ``excludeFromContext`` keeps it out)."""


@dataclass
class ContextReport:
    """The next request as the model receives it, and what stays out of it."""

    leaf_id: str | None
    entry_count: int
    model: ModelRef | None
    """The model in effect at the leaf, as the file records it."""
    thinking_level: str
    request_model: str | None
    """``provider/id`` of the model the next request goes to."""
    context_window: int | None
    system_prompt: str
    tools: list[ToolReport]
    transcript: list[AgentMessage]
    """The agent messages the request was built from, in order."""
    transcript_entry_ids: list[str | None]
    messages: list[SentMessage]
    not_sent: list[NotSent]
    """What stays out, an entry a row; what a compaction replaced is :attr:`compacted`."""
    custom: list[CustomSwitches]
    compacted: Compacted | None = None
    """What the compaction in effect replaced on this branch, as one row (None: none)."""
    message_json: dict[int, KeptJson] = field(default_factory=dict)
    """The JSON loaded messages were read from (by ``id``), to print them as read."""
    skills_block: str = ""
    """The part of the system prompt that lists the skills ("" when it lists none)."""
    skill_names: list[str] = field(default_factory=list)
    """The skills that block advertises, in order."""
    store: SessionStore | None = None
    """The session store it was read from."""

    @property
    def skills_tokens(self) -> int:
        """The skills block's size (part of :attr:`system_tokens`)."""
        return tokens_of_text(self.skills_block)

    @property
    def system_tokens(self) -> int:
        """The system prompt's size."""
        return tokens_of_text(self.system_prompt)

    @property
    def total_tokens(self) -> int:
        """System prompt + tool definitions + every message."""
        tools = sum(tool.tokens for tool in self.tools)
        return self.system_tokens + tools + sum(m.tokens for m in self.messages)

    def share(self, tokens: int) -> float | None:
        """``tokens`` as a percentage of the context window (None when unknown)."""
        if not self.context_window:
            return None
        return tokens * 100 / self.context_window

    def to_json(self, *, lazy_rows: bool = False) -> dict[str, Any]:
        """The report as pi-style JSON (``pitui session context --json``).

        With ``lazy_rows``, ``notSent`` is the list of :class:`NotSent` rows themselves
        (msgspec structs, which ``msgspec.json.encode`` writes as these same objects): a
        writer encoding it a chunk at a time never holds 100k dicts; and
        ``agentMessages`` and ``llmMessages`` are iterators, whose messages read from the
        file are their JSON encoded already (a :class:`~pitui.core.session.table.JsonSlice`,
        which orjson writes as it is with ``default=json_fragment``).
        """
        dump = self._dump if lazy_rows else self._dump_plain
        agent = map(dump, self.transcript)
        llm = (self._dump_sent(m, dump) for m in self.messages if not m.synthetic)
        return {
            "leafId": self.leaf_id,
            "entryCount": self.entry_count,
            "model": self.model.to_json_dict() if self.model else None,
            "thinkingLevel": self.thinking_level,
            "agentMessages": agent if lazy_rows else list(agent),
            # pi's convertToLlm output; what the request adds besides is under "messages".
            "llmMessages": llm if lazy_rows else list(llm),
            "systemPrompt": {"text": self.system_prompt, "tokens": self.system_tokens},
            "skills": {
                "text": self.skills_block,
                "tokens": self.skills_tokens,
                "names": self.skill_names,
            },
            "tools": [self._tool_json(t) for t in self.tools],
            "messages": [self._message_json(m) for m in self.messages],
            "notSent": self.not_sent if lazy_rows else [n.to_json() for n in self.not_sent],
            "compacted": self.compacted.to_json() if self.compacted else None,
            "customMessages": [
                {
                    "entryId": c.entry_id,
                    "customType": c.custom_type,
                    "display": c.display,
                    "sentToModel": c.sent,
                }
                for c in self.custom
            ],
            "total": {
                "tokens": self.total_tokens,
                "contextWindow": self.context_window,
                "share": _rounded(self.share(self.total_tokens)),
                "requestModel": self.request_model,
            },
        }

    def _dump(self, message: AgentMessage) -> Any:
        # A loaded message dumps to exactly the JSON it was read from (the round-trip
        # tests prove it), so that JSON is used as is; built ones are dumped.
        return self.message_json.get(id(message)) or message.to_json_dict()

    def _dump_plain(self, message: AgentMessage) -> Any:
        return plain_json(self._dump(message))

    def _dump_sent(self, sent: SentMessage, dump: Callable[[AgentMessage], Any]) -> Any:
        source = self._source_of(sent)
        if source is not None and (source is sent.message or source == sent.message):
            return dump(source)  # an unchanged copy of a loaded message
        return sent.message.to_json_dict()

    def _source_of(self, sent: SentMessage) -> AgentMessage | None:
        return None if sent.source is None else self.transcript[sent.source]

    def _tool_json(self, tool: ToolReport) -> dict[str, Any]:
        return {
            "name": tool.name,
            "tokens": tool.tokens,
            "schemaTokens": tool.schema_tokens,
            "share": _rounded(self.share(tool.tokens)),
            "definition": tool.definition,
        }

    def _message_json(self, sent: SentMessage) -> dict[str, Any]:
        return {
            "role": sent.message.role,
            "sourceRole": sent.source_role,
            "entryId": sent.entry_id,
            "tokens": sent.tokens,
            "share": _rounded(self.share(sent.tokens)),
            "note": sent.note,
            "synthetic": sent.synthetic,
            **({"message": sent.message.to_json_dict()} if sent.synthetic else {}),
        }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


# --------------------------------------------------------------------------- building


async def build_context_report(
    session: AgentSession,
    leaf: LeafArg = UNSET,
    *,
    keep_json: bool = False,
    context: SessionContext | None = None,
) -> ContextReport:
    """The report of the request ``session`` would send next.

    At the current leaf the transcript is the agent's own; at another ``leaf`` it is the
    session context there (what the model would see after moving to it). ``context``:
    the store's context at ``leaf``, if built already (with ``keep_json`` as asked).
    """
    store = session.store
    if context is None:
        context = store.build_context(leaf, keep_json=keep_json)
    at_leaf = leaf is UNSET or leaf == store.get_leaf_id()
    transcript = session.messages if at_leaf else context.messages
    entry_ids = align_entry_ids(transcript, context)
    trace = RequestTrace()
    request = await session.agent.request_context(transcript, trace)
    messages = [
        _sent(message, source, transcript, entry_ids)
        for message, source in zip(request.messages, trace.sources, strict=True)
    ]
    for index, inserted in reversed(missing_tool_results(request.messages, at_end=True)):
        # Stamped as the message before it, not "now": the report is the same each time.
        stamp = request.messages[index - 1].timestamp if index else inserted.timestamp
        result = inserted.model_copy(update={"timestamp": stamp})
        tokens = estimate_tokens(result)
        messages.insert(index, SentMessage(result, None, None, None, tokens, SYNTHETIC_NOTE, True))
    sent_sources = {source for source in trace.sources if source is not None}
    listed, compacted = not_sent_entries(store.table, context, set(entry_ids))
    model = session.model
    system_prompt = request.system_prompt or ""
    skills_block, skill_names = _skills_block(session, system_prompt)
    return ContextReport(
        leaf_id=context.leaf_id,
        entry_count=store.entry_count(),
        model=context.model,
        thinking_level=context.thinking_level,
        request_model=f"{model.provider}/{model.id}" if model else None,
        context_window=model.context_window if model else None,
        system_prompt=system_prompt,
        tools=[_tool_report(tool.to_json_dict()) for tool in request.tools or []],
        transcript=list(transcript),
        transcript_entry_ids=entry_ids,
        messages=messages,
        not_sent=[*not_sent_messages(transcript, entry_ids, sent_sources), *listed],
        custom=[
            CustomSwitches(entry_id, m.custom_type, m.display, bool(index in sent_sources))
            for index, (m, entry_id) in enumerate(zip(transcript, entry_ids, strict=True))
            if isinstance(m, CustomMessage)
        ],
        compacted=compacted,
        message_json=context.message_json,
        skills_block=skills_block,
        skill_names=skill_names,
        store=store,
    )


def _skills_block(session: AgentSession, system_prompt: str) -> tuple[str, list[str]]:
    """The skills block as the prompt carries it (none when a custom prompt dropped it)."""
    visible = [s for s in session.resources.skills if not s.disable_model_invocation]
    for reader in ("read", "bash"):
        block = format_skills_for_prompt(visible, reader).strip()
        if block and block in system_prompt:
            return block, [s.name for s in visible]
    return "", []


def align_entry_ids(transcript: list[AgentMessage], context: SessionContext) -> list[str | None]:
    """The entry each transcript message stands for, matched in order against ``context``.

    The agent's transcript is the context at the leaf, give or take a failed reply taken
    out for a retry, so a walk of both lists in step matches them.
    """
    if transcript is context.messages:
        return list(context.entry_ids)
    found: list[str | None] = []
    candidates, ids = context.messages, context.entry_ids
    position = 0
    for message in transcript:
        match = next(
            (
                i
                for i in range(position, len(candidates))
                if candidates[i] is message or candidates[i] == message
            ),
            None,
        )
        if match is None:
            found.append(None)
            continue
        found.append(ids[match])
        position = match + 1
    return found


def _sent(
    message: Message,
    source: int | None,
    transcript: list[AgentMessage],
    entry_ids: list[str | None],
) -> SentMessage:
    origin = transcript[source] if source is not None else None
    note = None
    if isinstance(message, AssistantMessage) and message.stop_reason in ("error", "aborted"):
        note = FAILED_REPLY_NOTE
    return SentMessage(
        message=message,
        source=source,
        entry_id=entry_ids[source] if source is not None else None,
        source_role=origin.role if origin is not None else None,
        tokens=estimate_tokens(message),
        note=note,
    )


def _tool_report(definition: dict[str, Any]) -> ToolReport:
    return ToolReport(
        name=str(definition.get("name", "")),
        definition=definition,
        tokens=tokens_of_text(js_stringify(definition)),
        schema_tokens=tokens_of_text(js_stringify(definition.get("parameters", {}))),
    )


async def report_for_file(
    path: Path, leaf: LeafArg = UNSET, *, keep_json: bool = False
) -> ContextReport:
    """The report of a session file, opened read-only, as a session resumed on it would
    send it: its cwd (when that directory exists, else this process's), the settings,
    tools and system prompt there.

    Raises:
        SessionError: The file cannot be read, or ``leaf`` is not one of its entries.
    """
    from pitui.core.session_setup import (
        SessionOptions,
        build_context_off_loop,
        create_agent_session,
    )

    store = await SessionStore.open(path, read_only=True)
    if isinstance(leaf, str) and store.get_entry(leaf) is None:
        raise SessionError(f"Entry {leaf} not found")
    cwd = Path(store.cwd)
    if not await asyncio.to_thread(cwd.is_dir):
        cwd = Path.cwd()
    # At the file's leaf the session's transcript and the report's are one context: built
    # (and validated) once.
    at_leaf = leaf is UNSET or leaf == store.get_leaf_id()
    context = (
        await build_context_off_loop(store, keep_json=keep_json, one_shot=True) if at_leaf else None
    )
    options = SessionOptions(cwd=cwd, store=store, context=context)
    session = await create_agent_session(options)
    try:
        return await build_context_report(session, leaf, keep_json=keep_json, context=context)
    finally:
        await session.close()
