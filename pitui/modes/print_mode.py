"""``pitui -p`` and ``--mode json``: run prompts to completion without a UI (PI_SPEC §9.10).

Print mode writes each text block of the final reply on its own line; a reply that ended
in an error or an abort goes to stderr with exit code 1. JSON mode writes the session
header, then every session event as one JSON line with pi's field names. Nobody can
answer a permission request here, so the default policy is ``workspace``. What reaches
the terminal is inert: escape and control sequences from the model or a tool (an OSC 52
clipboard write, a title change) are removed from text and escaped in JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from pitui.agent.events import MessageEndEvent
from pitui.ai.types import AssistantMessage, TextContent
from pitui.core.sanitize import inert, json_inert
from pitui.core.session_events import AutoCompactionEndEvent, SessionEvent
from pitui.core.session_setup import SessionOptions, create_agent_session
from pitui.core.session_setup import options_from_args as session_options
from pitui.errors import PituiError


def run(args: argparse.Namespace) -> int:
    """Entry point from :mod:`pitui.cli`."""
    prompts = list(args.messages)
    if not sys.stdin.isatty():
        piped = sys.stdin.read()
        if piped.strip():
            prompts.insert(0, piped)
    if not prompts:
        print("pitui: no prompt given (pass it as an argument or on stdin)", file=sys.stderr)
        return 2
    options = options_from_args(args)
    try:
        return asyncio.run(run_prompts(options, prompts, json_mode=args.mode == "json"))
    except PituiError as exc:
        print(f"pitui: {inert(str(exc))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, as a Unix filter should.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


def options_from_args(args: argparse.Namespace, cwd: Path | None = None) -> SessionOptions:
    """Session options for print/JSON mode: nobody can approve, so ``workspace`` by default."""
    return session_options(args, cwd or Path.cwd(), default_approve="workspace")


async def run_prompts(
    options: SessionOptions,
    prompts: list[str],
    *,
    json_mode: bool = False,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Run ``prompts`` in order in one session; returns the exit code."""
    stdout = out or sys.stdout
    stderr = err or sys.stderr
    session = await create_agent_session(options)
    for warning in options.warnings:
        print(f"pitui: {inert(warning)}", file=stderr)
    if json_mode:
        _write_json(stdout, session.store.header.to_json_dict())
        session.subscribe(lambda event: _write_event(stdout, event))
    outcome = _Outcome()
    session.subscribe(outcome.see)
    try:
        for prompt in prompts:
            outcome.reset()
            await session.prompt(prompt)
    finally:
        await session.close()
    if outcome.failure is not None:
        print(inert(outcome.failure), file=stderr)
        return 1
    return _report(outcome.final, stdout, stderr, print_text=not json_mode)


class _Outcome:
    """The last reply of a prompt, and a failure that happened after it (e.g. recovery)."""

    def __init__(self) -> None:
        self.final: AssistantMessage | None = None
        self.failure: str | None = None

    def reset(self) -> None:
        self.final, self.failure = None, None

    def see(self, event: SessionEvent) -> None:
        if isinstance(event, MessageEndEvent) and isinstance(event.message, AssistantMessage):
            self.final, self.failure = event.message, None
        elif isinstance(event, AutoCompactionEndEvent) and event.error_message:
            # Overflow recovery failed: the failed reply left the transcript, the error stays.
            self.failure = event.error_message


def _report(
    final: AssistantMessage | None, stdout: TextIO, stderr: TextIO, *, print_text: bool
) -> int:
    if final is None:
        return 0
    if final.stop_reason in ("error", "aborted"):
        print(inert(final.error_message or f"Request {final.stop_reason}"), file=stderr)
        return 1
    if print_text:
        for block in final.content:
            if isinstance(block, TextContent):
                print(inert(block.text), file=stdout)
        stdout.flush()
    return 0


def _write_event(stream: TextIO, event: SessionEvent) -> None:
    _write_json(stream, event.to_json_dict())


def _write_json(stream: TextIO, data: dict[str, Any]) -> None:
    stream.write(json_inert(json.dumps(data, ensure_ascii=False, separators=(",", ":"))) + "\n")
    stream.flush()
