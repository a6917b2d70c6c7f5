"""The offline demo model's summaries: extractive, deterministic, in pi's skeleton.

A compaction, turn-prefix or branch-summary request (see :mod:`.demo_transcript`) gets
a summary built from the conversation it carries: the user's requests become the goal,
the file tools called become progress, the last request the work in progress, the last
reply the context to continue from. Nothing is invented and no network is used, so a
user without a key can try ``/compact`` and tree navigation and judge what they do.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pitui.ai.providers.demo_transcript import Call, SummaryRequest, Transcript

_MAX_GOALS = 5
_MAX_DONE = 12
_CONSTRAINT = re.compile(
    r"\b(must|mustn't|must not|never|always|don't|do not|avoid|prefer|only|keep|without)\b",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?=\S))+[.!?]?")
_FAILED = re.compile(r"(exited with code [1-9]\d*|^error\b|\berror:|not found|denied)", re.I | re.M)
_DONE_VERBS = {
    "read": "Read",
    "write": "Wrote",
    "edit": "Edited",
    "ls": "Listed",
    "find": "Searched for files matching",
    "grep": "Searched for",
    "bash": "Ran",
}


def short(text: str, limit: int = 120) -> str:
    """One line of at most ``limit`` characters (code fences dropped)."""
    flat = " ".join(re.sub(r"`{3,}\w*", " ", text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _unique(items: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for item in items:
        seen.setdefault(item, None)
    return list(seen)


def _target(call: Call) -> str | None:
    args = call.arguments
    for key in ("path", "command", "pattern"):
        value = args.get(key)
        if isinstance(value, str) and value:
            return short(value, 80)
    return None


def _done(call: Call) -> str:
    verb = _DONE_VERBS.get(call.name)
    target = _target(call)
    if verb is None:
        return f"Called `{call.name}`" + (f" on `{target}`" if target else "")
    return f"{verb} `{target}`" if target else verb


def files(calls: Iterable[Call], names: tuple[str, ...]) -> list[str]:
    """Paths given to the named tools, first mention first."""
    paths = (c.arguments.get("path") for c in calls if c.name in names)
    return _unique(p for p in paths if isinstance(p, str) and p)


def _constraints(requests: list[str]) -> list[str]:
    found: list[str] = []
    for request in requests:
        for sentence in _SENTENCE.findall(request):
            if _CONSTRAINT.search(sentence):
                found.append(short(sentence.strip(), 100))
    return _unique(found)


def _failed_calls(transcript: Transcript) -> dict[int, str]:
    """Index of each call whose result reads like a failure → the result's first line."""
    failed: dict[int, str] = {}
    for index, (_, result) in enumerate(zip(transcript.calls, transcript.results, strict=False)):
        if _FAILED.search(result[:500]):
            failed[index] = next((line for line in result.splitlines() if line.strip()), result)
    return failed


def _succeeded(transcript: Transcript) -> list[Call]:
    failed = _failed_calls(transcript)
    return [call for index, call in enumerate(transcript.calls) if index not in failed]


def _blocked(transcript: Transcript) -> list[str]:
    out: list[str] = []
    for index, first in _failed_calls(transcript).items():
        call = transcript.calls[index]
        target = _target(call)
        where = f" `{target}`" if target else ""
        out.append(f"`{call.name}`{where} failed: {short(first, 90)}")
    return out


def _section(title: str, lines: list[str], empty: str = "- (none)") -> str:
    return f"{title}\n" + ("\n".join(lines) if lines else empty)


def _carried(summaries: list[str], title: str, bullet: str = "- ") -> list[str]:
    """The bullets of one section of earlier summaries (kept when merging)."""
    lines: list[str] = []
    pattern = re.compile(re.escape(title) + r"\n(.*?)(?:\n#{2,3} |\Z)", re.DOTALL)
    for summary in summaries:
        for match in pattern.finditer(summary):
            for line in match.group(1).splitlines():
                if line.startswith(bullet) and "(none)" not in line and "(nothing" not in line:
                    lines.append(line)
    return lines


