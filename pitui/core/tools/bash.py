"""The ``bash`` tool: run a shell command in its own process group, streaming its output."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import shutil
import signal as signals
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Literal

import msgspec
from pydantic import Field

from pitui.agent.tool import AgentTool, AgentToolResult, ToolError, UpdateCallback, store_schema
from pitui.ai.abort import AbortSignal
from pitui.ai.types import TextContent
from pitui.core.sandbox import Sandbox, SandboxedCommand
from pitui.core.sandbox_git import check_new_git_dirs
from pitui.core.sandbox_git_watch import GitWatch
from pitui.core.tools._common import ToolDetails, ToolParams
from pitui.core.tools.bash_output import OutputCollector, final_text
from pitui.core.tools.schemas import SCHEMAS
from pitui.core.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, TruncationResult

READ_CHUNK = 64 * 1024
#: How long to wait for the pipe to close after the process group was killed.
_DRAIN_AFTER_KILL = 2.0


class BashParams(ToolParams):
    """Arguments of ``bash``."""

    command: str = Field(description="Bash command to execute")
    timeout: float | None = Field(
        default=None, description="Timeout in seconds (optional, no default timeout)"
    )


class BashDetails(ToolDetails):
    """UI data of ``bash``: truncation info and the full-output file, when truncated."""

    truncation: TruncationResult | None = None
    full_output_path: str | None = None
    exit_code: int | None = None


class BashError(ToolError):
    """A failed command; ``details`` (pi's JSON) carries what the UI may show."""

    def __init__(self, message: str, details: dict[str, Any]) -> None:
        super().__init__(message)
        self.details = details


def format_number(value: float) -> str:
    """A number as JavaScript prints it (``5``, ``0.5``)."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def resolve_shell(shell_path: str | None) -> str:
    """``shell_path`` if given (must exist), else /bin/bash, bash on PATH, or sh."""
    if shell_path:
        if os.path.exists(shell_path):
            return shell_path
        raise ToolError(
            f"Custom shell path not found: {shell_path}\nPlease update shellPath in your settings."
        )
    if os.path.exists("/bin/bash"):
        return "/bin/bash"
    return shutil.which("bash") or "sh"


def kill_group(pid: int) -> None:
    """SIGKILL the whole process group led by ``pid`` (falls back to the process alone)."""
    try:
        os.killpg(pid, signals.SIGKILL)
    except ProcessLookupError:
        return
    except PermissionError:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signals.SIGKILL)


class _Throttle:
    """Calls ``emit`` at most once per ``interval``, with a trailing call for late data."""

    def __init__(self, emit: UpdateCallback, render: Any, interval: float) -> None:
        self._emit = emit
        self._render = render
        self._interval = interval
        self._last = 0.0
        self._pending: asyncio.TimerHandle | None = None

    def poke(self) -> None:
        now = time.monotonic()
        if self._pending is not None:
            return
        wait = self._last + self._interval - now
        if wait <= 0:
            self._fire()
        else:
            self._pending = asyncio.get_running_loop().call_later(wait, self._fire)

    def _fire(self) -> None:
        self._pending = None
        self._last = time.monotonic()
        self._emit(self._render())

    def cancel(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None


Outcome = Literal["exited", "aborted", "timeout"]


class BashTool(AgentTool):
    """Execute a shell command in the session cwd."""

    name: ClassVar[str] = "bash"
    label: ClassVar[str] = "bash"
    description: ClassVar[str] = (
        "Execute a bash command in the current working directory. Returns stdout and stderr. "
        f"Output is truncated to last {DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB "
        "(whichever is hit first). If truncated, full output is saved to a temp file. "
        "Optionally provide a timeout in seconds."
    )
    parameters: ClassVar[type[ToolParams]] = BashParams

    def __init__(
        self,
        cwd: Path | str,
        *,
        shell_path: str | None = None,
        command_prefix: str | None = None,
        update_interval: float = 0.1,
        sandbox: Sandbox | None = None,
        git_grant: Callable[[str], bool] | None = None,
    ) -> None:
        self.cwd = Path(cwd)
        self.shell_path = shell_path
        self.command_prefix = command_prefix
        self.update_interval = update_interval
        self.sandbox = sandbox
        """Confines every command (the ``workspace`` policy); None runs them as they are."""
        self.git_grant = git_grant
        """Asked with the call's id: True if the user allowed this git command to write
        the repository (the permission gate's :meth:`~PermissionGate.git_granted`)."""
        self._git_watch: GitWatch | None = None
        """The project's git dirs, to find those a sandboxed command makes (made at the
        first sandboxed call)."""
        self._sandboxed_calls = 0
        self._git_lock = asyncio.Lock()

    async def execute(
        self, tool_call_id: str, params: Any, cancel: AbortSignal, on_update: UpdateCallback
    ) -> AgentToolResult:
        """Run ``params.command``; non-zero exit, timeout and abort raise with pi's texts."""
        assert isinstance(params, BashParams)
        command = params.command
        if self.command_prefix:
            command = f"{self.command_prefix}\n{command}"
        if not await asyncio.to_thread(os.path.exists, self.cwd):
            raise ToolError(
                f"Working directory does not exist: {self.cwd}\nCannot execute bash commands."
            )
        shell = resolve_shell(self.shell_path)
        if self.sandbox is None:
            proc, output, outcome = await self._run(
                shell, command, None, cancel, on_update, params.timeout
            )
            return await _finish(proc, output, outcome, params.timeout, None)
        # Git dirs the command makes anywhere in the project are checked when it is done;
        # those that exist stay read-only. What changed since the last call is the user's
        # (taken in first), unless another call is running: then it is that call's work.
        watch = self._git_watch = self._git_watch or GitWatch(self.cwd)
        take_in = self._sandboxed_calls == 0
        self._sandboxed_calls += 1
        try:
            async with self._git_lock:  # a call that takes in goes first
                nested = await asyncio.to_thread(watch.before_call, take_in)
            granted = self.git_grant is not None and self.git_grant(tool_call_id)
            sandbox = msgspec.structs.replace(self.sandbox, git_writable=granted, nested_git=nested)
            try:
                proc, output, outcome = await self._run(
                    shell, command, sandbox, cancel, on_update, params.timeout
                )
            except BaseException:  # cancelled: what it made is still moved out, unsaid
                asyncio.get_running_loop().run_in_executor(None, _judge_quietly, watch)
                raise
            git_note = await asyncio.to_thread(check_new_git_dirs, watch)
        finally:
            self._sandboxed_calls -= 1
        return await _finish(proc, output, outcome, params.timeout, self.sandbox, git_note)

    async def _run(
        self,
        shell: str,
        command: str,
        sandbox: Sandbox | None,
        cancel: AbortSignal,
        on_update: UpdateCallback,
        limit_s: float | None,
    ) -> tuple[asyncio.subprocess.Process, OutputCollector, Outcome]:
        """Spawn the shell (in ``sandbox``) and supervise it to its end."""
        spawn = SandboxedCommand([shell, "-c", command])
        env: dict[str, str] | None = None
        if sandbox is not None:
            spawn = await asyncio.to_thread(sandbox.wrap, spawn.argv)
            env = sandbox.environment(os.environ)
        try:
            proc = await asyncio.create_subprocess_exec(
                *spawn.argv,
                cwd=self.cwd,
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
                pass_fds=spawn.pass_fds,
            )
        except OSError as exc:
            # Node's wording: "spawn /bin/zsh ENOENT".
            code = errno.errorcode.get(exc.errno or 0, "EIO")
            raise ToolError(f"spawn {spawn.argv[0]} {code}") from exc
        finally:
            spawn.close()
        # Sandboxed, the log goes where the model's next command can read it too.
        output = OutputCollector(sandbox.scratch if sandbox is not None else None)
        throttle = _Throttle(on_update, lambda: _partial(output), self.update_interval)
        try:
            outcome = await self._supervise(proc, output, throttle, cancel, limit_s)
        finally:
            throttle.cancel()
            if proc.returncode is None:
                self._stop(proc.pid)
        return proc, output, outcome

    async def _supervise(
        self,
        proc: asyncio.subprocess.Process,
        output: OutputCollector,
        throttle: _Throttle,
        cancel: AbortSignal,
        limit_s: float | None,
    ) -> Outcome:
        """Pump output until the pipe closes and the shell exits, or abort/timeout fires."""
        assert proc.stdout is not None
        reader = asyncio.ensure_future(_pump(proc.stdout, output, throttle))
        done: asyncio.Future[Any] = asyncio.ensure_future(asyncio.gather(reader, proc.wait()))
        aborted: asyncio.Future[Any] = asyncio.ensure_future(cancel.wait())
        limit = limit_s if limit_s is not None and limit_s > 0 else None
        try:
            finished, _ = await asyncio.wait(
                {done, aborted}, timeout=limit, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            aborted.cancel()
        if done in finished:
            done.result()  # surface a failed spill-file write instead of losing it
            return "exited"
        self._stop(proc.pid)
        # The pipe closes once every process of the group is gone; keep what arrived.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(done), _DRAIN_AFTER_KILL)
        if not done.done():
            kill_group(proc.pid)
            done.cancel()
        return "aborted" if cancel.aborted else "timeout"

    def _stop(self, pid: int) -> None:
        """End the command and all it started.

        The Landlock launcher is asked (SIGTERM): it kills every process left, ``setsid``
        ones included, which killing the process group would miss. Otherwise the group.
        """
        if self.sandbox is None or self.sandbox.kind != "landlock":
            kill_group(pid)
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signals.SIGTERM)


def _judge_quietly(watch: GitWatch) -> None:
    with contextlib.suppress(Exception):
        check_new_git_dirs(watch)


async def _pump(stream: asyncio.StreamReader, output: OutputCollector, throttle: _Throttle) -> None:
    while chunk := await stream.read(READ_CHUNK):
        await output.add(chunk)
        throttle.poke()


def _partial(output: OutputCollector) -> AgentToolResult:
    """A streamed update: the tail-truncated buffer plus truncation info."""
    trunc = output.tail()
    details = BashDetails(
        truncation=trunc if trunc.truncated else None,
        full_output_path=output.full_output_path,
    )
    return AgentToolResult(
        content=[TextContent(text=trunc.content)], details=details.to_json_dict()
    )


async def _finish(
    proc: asyncio.subprocess.Process,
    output: OutputCollector,
    outcome: Outcome,
    limit_s: float | None,
    sandbox: Sandbox | None,
    git_note: str | None = None,
) -> AgentToolResult:
    """Build the result (or raise) from what was captured, with pi's texts.

    Under a sandbox, output showing a refused write gets a note saying the sandbox
    refused it, so the model (and the user) know why and what to do; ``git_note`` says a
    ``.git`` the command made was moved out (:mod:`pitui.core.sandbox_git`).
    """
    text = output.text()
    notes = [sandbox.explain_refusal(text) if sandbox is not None else None, git_note]
    note = "\n\n".join(n for n in notes if n) or None
    if outcome != "exited":
        await output.close()
        reason = (
            "Command aborted"
            if outcome == "aborted"
            else f"Command timed out after {format_number(limit_s or 0)} seconds"
        )
        message = f"{text}\n\n{reason}" if text else reason
        message = f"{message}\n\n{note}" if note else message
        details = BashDetails(full_output_path=output.full_output_path)
        raise BashError(message, details.to_json_dict())
    trunc = output.tail()
    await output.close(ensure_file=trunc.truncated)
    rendered = final_text(trunc, text, output.full_output_path)
    if note:
        rendered = f"{rendered}\n\n{note}"
    code = proc.returncode
    details = BashDetails(
        truncation=trunc if trunc.truncated else None,
        full_output_path=output.full_output_path if trunc.truncated else None,
    )
    # A negative code means killed by a signal: Node reports ``null`` and pi treats it as done.
    if code is not None and code > 0:
        details.exit_code = code
        raise BashError(f"{rendered}\n\nCommand exited with code {code}", details.to_json_dict())
    return AgentToolResult(
        content=[TextContent(text=rendered)],
        details=details.to_json_dict() if trunc.truncated else None,
    )


store_schema(BashParams, SCHEMAS["bash"])
