"""Build an :class:`AgentSession` from what a mode was asked for (flags, settings, files).

Every mode goes through :func:`create_agent_session`: settings, models and keys, the
session file (new, ``--continue``, ``--session``, ``--no-session``), the model and
thinking level, the tools, the system prompt and the permission gate.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from pitui.agent.agent import Agent
from pitui.agent.config import ConvertToLlm
from pitui.agent.messages import AgentMessage, leaves_input_alone
from pitui.agent.state import AgentState
from pitui.ai.models import ModelRegistry
from pitui.ai.options import StreamOptions
from pitui.ai.stream import StreamFn, stream
from pitui.ai.types import (
    THINKING_LEVELS,
    ImageContent,
    Message,
    Model,
    TextContent,
    ThinkingLevel,
    ToolResultMessage,
    UserMessage,
)
from pitui.core.agent_session import AgentSession
from pitui.core.approval_store import load_approvals, save_rule_list
from pitui.core.mcp.naming import TOOL_SEARCH, is_mcp_tool_name, name_matcher
from pitui.core.messages import convert_to_llm
from pitui.core.model_notice import unconfigured_model_notice
from pitui.core.permissions import Asker, PermissionGate, PermissionPolicy, RuleChange
from pitui.core.redaction import SecretRedactor, redact_spill_files_with
from pitui.core.resources.loader import LoadedResources, load_resources
from pitui.core.retry import provider_retry_policy
from pitui.core.sandbox import Sandbox, find_sandbox
from pitui.core.session.context import ModelRef, SessionContext
from pitui.core.session.listing import resolve_session
from pitui.core.session.store import SessionStore, read_only_notice
from pitui.core.settings import ApprovalMode, Settings, load_settings, update_global_settings
from pitui.core.system_prompt import load_context_files, load_system_prompt
from pitui.core.tools import DEFAULT_TOOL_NAMES as DEFAULT_TOOLS
from pitui.core.tools import create_tools
from pitui.core.trust import PROJECT_RESOURCES, load_trust

if TYPE_CHECKING:
    import argparse

IMAGES_BLOCKED = "Image reading is disabled."
TRUST_HINT = (
    "Run with --trust-project to load them for this run, or `pitui trust` to trust the project."
)
LONG_SESSION_ENTRIES = 1000
"""Entries from which a session's context is built in a thread."""

_log = logging.getLogger(__name__)


class SessionOptions(msgspec.Struct):
    """What a mode asks for. Unset fields fall back to settings and defaults.

    A Struct, not a dataclass (a dataclass's generated methods cost a ``pitui -p`` turn
    ~2 M instructions to compile); copy it with ``msgspec.structs.replace``."""

    cwd: Path
    model: str | None = None
    """``provider/id[:thinking]`` or a fuzzy id (``--model``)."""
    provider: str | None = None
    thinking: ThinkingLevel | None = None
    tools: Sequence[str] | None = None
    """``--tools``: built-in names, and ``mcp__`` patterns that filter MCP tools."""
    exclude_tools: Sequence[str] = ()
    """``--exclude-tools``: names or ``*`` patterns removed (built-in and MCP)."""
    no_mcp: bool = False
    """``--no-mcp``: no MCP servers for this run."""
    approve: ApprovalMode | None = None
    """``--approve`` (or a mode's default, e.g. ``workspace`` for print mode)."""
    session_file: Path | None = None
    session_arg: str | None = None
    """``--session`` as typed: a path, or a session id or its start (resolved when the
    store opens; ``session_file`` wins if both are given)."""
    session_dir: Path | None = None
    continue_recent: bool = False
    no_session: bool = False
    read_only: bool = False
    """Open the session file without ever writing to it (``--read-only``)."""
    no_checkpoints: bool = False
    """Take no checkpoints of the project's files (``--no-checkpoints``)."""
    fallback_read_only: bool = False
    """A file that is locked or cannot be written opens read-only instead of failing."""
    store: SessionStore | None = None
    """An already open store to use instead of the session flags (inspection: the context
    report); one opened read-only gets nothing recorded."""
    context: SessionContext | None = None
    """``store``'s context at its leaf, built already: the transcript is taken from it
    instead of building it again (the context report builds it once, for both)."""
    system_prompt: str | None = None
    append_system_prompt: str | None = None
    api_key: str | None = None
    asker: Asker | None = None
    """Answers permission requests (the TUI's modal); None: nobody to ask."""
    stream_fn: StreamFn = stream
    settings: Settings | None = None
    registry: ModelRegistry | None = None
    warnings: list[str] = msgspec.field(default_factory=list)
    """Filled with problems worth telling the user (bad settings, unknown model…)."""
    trust_project: bool | None = None
    """Load the project's skills and templates this once (``--trust-project``: True) or
    not (False); None: the decision kept in the trust store."""
    trust_hint: str = TRUST_HINT
    """How the user can allow skipped project resources (said in the notice)."""
    reserved_commands: Sequence[str] = ()
    """Built-in command names: a prompt template may not take one."""


