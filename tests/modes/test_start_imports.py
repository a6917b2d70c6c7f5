"""A print-mode run loads only what it uses (the start-up cost of ``pitui -p``).

A real ``pitui -p`` turn runs in a subprocess against a loopback server; afterwards the
process reports ``sys.modules``. The TUI, the compaction code, the tools that are not
enabled and the edit-diff machinery must not have been imported, nor a CA bundle loaded
(the server is plain ``http://``), nor a model built that waits for its first use.
``--help`` and ``pitui session --help`` stay lighter still.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.modes.loopback import ANTHROPIC_TEXT, write_models
from tests.replay_server import ReplayServer, Reply

PROBE = """
import json, ssl, sys
loads = []  # every CA bundle loaded (httpx's and httpcore's default contexts call this)
real_load = ssl.SSLContext.load_verify_locations
def load_verify_locations(self, *args, **kwargs):
    loads.append(repr(args))
    return real_load(self, *args, **kwargs)
ssl.SSLContext.load_verify_locations = load_verify_locations
import dataclasses, inspect
dataclass_defs = []  # pitui classes made dataclasses (each costs 2-4 M instructions)
real_process_class = dataclasses._process_class
def process_class(cls, *args):
    if cls.__module__.startswith("pitui."):
        dataclass_defs.append(f"{cls.__module__}.{cls.__qualname__}")
    return real_process_class(cls, *args)
dataclasses._process_class = process_class
text_signatures = []  # builtins whose signature was parsed from text (tokenize's pattern)
real_fromstr = inspect._signature_fromstr
def signature_fromstr(cls, obj, *args, **kwargs):
    text_signatures.append(repr(obj))
    return real_fromstr(cls, obj, *args, **kwargs)
inspect._signature_fromstr = signature_fromstr
import re
import_time_patterns = []  # regexes a pitui module compiled while it was imported
real_compile = re.compile
def compile_pattern(pattern, flags=0):
    caller = sys._getframe(1)
    if caller.f_code.co_name == "<module>" and caller.f_globals["__name__"].startswith("pitui."):
        import_time_patterns.append(f"{caller.f_globals['__name__']}:{caller.f_lineno}")
    return real_compile(pattern, flags)
re.compile = compile_pattern
from pitui.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
built = []  # models meant to be built on first use (ON_FIRST_USE) that were built
string_annotated = []  # pitui models whose field annotations are strings
if "pydantic" in sys.modules:
    stack = list(sys.modules["pydantic"].BaseModel.__subclasses__())
    while stack:
        cls = stack.pop()
        stack += cls.__subclasses__()
        if cls.model_config.get("defer_build") and cls.__pydantic_complete__:
            built.append(cls.__qualname__)
        own = cls.__dict__.get("__annotations__", {})
        if cls.__module__.startswith("pitui.") and any(isinstance(a, str) for a in own.values()):
            string_annotated.append(cls.__module__)
