"""What the offline demo model says: a deterministic script over the conversation.

A summarisation request (compaction, branch summary) gets an extractive summary
(:mod:`.demo_summary`). Otherwise the latest user message is matched against a few
request shapes ("read FILE", "ls DIR", "run CMD", "change X to Y in FILE",
"write FILE: text", "find PATTERN", "grep PATTERN"); a match becomes a call of the
built-in tool with pi's parameter names. When the context ends with tool results the
reply summarises them. Anything else gets a Markdown overview. Same context → same reply.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pitui.ai.providers.demo_summary import summary_text
from pitui.ai.providers.demo_transcript import SummaryRequest, recognise
from pitui.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

DEMO_NOTICE = "offline demo model"


@dataclass(frozen=True, slots=True)
class PlannedCall:
    """A tool call the demo model will make."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class DemoReply:
    """One scripted reply: a thought, a text, and optionally a tool call."""

    thinking: str
    text: str
    calls: list[PlannedCall] = field(default_factory=list)


def plan_reply(context: Context) -> DemoReply:
    """The demo model's reply to ``context``."""
    summary = recognise(context)
    if summary is not None:
        return _summary_reply(summary)
    messages = context.messages
    if messages and isinstance(messages[-1], ToolResultMessage):
        return _answer_results(messages)
    user = next((m for m in reversed(messages) if isinstance(m, UserMessage)), None)
    text, images = _user_text(user)
    tools = {tool.name for tool in context.tools or []}
    request = _match_request(text)
    if request is not None:
        return _call_reply(request, tools)
    return _overview(text, images)


def _summary_reply(request: SummaryRequest) -> DemoReply:
    transcript = request.transcript
    what = {"turn_prefix": "the start of a long turn", "branch": "an abandoned branch"}
    thinking = (
        f"A summarisation request ({what.get(request.kind, 'a compaction')}): "
        f"{len(transcript.requests)} user request(s), {len(transcript.calls)} tool call(s). "
        f"I'm the {DEMO_NOTICE}, so I extract rather than write."
    )
    return DemoReply(thinking=thinking, text=summary_text(request))


# --------------------------------------------------------------------------- requests

_PREFIX = r"^\s*(?:(?:please|can you|could you|now)[,\s]+)?"
_END = r"[\s.!?]*$"
_FLAGS = re.IGNORECASE | re.DOTALL


def _pattern(body: str) -> re.Pattern[str]:
    return re.compile(_PREFIX + body + _END, _FLAGS)


_WRITE = re.compile(_PREFIX + r"write\s+(?P<path>[^\s:]+):[ \t]?(?P<content>.*)$", _FLAGS)
_CHANGE = _pattern(r"change\s+(?P<old>.+?)\s+to\s+(?P<new>.+?)\s+in\s+(?P<path>\S+?)")
_READ = _pattern(r"(?:read|cat)\s+(?:the\s+file\s+)?(?P<path>\S+?)")
_LS = _pattern(r"(?:list(?:\s+the)?\s+files(?:\s+in\s+(?P<dir>\S+?))?|ls(?:\s+(?P<dir2>\S+?))?)")
_RUN = re.compile(_PREFIX + r"(?:run\s+|\$\s*)(?P<cmd>.+?)\s*$", _FLAGS)
_FIND = _pattern(r"find\s+(?P<pattern>.+?)")
_GREP = _pattern(r"grep\s+(?:for\s+)?(?P<pattern>.+?)")


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'`":
        return text[1:-1]
    return text


