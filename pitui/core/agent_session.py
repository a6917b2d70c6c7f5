"""AgentSession: the one façade every mode uses (pi's ``AgentSession``).

It owns the agent, the session store, settings, the model registry and the permission
gate. It persists every finished message in order, records model and thinking-level
changes, runs the user's ``!`` commands, retries transient provider errors, and moves
around the session tree. Modes subscribe to its events and call its methods; they add
only I/O.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from pitui.agent.agent import Agent, AgentError
from pitui.agent.events import MessageEndEvent, ToolExecutionEndEvent
from pitui.agent.messages import AgentMessage
from pitui.ai.models import ModelRegistry
from pitui.ai.types import (
    THINKING_LEVELS,
    AssistantMessage,
    ImageContent,
    Model,
    TextContent,
    ThinkingLevel,
    ToolResultMessage,
    UserMessage,
)
from pitui.core.checkpoints.recorder import CheckpointRecorder
from pitui.core.messages import text_of
from pitui.core.model_notice import unconfigured_model_notice
from pitui.core.permissions import PermissionGate, mark_denied
from pitui.core.redaction import SecretRedactor
from pitui.core.resources.expand import expand_user_input
from pitui.core.resources.loader import LoadedResources
from pitui.core.session.fork import exchange_end, fork_store
from pitui.core.session.store import SessionStore, read_only_notice
from pitui.core.session_bash import SessionBash
from pitui.core.session_compaction import SessionCompaction
from pitui.core.session_events import (
    SessionChangedEvent,
    SessionChangeKind,
    SessionEvent,
    SessionNoticeEvent,
    ToolDeniedEvent,
)
from pitui.core.session_navigation import NavigationCancelled, SessionNavigation
from pitui.core.session_retry import SessionRetry
from pitui.core.settings import Settings, update_global_settings
from pitui.core.usage import FileUsage, UsageTotals

if TYPE_CHECKING:
    from pitui.core.compaction.summarize import CompactionResult
    from pitui.core.mcp.runtime import McpRuntime
    from pitui.core.session.context import ModelRef

# pi 1.6's words (AgentSession.navigateTree).
TREE_MOVE_WHILE_STREAMING = (
    "Wait for the current response to finish before navigating the session tree."
)
TREE_MOVE_WHILE_COMPACTING = (
    "Wait for the current compaction or tree navigation to finish"
    " before navigating the session tree."
)

_log = logging.getLogger(__name__)
# Settings saved on the user's behalf: pi's JSON key → the Settings attribute.
_SETTING_ATTRIBUTES = {
    "defaultProvider": "default_provider",
    "defaultModel": "default_model",
    "defaultThinkingLevel": "default_thinking_level",
}

DEFAULT_THINKING_LEVEL: ThinkingLevel = "medium"
"""pi's level for a resumed branch without one when no default is set."""

SessionListener: TypeAlias = Callable[[SessionEvent], Awaitable[None] | None]
StreamingBehavior: TypeAlias = str | None
"""``"steer"`` or ``"followUp"`` while the agent works; None refuses a busy prompt."""