def options_from_args(
    args: argparse.Namespace, cwd: Path, *, default_approve: ApprovalMode | None = None
) -> SessionOptions:
    """Session options from pitui's command-line flags (every mode parses the same ones).

    ``default_approve`` applies when ``--approve`` is absent: print mode has nobody to
    ask and passes ``workspace``; the TUI passes None so the settings' mode (``ask``) holds.
    """
    tools = None
    if args.tools is not None:
        tools = [name.strip() for name in args.tools.split(",") if name.strip()]
    excluded = getattr(args, "exclude_tools", None) or ""
    return SessionOptions(
        cwd=cwd,
        model=args.model,
        provider=args.provider,
        thinking=args.thinking,
        tools=tools,
        exclude_tools=[name.strip() for name in excluded.split(",") if name.strip()],
        no_mcp=bool(getattr(args, "no_mcp", False)),
        approve=args.approve or default_approve,
        session_arg=args.session or None,
        session_dir=Path(args.session_dir) if args.session_dir else None,
        continue_recent=bool(args.continue_ or args.resume),
        no_session=args.no_session,
        no_checkpoints=bool(getattr(args, "no_checkpoints", False)),
        read_only=bool(getattr(args, "read_only", False)),
        system_prompt=args.system_prompt,
        append_system_prompt=args.append_system_prompt,
        api_key=args.api_key,
        trust_project=True if getattr(args, "trust_project", False) else None,
    )


async def create_agent_session(options: SessionOptions) -> AgentSession:
    """Resolve everything and return a ready session (nothing is written yet)."""
    cwd = options.cwd
    settings = options.settings
    if settings is None:
        loaded = await load_settings(cwd)
        settings = loaded.settings
        options.warnings += loaded.errors
    if options.no_checkpoints and settings.checkpoints.enabled:
        settings = settings.model_copy(deep=True)
        settings.checkpoints.enabled = False
    registry = options.registry or await ModelRegistry.load()
    options.warnings += registry.warnings()
    store = await _open_store(options)
    if store.read_only:
        options.warnings.append(read_only_notice(store))
    context = options.context
    if context is None:
        context = await build_context_off_loop(store)
    damage = store.damage_notice()
    if damage is not None:
        options.warnings.append(damage)
    model, thinking = await _choose_model(options, settings, registry, context)
    if options.api_key:  # --api-key applies to the provider of the chosen model
        registry.auth.set_runtime_api_key(model.provider, options.api_key)
    tool_names = _builtin_names(options, settings)
    mode = options.approve or settings.approval.mode
    sandbox = await find_sandbox(cwd, settings.sandbox) if mode == "workspace" else None
    missing = sandbox if isinstance(sandbox, str) else None
    if isinstance(sandbox, Sandbox) and sandbox.notice:
        options.warnings.append(sandbox.notice)
    gate = await _make_gate(cwd, settings, options, missing)
    tools = create_tools(
        cwd,
        tool_names,
        shell_path=settings.shell_path,
        command_prefix=settings.shell_command_prefix,
        check_path=gate.confirm_write,
        sandbox=sandbox if isinstance(sandbox, Sandbox) else None,
        git_grant=gate.git_granted,
    )
    resources = await _load_resources(options, settings)
    context_files = await load_context_files(cwd)
    resources.context_files = [item.path for item in context_files]
    system_prompt = await load_system_prompt(
        cwd,
        [t.name for t in tools],
        system_prompt=options.system_prompt,
        append_system_prompt=options.append_system_prompt,
        skills=resources.skills,
        context_files=context_files,
    )
    redactor = SecretRedactor(registry.auth.known_secrets)
    redact_spill_files_with(registry.auth.known_secrets)
    agent = Agent(
        initial_state=AgentState(
            system_prompt=system_prompt, model=model, thinking_level=thinking, tools=tools
        ),
        stream_fn=options.stream_fn,
        convert_to_llm=_converter(settings),
        get_api_key=registry.auth.get_api_key,
        stream_options=StreamOptions(
            thinking_budgets=settings.thinking_budgets,
            idle_timeout_s=settings.stream_idle_timeout or None,
            retry=provider_retry_policy(settings.retry),
        ),
        session_id=store.session_id,
        steering_mode=settings.steering_mode,
        follow_up_mode=settings.follow_up_mode,
        before_tool_call=lambda call, _params: gate.check(call.id, call.name, call.arguments),
        filter_tool_result=redactor.tool_result,
    )
    session = AgentSession(
        agent=agent,
        store=store,
        settings=settings,
        registry=registry,
        gate=gate,
        cwd=cwd,
        redactor=redactor,
        resources=resources,
    )
    if not options.no_mcp:
        await _attach_mcp(session, options)
    if context.messages:
        agent.replace_messages(context.messages)
        if not store.read_only:
            await _record_changes(session, context.model, context.thinking_level)
    elif not store.read_only:
        await session.record_model_and_thinking()
    return session