def _match_request(text: str) -> PlannedCall | None:
    """The tool call the user's message asks for, if it has one of the scripted shapes."""
    if m := _WRITE.match(text):
        return PlannedCall("write", {"path": _unquote(m["path"]), "content": m["content"]})
    if m := _CHANGE.match(text):
        args = {"path": _unquote(m["path"]), "oldText": _unquote(m["old"])}
        return PlannedCall("edit", {**args, "newText": _unquote(m["new"])})
    if m := _READ.match(text):
        return PlannedCall("read", {"path": _unquote(m["path"])})
    if m := _LS.match(text):
        target = m["dir"] or m["dir2"]
        return PlannedCall("ls", {"path": _unquote(target)} if target else {})
    if m := _RUN.match(text):
        return PlannedCall("bash", {"command": _unquote(m["cmd"])})
    if m := _FIND.match(text):
        return PlannedCall("find", {"pattern": _unquote(m["pattern"])})
    if m := _GREP.match(text):
        return PlannedCall("grep", {"pattern": _unquote(m["pattern"])})
    return None


def _as_bash(call: PlannedCall) -> PlannedCall | None:
    """The same request through ``bash``, for tools that are not enabled."""
    args = call.arguments
    quote = shlex.quote
    commands: dict[str, Callable[[], str]] = {
        "ls": lambda: f"ls -a {quote(args['path'])}" if "path" in args else "ls -a",
        "find": lambda: f"find . -name {quote(args['pattern'])}",
        "grep": lambda: f"grep -rn {quote(args['pattern'])} .",
        "read": lambda: f"cat {quote(args['path'])}",
    }
    build = commands.get(call.name)
    return PlannedCall("bash", {"command": build()}) if build else None


def _call_reply(call: PlannedCall, tools: set[str]) -> DemoReply:
    planned: PlannedCall | None = call
    if call.name not in tools:
        planned = _as_bash(call) if "bash" in tools else None
    if planned is None:
        return DemoReply(
            thinking=f"The user asked for the `{call.name}` tool, but it is not enabled here.",
            text=(
                f"I'm the {DEMO_NOTICE}. I would use the `{call.name}` tool for that, but it is "
                "not enabled in this session. Enable it with `--tools` and ask again."
            ),
        )
    summary = _describe(planned)
    return DemoReply(
        thinking=(
            f"The user asked me to {summary}. I'm the {DEMO_NOTICE} and follow a fixed script: "
            f"call `{planned.name}` with {_args_text(planned.arguments)}, then report the result."
        ),
        text=f"*The {DEMO_NOTICE} will {summary} with the `{planned.name}` tool.*",
        calls=[planned],
    )


def _describe(call: PlannedCall) -> str:
    args = call.arguments
    descriptions: dict[str, Callable[[], str]] = {
        "read": lambda: f"read `{args['path']}`",
        "ls": lambda: f"list the files in `{args.get('path', '.')}`",
        "bash": lambda: f"run `{args['command']}`",
        "edit": lambda: f"change `{args['oldText']}` to `{args['newText']}` in `{args['path']}`",
        "write": lambda: f"write `{args['path']}`",
        "find": lambda: f"find files matching `{args['pattern']}`",
        "grep": lambda: f"search for `{args['pattern']}`",
    }
    return descriptions[call.name]()


def _args_text(arguments: dict[str, Any]) -> str:
    if not arguments:
        return "no arguments"
    return ", ".join(f"{key}={_short(str(value))!r}" for key, value in arguments.items())


# --------------------------------------------------------------------------- tool results


def _answer_results(messages: list[Any]) -> DemoReply:
    results: list[ToolResultMessage] = []
    for message in reversed(messages):
        if not isinstance(message, ToolResultMessage):
            break
        results.insert(0, message)
    calls = {
        block.id: block
        for message in messages
        if isinstance(message, AssistantMessage)
        for block in message.content
        if isinstance(block, ToolCall)
    }
    parts = [f"Here is what came back (I'm the {DEMO_NOTICE}, so this is a scripted summary)."]
    parts += [_summarise(result, calls.get(result.tool_call_id)) for result in results]
    failed = sum(1 for r in results if r.is_error)
    thinking = (
        f"{len(results)} tool result(s) arrived, {failed} with an error. I'll summarise them."
    )
    return DemoReply(thinking=thinking, text="\n\n".join(parts))


