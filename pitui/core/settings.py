"""Settings: ``<pitui home>/settings.json`` merged with the project's ``.pitui/settings.json``.

Key names are pi's wherever pi has the setting, so a pi settings file means the same here.
Nested objects merge key by key (project wins), as pi does. An invalid field is reported
(file and field) and dropped; the defaults stand for it and everything else still loads.

A project's file comes with the repository, not from the user: it may narrow permissions,
never widen them. The approval mode (only a stricter one), remembered rules, the shell
(``shellPath``, ``shellCommandPrefix``) and the sandbox (only network off / no ``/tmp``)
come from the user's own file; a project file that tries says so, once per load, naming
the file and the keys (:func:`confine_project`).
"""

# No ``from __future__ import annotations``: pydantic would compile each field's
# annotation string (a ForwardRef) when the class is made, ~50 k instructions a field.

import asyncio
import json
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar

import msgspec
from pydantic import Field, ValidationError

from pitui import paths
from pitui.ai._base import ON_FIRST_USE, PiModel, empty_list, to_camel
from pitui.ai.files import read_config_text
from pitui.ai.options import DEFAULT_BASE_DELAY_MS, DEFAULT_MAX_DELAY_MS, DEFAULT_PROVIDER_RETRIES
from pitui.ai.own_model import set_unvalidated
from pitui.ai.types import ThinkingLevel
from pitui.errors import ConfigError
from pitui.private_files import write_private

QueueMode = Literal["all", "one-at-a-time"]
ApprovalMode = Literal["ask", "workspace", "all", "edits", "none"]


_M = TypeVar("_M", bound=PiModel)


def defaults(cls: type[_M], *, loaded: bool = False) -> _M:
    """What ``cls.load({})`` (``loaded``) or ``cls()`` gives, without validating (every
    field of a settings model has a default). Read from a file, no field counts as set;
    a nested model is made by its ``default_factory``, in code, so each of its fields
    that holds a value does (:meth:`PiModel.model_post_init`)."""
    values: dict[str, Any] = {}
    for name, field in cls.model_fields.items():
        factory = field.default_factory
        if factory is None:
            values[name] = field.default
        elif isinstance(factory, type) and issubclass(factory, PiModel):
            values[name] = defaults(factory)
        else:
            values[name] = factory()  # type: ignore[call-arg]  # no validated-data factories
    fields_set = set() if loaded else {name for name, value in values.items() if value is not None}
    instance = cls.__new__(cls)
    set_unvalidated(instance, values, fields_set)
    return instance


class DefaultsOf(Generic[_M]):
    """A section's ``default_factory``: ``model()`` as :func:`defaults` makes it. A file
    that leaves a section out then validates without building that section's own
    validator too (calling the model would build it, on top of the one ``Settings``
    builds with every section inline)."""

    __slots__ = ("model",)

    def __init__(self, model: type[_M]) -> None:
        self.model = model

    def __call__(self) -> _M:
        return defaults(self.model)


class CompactionSettings(PiModel):
    """Automatic compaction (PI_SPEC §6.1)."""

    model_config = ON_FIRST_USE

    enabled: bool = True
    """Compact automatically when the context nears the window."""
    reserve_tokens: int = 16384
    """Tokens kept free for the prompt and the reply."""
    keep_recent_tokens: int = 20000
    """Recent tokens kept verbatim after a compaction."""


class BranchSummarySettings(PiModel):
    """Summaries written when navigating away from a branch."""

    model_config = ON_FIRST_USE

    reserve_tokens: int = 16384
    """Tokens reserved for the summary prompt and reply."""
    skip_prompt: bool = False
    """Never ask whether to summarise; navigate without a summary."""


class ProviderRetrySettings(PiModel):
    """Retries of one HTTP request before any content arrived (pi 1.6's ``retry.provider``)."""

    model_config = ON_FIRST_USE

    max_retries: int = DEFAULT_PROVIDER_RETRIES
    """Retries of the request itself, before the session's own (pi 1.6 defaults to 0)."""
    max_retry_delay_ms: int | None = None
    """Longest server-requested wait honoured (0: no limit); unset: ``retry.maxDelayMs``."""