def summary_text(request: SummaryRequest) -> str:
    """The reply to a summarisation request."""
    if request.kind == "turn_prefix":
        return _turn_prefix(request.transcript)
    transcript = request.transcript
    earlier = [*transcript.earlier_summaries]
    if request.previous_summary:
        earlier.append(request.previous_summary)
    requests = transcript.requests
    goals = _unique([*_carried(earlier, "## Goal"), *(f"- {short(r)}" for r in requests)])
    constraints = _carried(earlier, "## Constraints & Preferences")
    constraints = _unique([*constraints, *(f"- {c}" for c in _constraints(requests))])
    if request.focus:
        constraints.append(f"- Focus asked for in this summary: {short(request.focus)}")
    succeeded = _succeeded(transcript)
    done = _unique(
        [*_carried(earlier, "### Done", "- [x] "), *(f"- [x] {_done(c)}" for c in succeeded)]
    )
    # The last request is in progress unless it was answered with nothing failing on
    # the way: work already done is listed under Done only.
    failed_late = any(i >= transcript.last_request_calls for i in _failed_calls(transcript))
    open_request = requests and (not transcript.last_answered or failed_late)
    in_progress = [f"- [ ] {short(requests[-1])}"] if open_request else []
    blocked = [f"- {line}" for line in _blocked(transcript)]
    parts = [
        _section("## Goal", goals[-_MAX_GOALS:], "- (no request in this part of the session)"),
        _section("## Constraints & Preferences", constraints),
        "## Progress\n"
        + _section("### Done", done[-_MAX_DONE:], "- [x] (nothing yet)")
        + "\n\n"
        + _section("### In Progress", in_progress, "- [ ] (nothing)")
        + "\n\n"
        + _section("### Blocked", blocked),
        _section("## Key Decisions", _decisions(transcript)),
        _section("## Next Steps", _next_steps(transcript), "1. Wait for the user's next request"),
    ]
    if request.critical_context or request.kind == "compaction":
        parts.append(_section("## Critical Context", _critical(transcript)))
    return "\n\n".join(parts)


def _decisions(transcript: Transcript) -> list[str]:
    modified = files(_succeeded(transcript), ("write", "edit"))
    out = [f"- **Changed `{path}`**: asked for in the conversation" for path in modified[:5]]
    if transcript.earlier_summaries:
        out.append("- **Continued from an earlier summary**: its goals and progress are kept")
    return out


def _next_steps(transcript: Transcript) -> list[str]:
    steps: list[str] = []
    if transcript.requests:
        steps.append(f"Continue with: {short(transcript.requests[-1], 100)}")
    if _blocked(transcript):
        steps.append("Resolve the blocked items above")
    return [f"{n}. {step}" for n, step in enumerate(steps, 1)]


def _critical(transcript: Transcript) -> list[str]:
    lines: list[str] = []
    calls = _succeeded(transcript)
    read, modified = files(calls, ("read",)), files(calls, ("write", "edit"))
    if read:
        lines.append("- Files read: " + ", ".join(f"`{p}`" for p in read[:10]))
    if modified:
        lines.append("- Files modified: " + ", ".join(f"`{p}`" for p in modified[:10]))
    if transcript.replies:
        lines.append(f"- Last reply: {short(transcript.replies[-1], 200)}")
    return lines


def _turn_prefix(transcript: Transcript) -> str:
    request = transcript.requests[0] if transcript.requests else "(not in the kept part)"
    early = [f"- {_done(c)}" for c in transcript.calls]
    context = [*_critical(transcript)]
    return "\n\n".join(
        [
            f"## Original Request\n{short(request, 300)}",
            _section("## Early Progress", early),
            _section("## Context for Suffix", context),
        ]
    )