async def build_context_off_loop(
    store: SessionStore, *, keep_json: bool = False, one_shot: bool = False
) -> SessionContext:
    """``store``'s context at its leaf (``one_shot``: see :meth:`SessionStore.build_context`).
    Validating a long session's context (~10,000 messages) takes a while: off the loop (a
    short one is quicker on it than a thread's round trip)."""
    if store.entry_count() > LONG_SESSION_ENTRIES:
        return await asyncio.to_thread(store.build_context, keep_json=keep_json, one_shot=one_shot)
    return store.build_context(keep_json=keep_json, one_shot=one_shot)


def _builtin_names(options: SessionOptions, settings: Settings) -> list[str]:
    """The built-in tools asked for: ``mcp__`` entries are MCP's, exclusions removed."""
    wanted = list(options.tools if options.tools is not None else settings.tools or DEFAULT_TOOLS)
    excluded = name_matcher(options.exclude_tools)
    return [n for n in wanted if not is_mcp_tool_name(n) and n != TOOL_SEARCH and not excluded(n)]


async def _attach_mcp(session: AgentSession, options: SessionOptions) -> None:
    """Start the MCP servers (in the background) and give their tools to the session.

    Imported here: a session without servers never loads the MCP runtime.
    """
    from pitui.core.mcp.config import has_mcp_files

    if not await asyncio.to_thread(has_mcp_files, options.cwd):
        return
    from pitui.core.mcp.gate import mcp_rule
    from pitui.core.mcp.setup import open_mcp

    runtime = await open_mcp(
        options.cwd, tools=options.tools, exclude=options.exclude_tools, warnings=options.warnings
    )
    if runtime is not None:
        runtime.attach(session.agent.state)
        session.mcp = runtime
        session.gate.policy.tool_rule = mcp_rule(runtime)


async def _load_resources(options: SessionOptions, settings: Settings) -> LoadedResources:
    """Skills and templates; the project's only when trusted (a notice says what not)."""
    decision = options.trust_project
    if decision is None:
        decision = (await load_trust()).closest_decision(options.cwd, PROJECT_RESOURCES)
    resources = await load_resources(
        options.cwd,
        trusted=decision is True,
        pi_folders=settings.load_pi_resources,
        reserved_names=options.reserved_commands,
    )
    resources.project_trust = decision
    options.warnings += resources.warnings()
    notice = resources.skipped_notice(options.cwd, options.trust_hint)
    if notice is not None:
        options.warnings.append(notice)
    return resources