class RetrySettings(PiModel):
    """Automatic retry of transient provider errors (PI_SPEC §6.10). The one retry policy:
    the session's retries of a failed reply and each request's own retries (with
    ``provider``) are both built from it (:func:`pitui.core.retry.provider_retry_policy`)."""

    model_config = ON_FIRST_USE

    enabled: bool = True
    """Agent-level retries (pi 1.6's wording): the session runs a turn again, and a
    summary is asked again, after an overloaded / rate-limited / 5xx reply. A request's
    own retries are ``provider.maxRetries`` alone, as in pi 1.6."""
    max_retries: int = 3
    """Attempts before the error is shown."""
    base_delay_ms: int = DEFAULT_BASE_DELAY_MS
    """First back-off delay; doubles each attempt."""
    max_delay_ms: int = DEFAULT_MAX_DELAY_MS
    """Longest server-requested wait that is honoured."""
    provider: ProviderRetrySettings = Field(default_factory=ProviderRetrySettings)


class ImageSettings(PiModel):
    """Images sent to models."""

    model_config = ON_FIRST_USE

    auto_resize: bool = True
    """Shrink large images before sending."""
    block_images: bool = False
    """Replace every image with a note instead of sending it."""


class ApprovalSettings(PiModel):
    """pitui's permission gate (pi has none)."""

    model_config = ON_FIRST_USE

    mode: ApprovalMode = "ask"
    """ask: mutating tools ask; workspace: act inside the cwd, deny outside; all: allow
    everything; edits: allow edits/writes inside the cwd, ask for bash; none: deny all
    mutating tools."""
    allow_tools: list[str] = Field(default_factory=empty_list)
    """Tools always allowed in every project (inside it), from the user's own settings
    only. "Always" answers are kept per project in the pitui home (core/approval_store)."""
    allow_commands: list[str] = Field(default_factory=empty_list)
    """Exact bash commands always allowed in every project (user's settings only)."""
    allow_command_prefixes: list[str] = Field(default_factory=empty_list)
    """bash command prefixes (whole words) always allowed in every project (user's
    settings only). Neither list ever covers a destructive command, shell control, a
    word the shell would expand, or a path outside the project."""


class SandboxSettings(PiModel):
    """The OS sandbox of bash under the ``workspace`` policy (pi has none)."""

    model_config = ON_FIRST_USE

    network: bool = True
    """False: sandboxed commands get no network: Landlock ABI 4+ refuses TCP connect and
    bind, and a seccomp filter refuses every socket family but unix (UDP, raw, packet,
    netlink; x86-64 and aarch64); bwrap: no network namespace at all."""
    writable_paths: list[str] = Field(default_factory=empty_list)
    """Directories writable besides the project and the temp dirs (e.g. ``~/.cache``)."""
    writable_slash_tmp: bool = True
    """``/tmp`` and ``/var/tmp`` are writable as well as ``$TMPDIR`` (false: ``$TMPDIR`` only)."""
    backend: Literal["auto", "landlock", "bwrap"] = "auto"
    """Which sandbox to use: ``auto`` tries Landlock, then bubblewrap."""
    allow_unix_sockets: bool = False
    """True: sandboxed commands may open unix sockets (a seccomp filter refuses
    ``socket(AF_UNIX)`` otherwise); those in the project and ``writablePaths`` are then
    reachable, and so is any outside that is not hidden or covered. The user's own
    settings only: a project's file may turn it off, never on."""


class CheckpointSettings(PiModel):
    """Snapshots of the project's files at every turn, in a private shadow git store."""

    model_config = ON_FIRST_USE

    enabled: bool = True
    """Take checkpoints (off: no snapshot is taken, nothing is restored)."""
    restore: Literal["ask", "always", "never"] = "ask"
    """When moving through the tree reaches other files: ask, restore, or leave them."""
    max_file_bytes: int = Field(default=10 * 1024 * 1024, ge=1)
    """Files larger than this are never snapshotted (nor overwritten by a restore)."""
    max_files: int = Field(default=100_000, ge=1)
    """A project with more files than this has no checkpoints (one notice says so)."""