tool_module = sys.modules.get("pitui.agent.tool")
schemas_generated = tool_module.computed_schema.cache_info().currsize if tool_module else 0
cache_module = sys.modules.get("pitui.compile_cache")
compile_cache = cache_module.installed() if cache_module else None
regex_module = sys.modules.get("pitui.regex_cache")
regex_cache = regex_module.installed() if regex_module else None
report = {
    "code": code,
    "schemas_generated": schemas_generated,
    "modules": sorted(sys.modules),
    "ca": loads,
    "built": built,
    "dataclasses": dataclass_defs,
    "text_signatures": text_signatures,
    "import_time_patterns": import_time_patterns,
    "string_annotated": sorted(set(string_annotated)),
    "compiled": compile_cache.compiled if compile_cache else None,
    "added": compile_cache.added if compile_cache else None,
    "regex_added": regex_cache.added if regex_cache else None,
}
print("\\nPROBE " + json.dumps(report))
"""

NEVER_IN_PRINT_MODE = (
    "textual",
    "pitui.ui",
    "pitui.core.compaction.apply",
    "pitui.core.compaction.branch",
    "pitui.core.compaction.cut",
    "pitui.core.compaction.summarize",
    "pitui.core.tools.grep",
    "pitui.core.tools.find",
    "pitui.core.tools.ls",
    "pitui.core.tools.gitignore",
    "pitui.core.tools.edit_diff",
    # No proxy is configured: the request goes out through pitui's asyncio client, so
    # no httpx stack (nor httpx's command line: rich, click, pygments) loads.
    "httpx",
    "httpx_sse",
    "httpcore",
    "anyio",
    "h11",
    "rich",
    "click",
    "pygments",
    # pydantic's plugin loader is a stand-in: no distribution metadata is read.
    "importlib.metadata",
    "email",
    # No skills or prompts folder: no frontmatter to parse.
    "yaml",
    # A turn that changes no file takes no checkpoint: the engine stays unloaded.
    "pitui.core.checkpoints.engine",
    "pitui.core.checkpoints.git",
    "pitui.core.checkpoints.snapshot",
    # A new session draws no tree.
    "pitui.core.session.tree_rows",
    # File I/O goes through asyncio.to_thread (aiofiles' wrappers cost ~5 M to import).
    "aiofiles",
    # An ASCII host is its own IDNA form: the codec (with stringprep) stays unloaded.
    "encodings.idna",
    "stringprep",
    # A simple command line is read without argparse (pitui/cli_options.py).
    "argparse",
    "gettext",
    # No MCP server is configured: neither the SDK nor pitui's MCP runtime loads.
    "mcp",
    "mcp_types",
    "pitui.core.mcp.runtime",
    "pitui.core.mcp.client",
)

DATACLASSES_OF_A_TURN = [
    "pitui.core.session.listing.SessionInfo",  # the UI copies it with dataclasses.replace
]
"""The pitui dataclasses a print turn defines. Defining one costs 2-4 M instructions (its
methods are generated source, compiled one by one), a ``msgspec.Struct`` ~0.1 M: a new
internal value type on this path is a Struct (or a ``pitui.records.Record``, which
``dataclasses.replace`` takes: UsageTotals is one); these remain because code elsewhere relies on
``dataclasses.replace`` or on setting attributes that are not fields."""

REAL_ANNOTATIONS = (
    "pitui.ai.types",
    "pitui.ai.events",
    "pitui.ai.models_config",
    "pitui.agent.events",
    "pitui.core.settings",
    "pitui.core.messages",
    "pitui.core.session.entries",
    "pitui.core.session_events",
)
"""Modules holding most of a turn's pydantic fields: written without ``from __future__ import
annotations``, as a string annotation makes pydantic compile a ForwardRef for each field."""


SETTINGS_MODELS = {
    "Settings",
    "CompactionSettings",
    "BranchSummarySettings",
    "RetrySettings",
    "ProviderRetrySettings",
    "ImageSettings",
    "ApprovalSettings",
    "SandboxSettings",
    "CheckpointSettings",
}


def loaded(args: list[str], cwd: Path) -> set[str]:
    """The modules a ``pitui ARGS`` process had imported when it finished (and it loaded
    no CA bundle)."""
    return set(probed(args, cwd)["modules"])


def probed(
    args: list[str], cwd: Path, *, turn: bool = True, used: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """The probe's report of a ``pitui ARGS`` process (checked: it loaded no CA bundle and,
    for a ``turn``, built no model meant to be built on first use but those it ``used``:
    the parameters of a tool the turn called)."""
    no_proxy = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=cwd,
        env=no_proxy,  # a proxy would rightly take the httpx path
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "PROBE " in proc.stdout, proc.stderr
    probe = json.loads(proc.stdout.rsplit("PROBE ", 1)[1])
    assert probe["code"] == 0, proc.stderr
    assert probe["ca"] == []
    if turn:
        # The settings models are built to validate a settings file (write_models writes
        # one); without one (the bench's scenario, below) they are not built either.
        settings_file = (Path(os.environ["PITUI_HOME"]) / "settings.json").is_file()
        built = [m for m in probe["built"] if not (settings_file and m in SETTINGS_MODELS)]
        assert sorted(built) == sorted(used)
    report: dict[str, Any] = probe
    return report


def under(modules: set[str], *packages: str) -> list[str]:
    """The modules that are one of ``packages`` or inside one."""
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in packages))


@pytest.fixture
def server() -> Iterator[ReplayServer]:
    replay = ReplayServer().start()
    yield replay
    replay.stop()


def test_a_print_turn_loads_no_tui_compaction_unused_tools_or_ca_bundle(
    tmp_path: Path, pitui_home: Path, server: ReplayServer
) -> None:
    write_models(pitui_home, server)
    server.add(Reply(body=ANTHROPIC_TEXT))
    modules = loaded(["-p", "--model", "loop/tiny", "hi"], tmp_path)
    assert "pitui.core.tools.read" in modules  # the default tools are there…
    assert "pitui.core.tools.bash" in modules
    assert "pitui.ai.providers.anthropic" in modules  # …and the run really went out
    assert len(server.requests) == 1
    assert under(modules, *NEVER_IN_PRINT_MODE) == []


def test_only_the_enabled_tools_are_imported(
    tmp_path: Path, pitui_home: Path, server: ReplayServer
) -> None:
    write_models(pitui_home, server)
    server.add(Reply(body=ANTHROPIC_TEXT))
    modules = loaded(["-p", "--tools", "read,grep", "--model", "loop/tiny", "hi"], tmp_path)
    tools = under(modules, "pitui.core.tools.bash", "pitui.core.tools.edit")
    tools += under(modules, "pitui.core.tools.write", "pitui.core.tools.find")
    assert tools == []
    assert "pitui.core.tools.grep" in modules


@pytest.mark.parametrize("args", [["--help"], ["session", "--help"], ["--version"]])
def test_help_and_version_load_no_models_or_providers(tmp_path: Path, args: list[str]) -> None:
    modules = loaded(args, tmp_path)
    assert under(modules, "pydantic", "httpx", "asyncio", "textual", "pitui.ai") == []


def _chat_sse(*deltas: dict[str, object], finish: str) -> bytes:
    chunks: list[dict[str, object]] = [
        {"choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas
    ]
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return body.encode()


def test_a_read_then_answer_turn_over_chat_completions_stays_light(
    tmp_path: Path, pitui_home: Path, server: ReplayServer
) -> None:
    """The bench's scenario (bench/startup.py): a read tool call, then the answer."""
    provider = {
        "baseUrl": server.url + "/v1",
        "apiKey": "k",
        "api": "openai-completions",
        "models": [{"id": "tiny"}],
    }
    pitui_home.mkdir(parents=True, exist_ok=True)
    (pitui_home / "models.json").write_text(json.dumps({"providers": {"chat": provider}}))
    (tmp_path / "notes.txt").write_text("green\n")
    arguments = json.dumps({"path": "notes.txt"})
    call = {"index": 0, "id": "c1", "function": {"name": "read", "arguments": arguments}}
    server.add(
        Reply(body=_chat_sse({"role": "assistant", "tool_calls": [call]}, finish="tool_calls")),
        Reply(body=_chat_sse({"content": "It says green."}, finish="stop")),
    )
    report = probed(
        ["-p", "--model", "chat/tiny", "read notes.txt"], tmp_path, used=frozenset({"ReadParams"})
    )
    assert not (pitui_home / "settings.json").exists()  # so no settings model was built
    modules = set(report["modules"])
    assert len(server.requests) == 2  # the tool ran and its result went back
    assert "pitui.ai.providers.openai_completions" in modules
    assert under(modules, *NEVER_IN_PRINT_MODE) == []
    # The cheap class kinds stay cheap (issue 26: the turn is nearly all import work).
    assert sorted(report["dataclasses"]) == DATACLASSES_OF_A_TURN
    assert report["text_signatures"] == []
    # Module-level regexes are lazy_pattern()s: a turn compiles only those it uses.
    assert report["import_time_patterns"] == []
    # The built-in tools' parameter schemas are stored (pitui/core/tools/schemas.py).
    assert report["schemas_generated"] == 0
    assert [m for m in report["string_annotated"] if m in REAL_ANNOTATIONS] == []