class AgentSession:
    """Agent + session store + settings + models + permission gate, behind one API.

    Build one with :func:`pitui.core.session_setup.create_agent_session`.
    """

    def __init__(
        self,
        *,
        agent: Agent,
        store: SessionStore,
        settings: Settings,
        registry: ModelRegistry,
        gate: PermissionGate,
        cwd: Path,
        redactor: SecretRedactor | None = None,
        resources: LoadedResources | None = None,
    ) -> None:
        self.agent = agent
        self.store = store
        self.settings = settings
        self.registry = registry
        self.gate = gate
        self.cwd = cwd
        self.redactor = redactor or SecretRedactor(registry.auth.known_secrets)
        """Hides API keys in tool output and in the output of ``!`` commands."""
        self.resources = resources or LoadedResources()
        """Skills and prompt templates: :meth:`prompt` expands their commands."""
        self._listeners: list[SessionListener] = []
        self._denied: set[str] = set()
        """Calls the gate refused whose tool result is still to be recorded."""
        self._file_usage = FileUsage()
        agent.subscribe(self._on_agent_event)
        self.compaction = SessionCompaction(self)
        """Compaction (manual, automatic, overflow recovery)."""
        self.navigation = SessionNavigation(self)
        """Tree navigation, with branch summaries."""
        self.retry = SessionRetry(self)
        self.file_model: ModelRef | None = None
        """The model the file has in effect at the leaf (set by ``rebuild_from_session``)."""
        """Automatic retries of transient provider errors."""
        self.bash = SessionBash(self)
        """The user's ``!`` commands."""
        self.checkpoints = CheckpointRecorder(self)
        """Snapshots of the project's files, recorded in the session (``checkpoints.*``)."""
        self.mcp: McpRuntime | None = None
        """The session's MCP servers (None: none configured, or ``--no-mcp``)."""

    # ------------------------------------------------------------------ state

    @property
    def model(self) -> Model | None:
        """The model the next call goes to."""
        return self.agent.state.model

    @property
    def thinking_level(self) -> ThinkingLevel:
        """The current thinking level."""
        return self.agent.state.thinking_level

    @property
    def messages(self) -> list[AgentMessage]:
        """The transcript the model works from."""
        return self.agent.state.messages

    @property
    def is_streaming(self) -> bool:
        """True while a run is in progress."""
        return self.agent.state.is_streaming

    @property
    def session_file(self) -> Path | None:
        """The session file (None with ``--no-session``)."""
        return self.store.path

    @property
    def session_name(self) -> str | None:
        """The latest non-empty ``session_info`` name."""
        return self.store.get_session_name()

    def usage_totals(self) -> UsageTotals:
        """Tokens and cost summed over all assistant entries in the file (pi's footer)."""
        return self._file_usage.of(self.store.table)

    def last_assistant_text(self) -> str | None:
        """The text of the latest assistant message, trimmed (``/copy``)."""
        for message in reversed(self.messages):
            if isinstance(message, AssistantMessage):
                return message.text().strip() or None
        return None

    def available_thinking_levels(self) -> list[ThinkingLevel]:
        """Levels the current model accepts (``off`` only without reasoning)."""
        model = self.model
        if model is None or not model.reasoning:
            return ["off"]
        xhigh = any(tag in model.id for tag in ("gpt-5.2", "gpt-5.3", "gpt-5.4", "opus-4-6"))
        return [level for level in THINKING_LEVELS if level != "xhigh" or xhigh]

    # ------------------------------------------------------------------ events

    def subscribe(self, listener: SessionListener) -> Callable[[], None]:
        """Receive every session event; returns an unsubscribe function."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    async def emit(self, event: SessionEvent) -> None:
        """Deliver ``event`` to every listener (awaiting async ones, in order)."""
        for listener in list(self._listeners):
            pending = listener(event)
            if pending is not None and inspect.isawaitable(pending):
                await pending

    async def _on_agent_event(self, event: SessionEvent) -> None:
        # Awaited before the tool runs: the checkpoint holds the files it may change.
        await self.checkpoints.on_event(event)
        if isinstance(event, MessageEndEvent):
            message = event.message
            if isinstance(message, ToolResultMessage) and message.tool_call_id in self._denied:
                self._denied.discard(message.tool_call_id)
                mark_denied(message)
            # Awaited by the loop, so entries land in the file in event order.
            await self.store.append_message(message)
        if isinstance(event, ToolExecutionEndEvent):
            decision = self.gate.decisions.pop(event.tool_call_id, None)
            if decision is not None and not decision.allowed:
                self._denied.add(event.tool_call_id)
                await self.emit(
                    ToolDeniedEvent(
                        tool_call_id=event.tool_call_id,
                        tool_name=event.tool_name,
                        message=decision.message or "",
                    )
                )
        await self.emit(event)

    # ------------------------------------------------------------------ prompting

    async def prompt(
        self,
        text: str,
        images: list[ImageContent] | None = None,
        *,
        streaming_behavior: StreamingBehavior = None,
        expand: bool = True,
    ) -> None:
        """Send the user's message and run until the agent (and any retries) finish.

        While a run is in progress, ``streaming_behavior`` ``"steer"`` or ``"followUp"``
        queues the message instead; without it a busy prompt raises :class:`AgentError`.
        ``/skill:name`` and ``/template`` commands are expanded first (:meth:`expand_input`)
        unless ``expand`` is False (the caller expanded them, e.g. before attaching files).
        """
        self.store.check_writable()  # a read-only session: refuse before anything is queued
        if expand:
            text = await self.expand_input(text)
        if self.is_streaming:
            if streaming_behavior == "steer":
                self.steer(text, images)
                return
            if streaming_behavior == "followUp":
                self.follow_up(text, images)
                return
        await self.bash.flush_pending()
        await self.compaction.before_prompt()
        if self.mcp is not None:  # tools and the mcp_servers section, as of this prompt
            for notice, level in await self.mcp.before_prompt(self.agent.state.messages):
                await self.emit(SessionNoticeEvent(message=notice, level=level))
        await self.agent.prompt(_user_message(text, images))
        await self._after_run()

    async def expand_input(self, text: str) -> str:
        """What a typed ``/skill:name args`` or ``/template args`` sends (pi's order);
        other text unchanged. :meth:`steer` and :meth:`follow_up` take expanded text."""
        return await expand_user_input(text, self.resources)

    def steer(self, text: str, images: list[ImageContent] | None = None) -> None:
        """Interrupt the run: delivered at the next steering poll."""
        self.agent.steer(_user_message(text, images))

    def follow_up(self, text: str, images: list[ImageContent] | None = None) -> None:
        """Delivered when the agent would otherwise stop."""
        self.agent.follow_up(_user_message(text, images))

    def queued_texts(self) -> tuple[list[str], list[str]]:
        """``(steering, follow-up)`` texts waiting in the queues."""
        steering = [text_of(getattr(m, "content", None)) for m in self.agent.queued_steering]
        follow = [text_of(getattr(m, "content", None)) for m in self.agent.queued_follow_up]
        return steering, follow

    def dequeue_all(self) -> list[str]:
        """Take every queued message back (steering first), e.g. into the composer."""
        steering, follow = self.queued_texts()
        self.agent.clear_all_queues()
        return steering + follow

    async def continue_(self) -> None:
        """Run the model again on the transcript (after an error or an abort)."""
        await self.agent.continue_()
        await self._after_run()

    def abort(self) -> None:
        """Abort the run, a retry wait and a running ``!`` command."""
        self.retry.abort()
        self.bash.abort()
        self.agent.abort()

    async def wait_for_idle(self) -> None:
        """Return once no run is in progress."""
        await self.agent.wait_for_idle()

    async def _after_run(self) -> None:
        """Post-run work: automatic retries, the run's last checkpoint, then automatic
        compaction."""
        await self.retry.after_run()
        await self.checkpoints.after_run()
        await self.compaction.after_run()

    async def compact(self, instructions: str | None = None) -> CompactionResult:
        """Compact now (``/compact [instructions]``); see :meth:`SessionCompaction.compact`."""
        return await self.compaction.compact(instructions)

    def abort_compaction(self) -> None:
        """Cancel a running compaction (``Compaction cancelled``)."""
        self.compaction.abort()

    # ------------------------------------------------------------------ ! commands

    async def run_bash(self, command: str, *, exclude_from_context: bool = False) -> None:
        """Run the user's ``!cmd`` (``!!cmd``: kept out of the model's context); see
        :class:`~pitui.core.session_bash.SessionBash`.

        Raises:
            AgentError: when another ``!`` command is still running.
        """
        await self.bash.run(command, exclude_from_context=exclude_from_context)

    # ------------------------------------------------------------------ model & thinking

    async def set_model(self, model: Model) -> None:
        """Switch models; recorded as a ``model_change`` entry."""
        self.agent.state.model = model
        await self.store.append_model_change(model.provider, model.id)
        # As pi: the model picked last is the default of the next session.
        await self._remember(defaultProvider=model.provider, defaultModel=model.id)
        await self._clamp_thinking()
        await self._changed("model")

    async def set_thinking_level(self, level: ThinkingLevel) -> None:
        """Set the level (clamped to what the model accepts); recorded as an entry."""
        chosen = self._clamped(level)
        if chosen == self.thinking_level:
            return
        self.agent.state.thinking_level = chosen
        await self.store.append_thinking_level_change(chosen)
        if chosen != "off" or (self.model is not None and self.model.reasoning):
            # pi keeps "off" forced by a model without thinking out of the default.
            await self._remember(defaultThinkingLevel=chosen)
        await self._changed("thinking")

    async def cycle_thinking_level(self) -> ThinkingLevel:
        """Next level in order (wrapping); returns the new level."""
        levels = self.available_thinking_levels()
        current = self.thinking_level
        index = levels.index(current) if current in levels else -1
        await self.set_thinking_level(levels[(index + 1) % len(levels)])
        return self.thinking_level

    async def _clamp_thinking(self) -> None:
        available = self.available_thinking_levels()
        if self.thinking_level not in available:
            await self.set_thinking_level("off" if available == ["off"] else available[-1])

    # ------------------------------------------------------------------ the session tree

    async def set_name(self, name: str) -> None:
        """Name the session (a ``session_info`` entry)."""
        await self.store.set_name(name.strip())
        await self._changed("name")

    async def set_label(self, entry_id: str, label: str | None) -> None:
        """Label an entry (empty clears)."""
        await self.store.set_label(entry_id, label)
        await self._changed("label")

    def check_tree_move(self) -> None:
        """Refuse to move the leaf while a run or a compaction is in progress, as pi 1.6
        does: the run's next message would be appended at the new leaf, on another branch.

        Raises:
            AgentError: with pi's own words.
        """
        if self.is_streaming:
            raise AgentError(TREE_MOVE_WHILE_STREAMING)
        if self.compaction.is_compacting:
            raise AgentError(TREE_MOVE_WHILE_COMPACTING)

    async def navigate(
        self,
        target: str,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> str | None:
        """Move the leaf to ``target`` (optionally summarising the branch left); returns
        text for the composer (a user or custom message target: leaf = its parent).

        The full result (summary entry, …) is :meth:`SessionNavigation.navigate`'s.

        Raises:
            NavigationError: unknown entry, no model for a summary, summary error.
            NavigationCancelled: the summary was aborted; nothing changed.
        """
        self.check_tree_move()
        result = await self.navigation.navigate(
            target, summarize, custom_instructions, replace_instructions, label
        )
        if result.aborted:
            raise NavigationCancelled("Navigation cancelled")
        return result.editor_text

    async def switch_branch(self, entry_id: str) -> None:
        """Put the leaf at ``entry_id`` as it is (no summary, nothing written): switching
        to a sibling branch's newest entry.

        Raises:
            SessionError: unknown entry.
            AgentError: a run or a compaction is in progress (:meth:`check_tree_move`).
        """
        self.check_tree_move()
        self.store.branch(entry_id)
        self.rebuild_from_session()
        await self._changed("navigate")

    async def fork(self, entry_id: str) -> str | None:
        """Continue in a new session file holding the path before ``entry_id``.

        Returns the text of the forked user message for the composer.
        """
        entry = self.store.get_entry(entry_id)
        if entry is None:
            raise AgentError(f"Entry {entry_id} not found")
        from pitui.core.compaction.branch import plan_navigation  # summary code: on first use

        plan = plan_navigation(entry)
        parent, editor_text = plan.new_leaf_id, plan.editor_text
        old = self.store
        if parent is not None and editor_text is None:
            # Never a copy ending in a call without its result (pi offers only user
            # messages): a fork inside a tool exchange ends after its last result.
            parent = exchange_end(old.table, parent)
        if parent is None:
            parent_file = str(old.path) if old.path else None
            new = SessionStore.create(old.cwd, old.session_dir, parent_session=parent_file)
        else:
            new = await fork_store(old, parent)
        await self._switch_store(new)
        self.rebuild_from_session()
        await self._changed("fork")
        return editor_text

    async def clone(self) -> None:
        """Continue in a new session file holding the current path as it is (pi's ``/clone``).

        Raises:
            AgentError: the session has no entries yet.
        """
        leaf = self.store.get_leaf_id()
        if leaf is None:
            raise AgentError("Nothing to clone yet")
        await self._switch_store(await fork_store(self.store, leaf))
        self.rebuild_from_session()
        await self._changed("fork")

    async def new_session(self) -> None:
        """Start an empty session in a new file (model and thinking level carried over)."""
        old = self.store
        if old.path is None:
            await self._switch_store(SessionStore.in_memory(old.cwd))
        else:
            await self._switch_store(SessionStore.create(old.cwd, old.session_dir))
        self.agent.reset()
        await self.record_model_and_thinking()
        await self._changed("new")

    async def resume(self, path: Path) -> str | None:
        """Switch to the session file at ``path`` in place (pi's ``switchSession``).

        Any run is aborted and queued messages dropped; the transcript, the model (when
        the registry has it) and the branch's thinking level come from the file; a branch
        without a level gets the default level, clamped and recorded. A file another
        pitui holds (or that cannot be written) opens read-only, with a
        ``session_notice`` saying so.

        Returns:
            What opening the file skipped or cut (:meth:`SessionStore.damage_notice`),
            for the caller to show; None for a sound file.

        Raises:
            SessionError: The file cannot be read (the current session stays).
        """
        self.abort()
        await self.wait_for_idle()
        new_store = await SessionStore.open(path, fallback_read_only=True)
        # Validate the branch's entries off the loop (a long session has ~10,000): the
        # context and the branch read below then find them validated.
        await asyncio.to_thread(new_store.get_branch)
        await self._switch_store(new_store)
        self.agent.reset()
        self.rebuild_from_session(restore_model=True)
        await self._restore_thinking_level()
        await self._changed("resume")
        unknown = unconfigured_model_notice(self.registry, self.file_model, self.model)
        if unknown is not None:  # the session goes on with the current model: say so
            await self.emit(SessionNoticeEvent(message=unknown, level="warning"))
        if new_store.read_only:  # after the change: a UI shows the new session first
            notice = read_only_notice(new_store)
            await self.emit(SessionNoticeEvent(message=notice, level="warning"))
        return new_store.damage_notice()

    async def _switch_store(self, store: SessionStore) -> None:
        """Work in ``store`` from now on (the old file is released, untouched)."""
        old, self.store = self.store, store
        await old.close()
        self.agent.session_id = store.session_id

    async def _restore_thinking_level(self) -> None:
        """The branch's level (clamped), else the default level, recorded (as pi)."""
        branch = self.store.get_branch()
        recorded = any(entry.type == "thinking_level_change" for entry in branch)
        wanted = self.thinking_level if recorded else self.settings.default_thinking_level
        level = self._clamped(wanted or DEFAULT_THINKING_LEVEL)
        changed = level != self.thinking_level or not recorded
        self.agent.state.thinking_level = level
        if changed and not self.store.read_only:
            await self.store.append_thinking_level_change(level)

    def _clamped(self, level: ThinkingLevel) -> ThinkingLevel:
        available = self.available_thinking_levels()
        if level in available:
            return level
        return "off" if level == "off" or available == ["off"] else available[-1]

    def rebuild_from_session(self, *, restore_model: bool = False) -> None:
        """Replace the agent's transcript with the session context at the leaf (and keep
        the model the file has in effect there in :attr:`file_model`)."""
        context = self.store.build_context()
        self.agent.replace_messages(context.messages)
        self.file_model = context.model
        if not restore_model:
            return
        if context.model is not None:
            model = self.registry.find(context.model.provider, context.model.model_id)
            if model is not None:
                self.agent.state.model = model
        level = context.thinking_level
        if level in THINKING_LEVELS:
            self.agent.state.thinking_level = level

    async def record_model_and_thinking(self) -> None:
        """Write the current model and level as the first entries of a new session (as pi)."""
        if self.model is not None:
            await self.store.append_model_change(self.model.provider, self.model.id)
        await self.store.append_thinking_level_change(self.thinking_level)

    async def close(self) -> None:
        """Abort work in progress and release the session file."""
        self.abort()
        await self.agent.wait_for_idle()
        await self.checkpoints.close()
        if self.mcp is not None:
            await self.mcp.close()
        await self.store.close()

    async def _remember(self, **changes: str) -> None:
        """Save user choices to the global settings (best effort: never fails the switch)."""
        for key, value in changes.items():
            setattr(self.settings, _SETTING_ATTRIBUTES[key], value)
        problem = await update_global_settings(changes)
        if problem is not None:
            _log.warning("settings not saved: %s", problem)

    async def _changed(self, kind: SessionChangeKind) -> None:
        await self.emit(SessionChangedEvent(kind=kind))


def _user_message(text: str, images: list[ImageContent] | None) -> UserMessage:
    """A typed message: its text, then its attached images."""
    content: list[TextContent | ImageContent] = [TextContent(text=text), *(images or [])]
    return UserMessage(content=content)