class Settings(PiModel):
    """All settings. Unknown keys (pi's other settings) are kept and ignored."""

    model_config = ON_FIRST_USE

    default_provider: str | None = None
    """Provider of the default model."""
    default_model: str | None = None
    """Id of the default model."""
    default_thinking_level: ThinkingLevel | None = None
    """Thinking level for new sessions."""
    steering_mode: QueueMode = "one-at-a-time"
    """How many queued steering messages one poll delivers."""
    follow_up_mode: QueueMode = "one-at-a-time"
    """How many queued follow-up messages one poll delivers."""
    theme: str | None = None
    """Theme name (built-in dark / light, or a user theme), or a ``light/dark`` pair."""
    compaction: CompactionSettings = Field(default_factory=DefaultsOf(CompactionSettings))
    branch_summary: BranchSummarySettings = Field(default_factory=DefaultsOf(BranchSummarySettings))
    retry: RetrySettings = Field(default_factory=DefaultsOf(RetrySettings))
    images: ImageSettings = Field(default_factory=DefaultsOf(ImageSettings))
    approval: ApprovalSettings = Field(default_factory=DefaultsOf(ApprovalSettings))
    sandbox: SandboxSettings = Field(default_factory=DefaultsOf(SandboxSettings))
    checkpoints: CheckpointSettings = Field(default_factory=DefaultsOf(CheckpointSettings))
    hide_thinking_block: bool = False
    """Collapse thinking blocks by default."""
    shell_path: str | None = None
    """Shell used by the bash tool and ``!`` commands."""
    shell_command_prefix: str | None = None
    """Prepended to every bash command, e.g. ``shopt -s expand_aliases``."""
    tools: list[str] | None = None
    """Active tool names (default: read, bash, edit, write)."""
    thinking_budgets: dict[str, int] | None = None
    """Token budgets per thinking level for budget-based models."""
    double_escape_action: Literal["fork", "tree", "none"] = "tree"
    """What Esc twice on an empty composer does."""
    tree_filter_mode: Literal["default", "no-tools", "user-only", "labeled-only", "all"] = "default"
    """Initial filter of the tree view."""
    load_pi_resources: bool = True
    """Also load skills and prompt templates from pi's folders (``~/.pi/agent/skills``,
    ``~/.pi/agent/prompts``, ``.pi/skills``, ``.pi/prompts``)."""
    enable_skill_commands: bool = True
    """Offer ``/skill:name`` in command completion (typed ones work either way), as pi."""
    quiet_startup: bool | Literal["header"] = False
    """pi's: true hides the start-up listing of what is loaded."""
    external_editor: str | None = None
    """pi's: the command Ctrl+G opens (else ``$VISUAL``, ``$EDITOR``)."""
    stream_idle_timeout: float = Field(default=120.0, ge=0)
    """Seconds a reply may go without a content event (keep-alives do not count) before
    the turn ends with a retryable "timed out" error; 0: wait as long as the server."""


class LoadedSettings(msgspec.Struct):
    """Merged settings plus the problems found while reading them."""

    settings: Settings
    errors: list[str] = msgspec.field(default_factory=list)
    global_data: dict[str, Any] = msgspec.field(default_factory=dict)
    project_data: dict[str, Any] = msgspec.field(default_factory=dict)