def test_a_second_turn_compiles_no_generated_source(
    tmp_path: Path, pitui_home: Path, server: ReplayServer
) -> None:
    """pydantic's dataclasses and annotations are compiled (or taken from the shipped
    seed) on the first start only (pitui/compile_cache.py), the libraries' regular
    expressions too (pitui/regex_cache.py): the next start reads their code from the
    pitui home."""
    write_models(pitui_home, server)
    server.add(Reply(body=ANTHROPIC_TEXT), Reply(body=ANTHROPIC_TEXT))
    first = probed(["-p", "--model", "loop/tiny", "hi"], tmp_path)
    second = probed(["-p", "--model", "loop/tiny", "hi"], tmp_path)
    assert first["added"] > 100  # ~50 dataclasses' methods, ~200 annotations
    assert second["compiled"] == second["added"] == 0
    (stored,) = (pitui_home / "cache").glob("compiled-*.marshal")
    assert oct(stored.stat().st_mode & 0o777) == "0o600"
    # Nor the regular expressions the libraries compile as they load (pitui/regex_cache.py).
    assert first["regex_added"] > 20  # textwrap, string, tokenize, json, fractions …
    assert second["regex_added"] == 0
    (patterns,) = (pitui_home / "cache").glob("regex-*.marshal")
    assert oct(patterns.stat().st_mode & 0o777) == "0o600"


