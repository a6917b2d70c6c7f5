"""The permission gate's asker: a request becomes a modal, the agent awaits the answer.

The gate calls :meth:`ApprovalBroker.ask` from the agent's run (on the app's loop). The
broker computes the diff preview, then, in the app's message order (after the events
already buffered by the bridge, so the prompt appears under the call that caused it),
adds an approval item to the conversation and opens :class:`ApprovalScreen`. The modal's
answer resolves the future the agent awaits. If the run is aborted meanwhile, the agent
cancels the wait: the modal closes and the item shows the call as denied.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from pitui.ui.view.events import ApprovalRequested, ApprovalResolved

if TYPE_CHECKING:
    from pitui.core.permissions import ApprovalRequest, ApprovalResponse
    from pitui.ui.approval_preview import ApprovalPreview
    from pitui.ui.host import UiHost
    from pitui.ui.screens.approval import ApprovalScreen

ABORTED_REASON = "aborted"


class ApprovalBroker:
    """Answers :class:`~pitui.core.permissions.ApprovalRequest`s with the approval modal."""

    def __init__(self, host: UiHost, cwd: Path) -> None:
        self.host = host
        self.cwd = cwd

    async def ask(self, request: ApprovalRequest) -> ApprovalResponse:
        """Show the modal for ``request`` and wait for the user's answer."""
        # The modal and the diff preview load with the first request: a session starts
        # without them (they are ~20 ms of imports on the way to the attached screen).
        from pitui.ui.approval_preview import preview_change
        from pitui.ui.screens.approval import ApprovalScreen

        preview = await preview_change(request.tool_name, request.args, self.cwd)
        answer: asyncio.Future[ApprovalResponse] = asyncio.get_running_loop().create_future()
        screen = ApprovalScreen(request, preview)
        # The call's own events first, so the prompt shows under the call.
        self.host.after_events(self._open, request, preview, screen, answer)
        try:
            response = await answer
        except asyncio.CancelledError:
            self.host.call_later(self._cancel, request, screen)
            raise
        allowed = response.choice != "deny"
        await self.host.apply(
            [ApprovalResolved(request.tool_call_id, allowed, response.reason or "")]
        )
        return response

    async def _open(
        self,
        request: ApprovalRequest,
        preview: ApprovalPreview | None,
        screen: ApprovalScreen,
        answer: asyncio.Future[ApprovalResponse],
    ) -> None:
        if answer.done():  # cancelled before it could show
            return
        await self.host.apply(
            [ApprovalRequested(request.tool_call_id, request.tool_name, request.args)]
        )

        def answered(response: ApprovalResponse | None) -> None:
            if response is not None and not answer.done():
                answer.set_result(response)

        await self.host.push_screen(screen, callback=answered)

    async def _cancel(self, request: ApprovalRequest, screen: ApprovalScreen) -> None:
        if screen.is_attached and screen in self.host.screen_stack:
            screen.dismiss(None)
        await self.host.apply([ApprovalResolved(request.tool_call_id, False, ABORTED_REASON)])
