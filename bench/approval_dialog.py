"""Benchmark of the approval dialog for huge bash commands (issue 21 item 10: < 0.5 s).

Two figures per size: the gate's work before it asks (``PermissionGate.check`` up to the
asker: the policy, the "always" offer, the rule matcher's word split), and the dialog's
own (``ApprovalScreen`` pushed in a Textual app until its command view is filled and a
frame drawn). Commands: ``echo safe`` + 150 newlines + ``touch x`` + N bytes of one
word (the shape that was quadratic: shlex in the matcher, a Static wrapping it all).

Usage: ``python bench/approval_dialog.py [sizes…]`` (default 0 300000 1000000: 0 is the
dialog's fixed cost, its CSS and first frame)
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

from textual.app import App

from pitui.core.permissions import (
    ApprovalRequest,
    ApprovalResponse,
    PermissionGate,
    PermissionPolicy,
)
from pitui.ui.screens.approval import ApprovalScreen
from pitui.ui.theme import fallback_variables


class _Host(App[None]):
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return fallback_variables()


async def _gate_seconds(command: str) -> tuple[float, ApprovalRequest]:
    seen: list[tuple[float, ApprovalRequest]] = []
    started = time.perf_counter()

    async def asker(request: ApprovalRequest) -> ApprovalResponse:
        seen.append((time.perf_counter() - started, request))
        return ApprovalResponse("deny")

    gate = PermissionGate(PermissionPolicy(Path(tempfile.mkdtemp()), "ask"), asker)
    await gate.check("c1", "bash", {"command": command})
    return seen[0]


async def _dialog_seconds(request: ApprovalRequest) -> tuple[float, float]:
    """Wall-clock and CPU seconds from the push to the first frame with the command drawn
    (CPU time counts this process's work only: meaningful on a loaded machine)."""
    app = _Host()
    async with app.run_test(size=(120, 36)) as pilot:
        started, cpu = time.perf_counter(), time.process_time()
        screen = ApprovalScreen(request, None)
        await app.push_screen(screen)
        while not screen.query("#approval-command") or not getattr(
            screen.query_one("#approval-command"), "line_count", 0
        ):
            await pilot.pause()
        await pilot.pause()
        return time.perf_counter() - started, time.process_time() - cpu


async def main(sizes: list[int]) -> None:
    for size in sizes:
        command = "echo safe" + "\n" * 150 + "touch x" + "a" * size
        gate, request = await _gate_seconds(command)
        wall, cpu = await _dialog_seconds(request)
        print(f"{len(command):>9,} chars: gate {gate * 1000:6.1f} ms, dialog {wall * 1000:6.1f} ms"
              f" wall / {cpu * 1000:6.1f} ms CPU")  # fmt: skip


if __name__ == "__main__":
    asyncio.run(main([int(a) for a in sys.argv[1:]] or [0, 300_000, 1_000_000]))
