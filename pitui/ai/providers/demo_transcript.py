"""Reading a summarisation request the way the offline demo model needs it.

pi's summarisation requests (built in :mod:`pitui.core.compaction.summarize` and
``branch``) have one user message: ``<conversation>`` with the serialised transcript
(``[User]: …``, ``[Assistant]: …``, ``[Assistant tool calls]: read(path="a")``,
``[Tool result]: …``), an optional ``<previous-summary>``, then the instructions (with
``Additional focus: …`` for custom instructions). This module recognises such a request
and parses it; :mod:`.demo_summary` writes the reply. The ai layer cannot import the
core's prompt texts, so the markers below are pinned to them by a test.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from pitui.ai.types import Context, TextContent, UserMessage

SYSTEM_MARKER = "context summarization assistant"
"""In the system prompt of every summarisation request."""
TURN_PREFIX_MARKER = "## Original Request"
"""Only the turn-prefix instructions ask for this section."""
BRANCH_MARKER = "summary of this conversation branch"
"""Only the default branch-summary instructions say this."""
CRITICAL_CONTEXT_MARKER = "## Critical Context"
"""Compaction instructions ask for this section; branch summaries do not."""
FOCUS_MARKER = "\n\nAdditional focus: "
"""Custom instructions are appended after this."""

SummaryKind = Literal["compaction", "turn_prefix", "branch", "custom"]

_CONVERSATION = re.compile(r"<conversation>\n(.*?)\n</conversation>", re.DOTALL)
_PREVIOUS = re.compile(r"<previous-summary>\n(.*?)\n</previous-summary>", re.DOTALL)
_PART = re.compile(
    r"(?:^|\n\n)\[(User|Assistant thinking|Assistant|Assistant tool calls|Tool result)\]: "
)
_SUMMARY_TAGS = re.compile(r"<summary>\n?(.*?)\n?</summary>", re.DOTALL)
_CALL_NAME = re.compile(r"\s*([A-Za-z_][\w.-]*)\(")
_ARG_NAME = re.compile(r"\s*([^=\s(),;]+)=")


@dataclass(frozen=True, slots=True)
class Call:
    """A tool call as serialised: its name and arguments."""

    name: str
    arguments: dict[str, Any]


@dataclass
class Transcript:
    """The serialised conversation, taken apart."""

    requests: list[str] = field(default_factory=list)
    """The user's messages (summaries carried over from earlier excluded)."""
    earlier_summaries: list[str] = field(default_factory=list)
    """Summaries the conversation starts from (a compaction or branch summary)."""
    replies: list[str] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    results: list[str] = field(default_factory=list)
    """Tool results, in order (the n-th answers the n-th call)."""
    last_answered: bool = False
    """The last request got a text reply after it."""
    last_request_calls: int = 0
    """Index in ``calls`` of the first call made for the last request."""


@dataclass
class SummaryRequest:
    """A recognised summarisation request."""

    kind: SummaryKind
    transcript: Transcript
    previous_summary: str | None = None
    focus: str | None = None
    """Custom instructions (``Additional focus``, or the whole text that replaced pi's)."""
    critical_context: bool = False


def _prompt_text(context: Context) -> str | None:
    if len(context.messages) != 1 or not isinstance(context.messages[0], UserMessage):
        return None
    content = context.messages[0].content
    if isinstance(content, str):
        return content
    return "".join(b.text for b in content if isinstance(b, TextContent))


def recognise(context: Context) -> SummaryRequest | None:
    """The summarisation request in ``context``; None for an ordinary conversation."""
    if SYSTEM_MARKER not in (context.system_prompt or ""):
        return None
    text = _prompt_text(context)
    found = None if text is None else _CONVERSATION.search(text)
    if text is None or found is None:
        return None
    previous = _PREVIOUS.search(text)
    instructions = text[(previous or found).end() :].strip()
    focus: str | None = None
    head, marker, tail = instructions.partition(FOCUS_MARKER.strip())
    if marker:
        instructions, focus = head.strip(), tail.strip() or None
    kind: SummaryKind
    if TURN_PREFIX_MARKER in instructions:
        kind = "turn_prefix"
    elif BRANCH_MARKER in instructions:
        kind = "branch"
    elif CRITICAL_CONTEXT_MARKER in instructions:
        kind = "compaction"
    else:  # the user's own instructions replaced pi's (branch summary, custom prompt)
        kind, focus = "custom", instructions or focus
    return SummaryRequest(
        kind=kind,
        transcript=parse_transcript(found.group(1)),
        previous_summary=previous.group(1) if previous else None,
        focus=focus,
        critical_context=CRITICAL_CONTEXT_MARKER in instructions,
    )


def parse_transcript(text: str) -> Transcript:
    """Take apart pi's serialised conversation (unknown text is ignored, never raises)."""
    transcript = Transcript()
    marks = list(_PART.finditer(text))
    for index, mark in enumerate(marks):
        end = marks[index + 1].start() if index + 1 < len(marks) else len(text)
        body = text[mark.end() : end]
        role = mark.group(1)
        if role == "User":
            summaries = _SUMMARY_TAGS.findall(body)
            if summaries:
                transcript.earlier_summaries.extend(s.strip() for s in summaries)
            elif body.strip():
                transcript.requests.append(body.strip())
                transcript.last_answered = False
                transcript.last_request_calls = len(transcript.calls)
        elif role == "Assistant" and body.strip():
            transcript.replies.append(body.strip())
            transcript.last_answered = True
        elif role == "Assistant tool calls":
            transcript.calls.extend(parse_calls(body))
        elif role == "Tool result":
            transcript.results.append(body)
    return transcript


def parse_calls(text: str) -> list[Call]:
    """``read(path="a", offset=1); bash(command="ls")`` → calls (stops at what it cannot
    read: the text comes from a model)."""
    decoder = json.JSONDecoder()
    calls: list[Call] = []
    position = 0
    while (name := _CALL_NAME.match(text, position)) is not None:
        position = name.end()
        arguments: dict[str, Any] = {}
        while (arg := _ARG_NAME.match(text, position)) is not None:
            try:
                value, position = decoder.raw_decode(text, arg.end())
            except ValueError:
                return calls
            arguments[arg.group(1)] = value
            if text.startswith(", ", position):
                position += 2
        if not text.startswith(")", position):
            return calls
        calls.append(Call(name.group(1), arguments))
        position += 1
        if text.startswith("; ", position):
            position += 2
    return calls