async def _open_store(options: SessionOptions) -> SessionStore:
    if options.store is not None:
        return options.store
    if options.no_session:
        return SessionStore.in_memory(options.cwd)
    modes = {"read_only": options.read_only, "fallback_read_only": options.fallback_read_only}
    file = options.session_file
    if file is None and options.session_arg is not None:
        file = await asyncio.to_thread(
            resolve_session, options.session_arg, options.cwd, options.session_dir,
            must_exist=False,
        )  # fmt: skip
    if file is not None:
        return await SessionStore.open(file, session_dir=options.session_dir, **modes)
    if options.continue_recent:
        return await SessionStore.continue_recent(options.cwd, options.session_dir, **modes)
    if options.read_only:
        options.warnings.append("--read-only applies to --session FILE or -c; ignored")
    return SessionStore.create(options.cwd, options.session_dir)


async def _choose_model(
    options: SessionOptions,
    settings: Settings,
    registry: ModelRegistry,
    context: SessionContext,
) -> tuple[Model, ThinkingLevel]:
    thinking: ThinkingLevel | None = options.thinking
    model: Model | None = None
    if options.model:
        choice = registry.parse_model_arg(options.model, options.provider)
        model = choice.model
        thinking = thinking or choice.thinking
        if choice.warning:
            options.warnings.append(choice.warning)
    if model is None and context.model is not None:
        model = registry.find(context.model.provider, context.model.model_id)
    if model is None:
        model = await registry.resolve_default(settings.default_provider, settings.default_model)
        problem = registry.default_problem(settings.default_provider, settings.default_model)
        if problem is not None:
            options.warnings.append(f"{problem}; using {model.provider}/{model.id}")
        notice = unconfigured_model_notice(registry, context.model, model)
        if notice is not None:  # an imported session's model this registry lacks
            options.warnings.append(notice)
    if thinking is None:
        level = context.thinking_level if context.leaf_id is not None else None
        thinking = _as_level(level) or settings.default_thinking_level or "off"
    if not model.reasoning:
        thinking = "off"
    return model, thinking


def _as_level(value: str | None) -> ThinkingLevel | None:
    for level in THINKING_LEVELS:
        if value == level:
            return level
    return None


async def _record_changes(
    session: AgentSession, previous_model: ModelRef | None, previous_level: str
) -> None:
    """On resume, record a model or level that differs from the file's (as pi does)."""
    model = session.model
    previous = (previous_model.provider, previous_model.model_id) if previous_model else None
    if model is not None and previous != (model.provider, model.id):
        await session.store.append_model_change(model.provider, model.id)
    if previous_level != session.thinking_level:
        await session.store.append_thinking_level_change(session.thinking_level)


async def _make_gate(
    cwd: Path, settings: Settings, options: SessionOptions, sandbox_missing: str | None
) -> PermissionGate:
    stored, problem = await load_approvals(cwd)
    if problem is not None:
        options.warnings.append(f"remembered approvals not read (everything asks): {problem}")
    policy = PermissionPolicy.from_settings(
        cwd, settings.approval, options.approve, stored=stored, sandbox_missing=sandbox_missing
    )

    async def remember(change: RuleChange) -> None:
        if change.scope == "user":
            problem = await update_global_settings({"approval": {change.key: change.values}})
        else:
            problem = await save_rule_list(cwd, change.key, change.values)
        if problem is not None:  # still allowed for this session, just not remembered
            _log.warning("approval not saved: %s", problem)

    return PermissionGate(policy, options.asker, remember)


def _converter(settings: Settings) -> ConvertToLlm:
    if not settings.images.block_images:
        return convert_to_llm

    def convert_blocking_images(messages: list[AgentMessage]) -> list[Message]:
        return [block_images(m) for m in convert_to_llm(messages)]

    return leaves_input_alone(convert_blocking_images)  # block_images copies what it changes


def block_images(message: Message) -> Message:
    """Replace image blocks with pi's note (consecutive notes collapsed to one)."""
    if not isinstance(message, UserMessage | ToolResultMessage) or isinstance(message.content, str):
        return message
    if not any(isinstance(b, ImageContent) for b in message.content):
        return message
    blocks: list[TextContent | ImageContent] = []
    for block in message.content:
        if isinstance(block, ImageContent):
            if blocks and isinstance(blocks[-1], TextContent) and blocks[-1].text == IMAGES_BLOCKED:
                continue
            blocks.append(TextContent(text=IMAGES_BLOCKED))
        else:
            blocks.append(block)
    return message.model_copy(update={"content": blocks})
