"""The user's own ``!cmd`` / ``!!cmd`` shell commands (PI_SPEC §9.4, §8 last paragraph).

Unlike the model's bash tool, output here is for a person and for the transcript: ANSI
sequences and control characters are removed, and a killed command records no exit code
and ``cancelled: true``. The same rolling buffer and spill file keep memory bounded.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from pitui.ai.abort import AbortSignal
from pitui.core.messages import BashExecutionMessage
from pitui.core.sanitize import inert
from pitui.core.tools.bash import kill_group, resolve_shell
from pitui.core.tools.bash_output import OutputCollector

_READ_CHUNK = 65536


def sanitize_output(text: str) -> str:
    """Strip ANSI/OSC sequences, ``\\r`` and control characters (tab and LF kept)."""
    return inert(text, expand_tabs=False)


async def run_user_bash(
    command: str,
    cwd: Path,
    *,
    exclude_from_context: bool = False,
    shell_path: str | None = None,
    cancel: AbortSignal | None = None,
    on_output: Callable[[str], None] | None = None,
) -> BashExecutionMessage:
    """Run ``command`` in its own process group; returns the message for the transcript."""
    signal = cancel or AbortSignal()
    proc = await asyncio.create_subprocess_exec(
        resolve_shell(shell_path),
        "-c",
        command,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    output = OutputCollector()
    cancelled = await _collect(proc, output, signal, on_output)
    await output.close()
    tail = output.tail()
    return BashExecutionMessage(
        command=command,
        output=sanitize_output(tail.content),
        exit_code=None if cancelled else proc.returncode,
        cancelled=cancelled,
        truncated=tail.truncated,
        full_output_path=output.full_output_path,
        exclude_from_context=True if exclude_from_context else None,
    )


async def _collect(
    proc: asyncio.subprocess.Process,
    output: OutputCollector,
    signal: AbortSignal,
    on_output: Callable[[str], None] | None,
) -> bool:
    assert proc.stdout is not None
    stdout = proc.stdout

    async def pump() -> None:
        while chunk := await stdout.read(_READ_CHUNK):
            await output.add(chunk)
            if on_output is not None:
                on_output(sanitize_output(output.tail().content))
        await proc.wait()

    work = asyncio.ensure_future(pump())
    aborted = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({work, aborted}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        aborted.cancel()
    if work.done():
        return False
    kill_group(proc.pid)
    work.cancel()
    await proc.wait()
    return True