def test_session_context_loads_no_tui_provider_tree_view_or_check(tmp_path: Path) -> None:
    # ``pitui session context FILE``: the agent session the report is computed with, the
    # session code, nothing of the TUI, the providers, the tree view or the file check.
    fixture = Path(__file__).parents[1] / "fixtures" / "pi-oracle" / "before-compaction.v3.jsonl"
    probe = probed(["session", "context", str(fixture), "--json"], tmp_path, turn=False)
    modules = set(probe["modules"])
    assert "pitui.core.context_report" in modules
    unwanted = ["textual", "pitui.ui", "httpx", "pitui.ai.providers", "pitui.core.compaction.apply"]
    unwanted += ["pitui.core.session.tree_view", "pitui.core.session.check"]
    assert under(modules, *unwanted) == []


def test_a_turn_over_plain_http_never_loads_ssl(
    tmp_path: Path, pitui_home: Path, server: ReplayServer
) -> None:
    """asyncio is imported without ssl (pitui/asyncio_import.py: ~14 M instructions of the
    bench's turn); a ``http://`` model never needs it. (The probe above imports ssl itself,
    to watch CA bundles, so this runs the command line bare.)"""
    write_models(pitui_home, server)
    server.add(Reply(body=ANTHROPIC_TEXT))
    script = (
        "import sys\nfrom pitui.cli import main\ncode = main(sys.argv[1:])\n"
        "print('\\nSSL', 'ssl' in sys.modules, 'asyncio' in sys.modules, code)"
    )
    no_proxy = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    proc = subprocess.run(
        [sys.executable, "-c", script, "-p", "--model", "loop/tiny", "hi"],
        cwd=tmp_path,
        env=no_proxy,
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.stdout.rsplit("SSL ", 1)[1].split() == ["False", "True", "0"], proc.stderr
    assert len(server.requests) == 1
