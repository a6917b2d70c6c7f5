"""Moving through the session tree: pi's ``navigateTree`` for the façade (PI_SPEC §7).

:class:`SessionNavigation` moves the leaf to another entry, optionally after summarising
the branch being left (a ``branch_summary`` entry), and rebuilds the agent's transcript
from the new context. The summary can be cancelled (:meth:`SessionNavigation.abort`):
nothing is written then. It works through a :class:`NavigationHost`, not the façade.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from pitui.ai.abort import AbortSignal
from pitui.ai.models import ModelRegistry
from pitui.ai.types import Model
from pitui.core.session.store import SessionStore
from pitui.core.session_events import SessionChangedEvent, SessionEvent
from pitui.core.settings import Settings
from pitui.errors import PituiError

if TYPE_CHECKING:
    from pitui.core.compaction.apply import NavigationResult

__all__ = ["NavigationCancelled", "NavigationHost", "SessionNavigation"]


class NavigationCancelled(PituiError):
    """The branch summary was aborted; the session is unchanged."""

    title = "Navigation cancelled"


class NavigationHost(Protocol):
    """What navigation needs from the session it works for."""

    store: SessionStore
    settings: Settings
    registry: ModelRegistry

    @property
    def model(self) -> Model | None: ...

    def rebuild_from_session(self) -> None: ...

    async def emit(self, event: SessionEvent) -> None: ...


class SessionNavigation:
    """Tree navigation of one session, with a cancellable branch summary."""

    def __init__(self, host: NavigationHost) -> None:
        self._host = host
        self._summary: AbortSignal | None = None

    @property
    def is_summarizing(self) -> bool:
        """Whether a branch summary is being generated."""
        return self._summary is not None

    def abort(self) -> None:
        """Cancel a running branch summary (navigation then changes nothing)."""
        if self._summary is not None:
            self._summary.abort("branch summary cancelled")

    async def navigate(
        self,
        target_id: str,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> NavigationResult:
        """Optional branch summary, new leaf, label, new transcript.

        Raises:
            NavigationError: unknown entry, no model / key for a summary, summary error.
        """
        # The summary and tree code: on the first navigation only.
        from pitui.core.compaction.apply import NavigationRequest, NavigationResult, navigate_store

        host = self._host
        store = host.store
        if target_id == store.get_leaf_id():
            return NavigationResult(new_leaf_id=target_id)
        model = host.model
        api_key = await host.registry.get_api_key(model) if summarize and model else None
        request = NavigationRequest(
            target_id, summarize, custom_instructions, replace_instructions, label
        )
        signal = self._summary = AbortSignal()
        try:
            reserve = host.settings.branch_summary.reserve_tokens
            result = await navigate_store(
                store, request, model, api_key, signal, reserve, host.settings.retry
            )
        finally:
            self._summary = None
        if result.cancelled:
            return result
        host.rebuild_from_session()
        await host.emit(SessionChangedEvent(kind="navigate"))
        return result