def _summarise(result: ToolResultMessage, call: ToolCall | None) -> str:
    text = "\n".join(b.text for b in result.content if isinstance(b, TextContent))
    images = sum(1 for b in result.content if isinstance(b, ImageContent))
    args = call.arguments if call else {}
    note = f"\n\n(It also returned {images} image(s).)" if images else ""
    if result.is_error:
        return _error_summary(result.tool_name, args, text) + note
    # A trailing newline ends the last line; it does not start another.
    lines = text.removesuffix("\n").split("\n")
    name = result.tool_name
    if name == "read":
        head = "\n".join(lines[:10])
        return (
            f"`{args.get('path', 'the file')}` has {len(lines)} line(s); "
            f"the first {min(10, len(lines))}:\n\n{fence(head)}{note}"
        )
    if name == "bash":
        tail = "\n".join(lines[-20:])
        return f"`{_short(str(args.get('command', '')))}` exited with code 0:\n\n{fence(tail)}"
    if name in ("ls", "find", "grep"):
        return f"`{name}` returned {len(lines)} line(s):\n\n{fence(chr(10).join(lines[:20]))}"
    if name == "edit":
        return f"I changed `{args.get('path', 'the file')}`: {_short(text)}"
    if name == "write":
        return f"I wrote `{args.get('path', 'the file')}`: {_short(text)}"
    return f"`{name}` returned:\n\n{fence(chr(10).join(lines[:20]))}{note}"


def _error_summary(name: str, args: dict[str, Any], text: str) -> str:
    if name == "bash":
        code = re.search(r"Command exited with code (\d+)\s*$", text)
        if code:
            output = text[: code.start()].rstrip()
            shown = "\n".join(output.split("\n")[-20:])
            return (
                f"`{_short(str(args.get('command', '')))}` exited with code {code[1]}:\n\n"
                f"{fence(shown or '(no output)')}"
            )
    return f"The `{name}` call failed:\n\n{fence(chr(10).join(text.split(chr(10))[:20]))}"


# --------------------------------------------------------------------------- overview


def _user_text(message: UserMessage | None) -> tuple[str, int]:
    if message is None:
        return "", 0
    if isinstance(message.content, str):
        return message.content, 0
    text = "\n".join(b.text for b in message.content if isinstance(b, TextContent))
    return text, sum(1 for b in message.content if isinstance(b, ImageContent))


def _overview(text: str, images: int) -> DemoReply:
    said = _short(text.strip().split("\n")[0]) if text.strip() else ""
    echo = f"You said: *{said}*" if said else "Hello!"
    if images:
        echo += f" You attached {images} image(s); I can't look at images."
    body = f"""# Offline demo model

I'm pitui's **{DEMO_NOTICE}**: a scripted stand-in that works without network access \
or an API key. {echo}

## What I can do
- `read FILE`: show the first lines of a file
- `list files` or `ls DIR`: list a directory
- `run CMD` or `$ CMD`: run a shell command and report its exit code
- `change X to Y in FILE`: edit a file
- `write FILE: text`: create or overwrite a file
- `find PATTERN` and `grep PATTERN`: search the project

## Using a real model
Set a key and pick a model:

```bash
export ANTHROPIC_API_KEY=sk-ant-...
pitui --model anthropic/claude-sonnet-4-6
```

Providers in `models.json` work too, and a local Ollama is found automatically."""
    thinking = (
        f"The user wrote {said!r}. " if said else "There is no user text. "
    ) + "No scripted tool request matched, so I'll explain what the demo can do."
    return DemoReply(thinking=thinking, text=body)


# --------------------------------------------------------------------------- helpers


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def fence(text: str) -> str:
    """``text`` in a Markdown code fence longer than any backtick run inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    marks = "`" * max(3, longest + 1)
    return f"{marks}\n{text}\n{marks}"