def deep_merge(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """pi's merge: nested objects merge one level, everything else is replaced."""
    result = dict(base)
    for key, value in overrides.items():
        current = result.get(key)
        if isinstance(value, dict) and isinstance(current, dict):
            result[key] = {**current, **value}
        else:
            result[key] = value
    return result


def validate_settings(data: dict[str, Any], source: str) -> tuple[dict[str, Any], list[str]]:
    """Drop every invalid field of ``data``; return the rest and one message per problem."""
    if not data:  # no file, or an empty one: nothing to check
        return {}, []
    errors: list[str] = []
    clean = json.loads(json.dumps(data))
    for _ in range(50):
        try:
            Settings.load(clean)
            return clean, errors
        except ValidationError as exc:
            for error in exc.errors():
                loc = [str(part) for part in error["loc"]]
                errors.append(f"{source}: {'.'.join(loc)}: {error['msg']}")
                _remove_path(clean, error["loc"])
    return {}, errors


def _remove_path(data: Any, loc: tuple[int | str, ...]) -> None:
    for part in loc[:-1]:
        in_dict = isinstance(data, dict) and part in data
        in_list = isinstance(data, list) and isinstance(part, int) and part < len(data)
        if not (in_dict or in_list):
            return
        data = data[part]
    if isinstance(data, dict):
        data.pop(loc[-1], None)
    elif isinstance(data, list) and isinstance(loc[-1], int) and loc[-1] < len(data):
        data.pop(loc[-1])


async def _read_json_object(path: Path) -> tuple[dict[str, Any], list[str]]:
    try:
        text = await read_config_text(path)
    except ConfigError as exc:
        return {}, [str(exc)]
    if text is None:
        return {}, []
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        return {}, [f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"]
    if not isinstance(data, dict):
        return {}, [f"{path}: must contain a JSON object"]
    return data, []


async def load_settings(cwd: Path) -> LoadedSettings:
    """Read global and project settings, merge them, and report invalid fields."""
    global_path = paths.settings_file()
    project_path = paths.project_settings_file(cwd)
    global_raw, errors = await _read_json_object(global_path)
    project_raw, project_errors = await _read_json_object(project_path)
    errors += project_errors
    global_data, global_errors = validate_settings(global_raw, str(global_path))
    project_data, project_field_errors = validate_settings(project_raw, str(project_path))
    errors += global_errors + project_field_errors
    merged = _load(deep_merge(global_data, project_data))
    own, project = _load(global_data), _load(project_data)
    given = _Given(project_data)
    errors += confine_project(merged, own, project, given, (str(project_path), str(global_path)))
    return LoadedSettings(merged, errors, global_raw, project_raw)


def _load(data: dict[str, Any]) -> Settings:
    """``Settings.load(data)`` for validated ``data``.

    The settings models are built on first use (``ON_FIRST_USE``): with no settings file,
    the usual case of a scripted ``pitui -p``, there is nothing to validate, and building
    their validators was ~15 M instructions of the turn. Then the defaults are stored
    exactly as validating ``{}`` would store them (:func:`defaults`).
    """
    return Settings.load(data) if data else defaults(Settings, loaded=True)


_STRICTNESS: dict[str, int] = {"none": 0, "ask": 1, "edits": 2, "workspace": 2, "all": 3}
"""How much each approval mode lets run unasked (edits and workspace are not comparable)."""
_USER_ONLY = ("shell_path", "shell_command_prefix")
_RULE_LISTS = ("allow_tools", "allow_commands", "allow_command_prefixes")
_SANDBOX_SWITCHES = ("network", "writable_slash_tmp", "allow_unix_sockets")
"""Sandbox settings a project's file may turn off but not on."""


class _Given(msgspec.Struct, frozen=True):
    """Which keys the project file itself wrote (by pi's camelCase name or the field's)."""

    data: dict[str, Any]

    def __call__(self, *names: str) -> bool:
        node: Any = self.data
        for name in names:
            if not isinstance(node, dict):
                return False
            key = name if name in node else to_camel(name)
            if key not in node:
                return False
            node = node[key]
        return True


def confine_project(
    merged: Settings, own: Settings, project: Settings, given: _Given, files: tuple[str, str]
) -> list[str]:
    """Undo in ``merged`` what the project's settings may not change; one message per kind.

    ``own`` is the user's settings alone, ``project`` the project file's alone; ``given``
    says which keys the project file wrote; ``files`` are (the project's, the user's).
    """
    source, user_file = files
    widened = _keep_own_shell(merged, own, project, given)
    widened += _keep_own_approval_mode(merged, own, project, given)
    widened += _keep_own_sandbox(merged, own, project, given)
    planted = [
        f"approval.{_alias(ApprovalSettings, n)}"
        for n in _RULE_LISTS
        if given("approval", n) and getattr(project.approval, n)
    ]
    for name in _RULE_LISTS:
        setattr(merged.approval, name, list(getattr(own.approval, name)))
    messages = []
    if widened:
        messages.append(
            f"{source}: ignored {', '.join(widened)}: a project's settings may narrow "
            f"permissions, never widen them (set it in {user_file} if you mean it)"
        )
    if planted:
        messages.append(
            f"{source}: {', '.join(planted)} no longer honoured: rules in a project file "
            "could have been planted by the repository or a command; approve again and "
            'choose "always" to remember them (kept in the pitui home now)'
        )
    return messages


def _alias(model: type[PiModel], name: str) -> str:
    return model.model_fields[name].alias or name


def _keep_own_shell(merged: Settings, own: Settings, project: Settings, given: _Given) -> list[str]:
    ignored = [
        _alias(Settings, name)
        for name in _USER_ONLY
        if given(name) and getattr(project, name) != getattr(own, name)
    ]
    for name in _USER_ONLY:
        setattr(merged, name, getattr(own, name))
    return ignored


def _keep_own_approval_mode(
    merged: Settings, own: Settings, project: Settings, given: _Given
) -> list[str]:
    wanted, mine = project.approval.mode, own.approval.mode
    if not given("approval", "mode") or wanted == mine:
        merged.approval.mode = mine
        return []
    if _STRICTNESS[wanted] < _STRICTNESS[mine]:
        merged.approval.mode = wanted
        return []
    merged.approval.mode = mine
    return [f"approval.mode ({wanted!r})"]


def _keep_own_sandbox(
    merged: Settings, own: Settings, project: Settings, given: _Given
) -> list[str]:
    """The network is on, ``/tmp`` writable and unix sockets allowed only if both files
    agree; the rest is the user's alone."""
    theirs, mine = project.sandbox, own.sandbox
    ignored = []
    if given("sandbox", "writable_paths") and set(theirs.writable_paths) - set(mine.writable_paths):
        ignored.append("sandbox.writablePaths")
    if given("sandbox", "backend") and theirs.backend != mine.backend:
        ignored.append("sandbox.backend")
    for name in _SANDBOX_SWITCHES:
        if given("sandbox", name) and getattr(theirs, name) and not getattr(mine, name):
            ignored.append(f"sandbox.{_alias(SandboxSettings, name)}")
    merged.sandbox = mine.model_copy(
        update={
            name: getattr(mine, name) and getattr(merged.sandbox, name)
            for name in _SANDBOX_SWITCHES
        }
    )
    return ignored


async def update_global_settings(changes: dict[str, Any]) -> str | None:
    """Merge ``changes`` into the global settings, as pi saves the last model picked."""
    return await _update_settings_file(paths.settings_file(), changes)


async def save_theme_choice(name: str) -> str | None:
    """Remember ``/theme NAME`` (or the picker's choice) as pi does: the global ``theme``
    setting, read again at the next start. Returns the problem, or None."""
    return await update_global_settings({"theme": name})


async def _update_settings_file(path: Path, changes: dict[str, Any]) -> str | None:
    """Merge ``changes`` into a settings file, written atomically.

    The file is read again first, so keys written meanwhile (by pi or another pitui) are
    kept. A file that cannot be read as a JSON object is left alone, never overwritten:
    the problem is returned instead (it was already reported when settings loaded).
    """
    current, errors = await _read_json_object(path)
    if errors:
        return errors[0]
    try:
        await write_json_atomic(path, deep_merge(current, changes))
    except OSError as exc:
        return f"{path}: cannot be written: {exc.strerror}"
    return None


async def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON through a temp file and a rename: readers never see half a file.

    The file is 0600 (and, in the pitui home, its folders 0700).
    """
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    await asyncio.to_thread(write_private, path, text)
