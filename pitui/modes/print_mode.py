"""``pitui -p`` and ``--mode json``: run prompts to completion without a UI (PI_SPEC §9.10).

Print mode writes each text block of the final reply on its own line; a reply that ended
in an error or an abort goes to stderr with exit code 1, after whatever text it had
streamed (a dropped connection keeps what arrived). After automatic retries the error
names the first failure and the last one. A run that ends without any reply, or whose
reply could not be saved, also exits 1 with the reason. JSON mode writes the session
header, then every session event as one JSON line with pi's field names. Nobody can
answer a permission request here, so the default policy is ``workspace``. What reaches
the terminal is inert: escape and control sequences from the model or a tool (an OSC 52
clipboard write, a title change) are removed from text and escaped in JSON.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from pitui.agent.events import (
    AgentEndEvent,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
)
from pitui.ai.stream import prepare_connection
from pitui.ai.types import AssistantMessage, ImageContent, TextContent
from pitui.core.agent_session import AgentSession
from pitui.core.attachments.arguments import split_file_arguments
from pitui.core.attachments.initial import attach_to_first
from pitui.core.interrupt import SignalWatch, exit_code
from pitui.core.sanitize import inert, json_inert
from pitui.core.session.bulk import resume_collection
from pitui.core.session_events import (
    AutoCompactionEndEvent,
    AutoRetryStartEvent,
    SessionEvent,
    SessionNoticeEvent,
)
from pitui.core.session_setup import SessionOptions, create_agent_session
from pitui.core.session_setup import options_from_args as session_options
from pitui.errors import PituiError

if TYPE_CHECKING:
    import argparse


def run(args: argparse.Namespace) -> int:
    """Entry point from :mod:`pitui.cli` (the process's own; embedders call run_prompts).

    Start-up runs without garbage collection (:mod:`pitui.cli` paused it before the
    imports): it builds hundreds of thousands of objects that live for the whole run,
    and collecting finds nothing in them (~3% of a one-turn run). Once the session is
    ready they are promoted, unwalked, to the oldest generation (as
    :func:`pitui.core.session.bulk.bulk_allocation` does) and collection resumes.
    """
    try:
        return _run(args)
    finally:
        _resume_gc()
        # The process ends now: the interpreter's last collection would walk every
        # object once more only to free memory the OS takes back anyway (~5% of a turn).
        gc.freeze()


def _run(args: argparse.Namespace) -> int:
    files, prompts = split_file_arguments(list(args.messages))
    if not sys.stdin.isatty():
        piped = sys.stdin.read()
        if piped.strip():
            prompts.insert(0, piped)
    if not prompts and files:
        prompts = [""]  # the files alone are the prompt, as pi sends them
    if not prompts:
        print("pitui: no prompt given (pass it as an argument or on stdin)", file=sys.stderr)
        return 2
    options = options_from_args(args)
    json_mode = args.mode == "json"
    try:
        return asyncio.run(
            run_prompts(options, prompts, json_mode=json_mode, on_ready=_resume_gc, files=files)
        )
    except PituiError as exc:
        print(f"pitui: {inert(str(exc))}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, asyncio.CancelledError):
        return 130
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, as a Unix filter should.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


def _resume_gc() -> None:
    if not gc.isenabled():
        resume_collection()


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
    on_ready: Callable[[], None] | None = None,
    files: Sequence[str] = (),
) -> int:
    """Run ``prompts`` in order in one session; returns the exit code.

    ``on_ready`` is called once the session is set up, before the first request.
    ``files`` (the ``@file`` arguments) are attached to the first prompt, in one turn.
    """
    stdout = out or sys.stdout
    stderr = err or sys.stderr
    session = await create_agent_session(options)
    if session.model is not None:
        prepare_connection(session.model)  # the adapter, and the TLS context meanwhile
    if on_ready is not None:
        on_ready()
    for warning in options.warnings:
        print(f"pitui: {inert(warning)}", file=stderr)
    if session.mcp is not None:  # nobody to ask here: say how to allow them
        from pitui.core.mcp.trust import not_started_line

        for entry in session.mcp.untrusted:
            print(f"pitui: {inert(not_started_line(entry))}", file=stderr)
    if json_mode:
        _write_json(stdout, session.store.header.to_json_dict())
        session.subscribe(lambda event: _write_event(stdout, event))
    else:  # warnings that arise during the run (an MCP server that failed to start)
        session.subscribe(lambda event: _warn(stderr, event))
    outcome = _Outcome()
    session.subscribe(outcome.see)
    main = asyncio.current_task()

    def stop_waiting(_signum: int) -> None:
        if main is not None:
            main.cancel()

    # A signal ends the reply as Esc does (aborted, saved); a second one stops waiting.
    signals = SignalWatch(lambda _signum: session.abort(), stop_waiting).install()
    try:
        first_images = await _attach_to_first(session, prompts, files, stderr)
        for index, prompt in enumerate(prompts):
            outcome.reset()
            first = index == 0 and first_images is not None
            await session.prompt(prompt, first_images if first else None, expand=not first)
            if signals.received is not None:
                break
    finally:
        signals.remove()
        await session.close()
    if outcome.failure is not None:
        print(inert(outcome.failure), file=stderr)
        return 1
    code = _report(outcome, stdout, stderr, print_text=not json_mode)
    return exit_code(signals.received) if signals.received is not None else code


async def _attach_to_first(
    session: AgentSession, prompts: list[str], files: Sequence[str], stderr: TextIO
) -> list[ImageContent] | None:
    """The files in front of the first prompt (one turn, as pi); returns its images."""
    attached = await attach_to_first(session, prompts, files)
    if attached is None:
        return None
    for note in attached.notes:
        print(f"pitui: {inert(note)}", file=stderr)
    return attached.images


class _Outcome:
    """What one prompt came to: its last reply, the text it streamed, its failures."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.final: AssistantMessage | None = None
        self.failure: str | None = None
        """A failure after the last reply (e.g. overflow recovery)."""
        self.first_error: str | None = None
        """The error of the first failed reply, when automatic retries followed it."""
        self.retries = 0
        self.streamed: list[AssistantMessage] = []
        """The latest (partial or finished) reply of each attempt, in order."""

    def see(self, event: SessionEvent) -> None:
        if isinstance(event, MessageStartEvent | MessageUpdateEvent | MessageEndEvent):
            if isinstance(event.message, AssistantMessage):
                self._streaming(event)
        elif isinstance(event, AgentEndEvent):
            # A run that failed outside the model call (e.g. the session could not be
            # written) ends with a reply that only agent_end carries (PI_SPEC §3.10).
            last = next(
                (m for m in reversed(event.messages) if isinstance(m, AssistantMessage)), None
            )
            if last is not None and last is not self.final and last.stop_reason != "stop":
                self.final, self.failure = last, None
        elif isinstance(event, AutoRetryStartEvent):
            self.retries = event.attempt
            if self.first_error is None:
                self.first_error = event.error_message
        elif isinstance(event, AutoCompactionEndEvent) and event.error_message:
            # Overflow recovery failed: the failed reply left the transcript, the error stays.
            self.failure = event.error_message

    def _streaming(self, event: MessageStartEvent | MessageUpdateEvent | MessageEndEvent) -> None:
        message = event.message
        assert isinstance(message, AssistantMessage)
        # Each attempt starts a reply; its updates and end carry the same reply, grown.
        if isinstance(event, MessageStartEvent) or not self.streamed:
            self.streamed.append(message)
        else:
            self.streamed[-1] = message
        if isinstance(event, MessageEndEvent):
            self.final, self.failure = message, None

    def partial_text(self) -> list[str]:
        """Text blocks of the latest attempt that streamed any text (for a failed prompt)."""
        for message in reversed(self.streamed):
            texts = [b.text for b in message.content if isinstance(b, TextContent) and b.text]
            if texts:
                return texts
        return []

    def error_text(self, final: AssistantMessage) -> str:
        """The failure, naming the first error too when retries ended in another one."""
        last = final.error_message or f"Request {final.stop_reason}"
        if not self.retries or self.first_error is None or self.first_error == last:
            return last
        tries = "retry" if self.retries == 1 else f"{self.retries} retries"
        return f"{self.first_error} (after {tries}, the last failed with: {last})"


def _report(outcome: _Outcome, stdout: TextIO, stderr: TextIO, *, print_text: bool) -> int:
    final = outcome.final
    if final is None:
        print("pitui: the run ended without a reply from the model", file=stderr)
        return 1
    if final.stop_reason in ("error", "aborted"):
        if print_text:
            _print_lines(outcome.partial_text(), stdout)
        print(inert(outcome.error_text(final)), file=stderr)
        return 1
    if print_text:
        _print_lines([b.text for b in final.content if isinstance(b, TextContent)], stdout)
    return 0


def _print_lines(texts: list[str], stdout: TextIO) -> None:
    for text in texts:
        print(inert(text), file=stdout)
    stdout.flush()


def _warn(stderr: TextIO, event: SessionEvent) -> None:
    if isinstance(event, SessionNoticeEvent) and event.level == "warning":
        print(f"pitui: {inert(event.message)}", file=stderr)


def _write_event(stream: TextIO, event: SessionEvent) -> None:
    _write_json(stream, event.to_json_dict())


def _write_json(stream: TextIO, data: dict[str, Any]) -> None:
    stream.write(json_inert(json.dumps(data, ensure_ascii=False, separators=(",", ":"))) + "\n")
    stream.flush()
