"""Import hygiene: layers import only leftwards and only ``pitui.ui`` touches textual.

Layers: ``ai`` → ``agent`` → ``core`` → {``modes`` | ``ui``}. A module may import its own
layer and the layers to its left; ``modes`` and ``ui`` never import each other. The
top-level modules (``cli``, ``__main__``, ``paths``, ``errors``, ``private_files``,
``lazy_pattern``) sit
outside the order; ``cli`` must stay import-light (no textual, no ui, at module level).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "pitui"

LAYER_RANK = {"ai": 0, "agent": 1, "core": 2, "modes": 3, "ui": 3}
HEADLESS = ("ai", "agent", "core", "modes")
# Shared by every layer: the package root (``__version__``), on-disk paths, user errors,
# private (0600/0700) file writing, regexes compiled on first use, immutable records
# without generated code, SHA-256 without OpenSSL.
COMMON = {
    "pitui",
    "pitui.paths",
    "pitui.errors",
    "pitui.private_files",
    "pitui.lazy_pattern",
    "pitui.records",
    "pitui.digests",
}
VIEW = "pitui.ui.view"


@dataclass(frozen=True)
class Import:
    """One imported module name, where it was imported, and whether at module level."""

    module: str
    line: int
    top_level: bool
    maybe_name: bool = False
    """True for ``b`` in ``from a import b``: a submodule only if such a file exists."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def resolve_relative(current: str, is_package: bool, level: int, target: str | None) -> str:
    base = current.split(".")
    if not is_package:
        base.pop()
    for _ in range(level - 1):
        base.pop()
    return ".".join([*base, target] if target else base)


def _import_module_target(node: ast.Call) -> str | None:
    """The constant module name of an ``importlib.import_module("…")`` call."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if name != "import_module" or not node.args:
        return None
    arg = node.args[0]
    return arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else None


def imports_of(path: Path) -> list[Import]:
    """Every module a file imports (any depth, incl. TYPE_CHECKING and import_module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    current = module_name(path)
    is_package = path.name == "__init__.py"
    top_nodes = {id(node) for node in _module_level_nodes(tree)}
    found: list[Import] = []
    for node in ast.walk(tree):
        names: list[str] = []
        maybe_names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = resolve_relative(current, is_package, node.level, node.module)
            # ``from pitui import ui`` imports pitui.ui: count the submodule names too.
            names = [base]
            maybe_names = [f"{base}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Call):
            target = _import_module_target(node)
            names = [target] if target else []
        line = getattr(node, "lineno", 0)
        top = id(node) in top_nodes
        found.extend(Import(name, line, top) for name in names)
        found.extend(Import(name, line, top, maybe_name=True) for name in maybe_names)
    return found


def _module_level_nodes(tree: ast.Module) -> list[ast.AST]:
    """Nodes that run at import time: module statements, not function or class bodies."""
    nodes: list[ast.AST] = []
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        nodes.append(node)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return nodes


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "pitui" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in LAYER_RANK else None


def is_textual(module: str) -> bool:
    return module == "textual" or module.startswith("textual.")


def is_existing_pitui_submodule(module: str) -> bool:
    """``from pitui.x import name`` lists ``pitui.x.name``; keep it only if it is a module."""
    relative = Path(*module.split("."))
    return (ROOT / relative).is_dir() or (ROOT / relative.with_suffix(".py")).is_file()


def is_view_model(module: str) -> bool:
    """``pitui.ui.view``: the pure view model, headless like the layers to its left."""
    return module == VIEW or module.startswith(VIEW + ".")


def _widget_side(imp: Import) -> bool:
    """An import of a ``pitui.ui`` module outside the view model."""
    if layer_of(imp.module) != "ui" or is_view_model(imp.module):
        return False
    return not imp.maybe_name or is_existing_pitui_submodule(imp.module)


def violations_in(path: Path) -> list[str]:
    source = module_name(path)
    layer = layer_of(source)
    problems: list[str] = []
    for imp in imports_of(path):
        where = f"{path.relative_to(ROOT)}:{imp.line}"
        if layer in HEADLESS and is_textual(imp.module):
            problems.append(f"{where} imports textual (only pitui.ui may import textual)")
        if is_view_model(source) and is_textual(imp.module):
            problems.append(f"{where} imports textual (pitui.ui.view is the pure view model)")
        if is_view_model(source) and _widget_side(imp):
            problems.append(f"{where} imports {imp.module} (the view model imports no widget)")
        if layer is None or not imp.module.startswith("pitui."):
            continue
        if imp.maybe_name and not is_existing_pitui_submodule(imp.module):
            continue  # ``from pitui.x.y import name``: a name, not a module
        top = imp.module.split(".")[1]
        if top in ("cli", "__main__"):
            problems.append(f"{where} imports pitui.{top} (layers never import the CLI)")
            continue
        target = layer_of(imp.module)
        if target is None:
            continue
        sideways = target != layer and target in ("modes", "ui")
        if LAYER_RANK[target] > LAYER_RANK[layer] or sideways:
            problems.append(f"{where} imports pitui.{target} ({layer} may not import {target})")
    return list(dict.fromkeys(problems))  # ``from a import b`` yields a and a.b: report once


def cli_violations(path: Path) -> list[str]:
    problems = []
    for imp in imports_of(path):
        if imp.top_level and (is_textual(imp.module) or layer_of(imp.module) == "ui"):
            problems.append(f"{path.relative_to(ROOT)}:{imp.line} imports {imp.module} at load")
    return problems


# --------------------------------------------------------------------------- static checks


def layered_files() -> list[Path]:
    return sorted(
        path for path in PACKAGE.rglob("*.py") if path.relative_to(PACKAGE).parts[0] in LAYER_RANK
    )


def test_there_are_modules_to_check() -> None:
    files = layered_files()
    assert {p.relative_to(PACKAGE).parts[0] for p in files} >= {"ai", "agent", "core"}


def test_layers_import_only_leftwards_and_headless_layers_never_import_textual() -> None:
    problems = [problem for path in layered_files() for problem in violations_in(path)]
    assert problems == []


def test_cli_does_not_import_textual_or_ui_at_module_level() -> None:
    assert cli_violations(PACKAGE / "cli.py") == []
    assert cli_violations(PACKAGE / "__main__.py") == []


@pytest.mark.parametrize(
    ("module_path", "source", "expected"),
    [
        ("pitui/ai/x.py", "from pitui.agent import loop", "ai may not import agent"),
        ("pitui/core/x.py", "import pitui.ui.app", "core may not import ui"),
        ("pitui/modes/x.py", "from pitui.ui import app", "modes may not import ui"),
        ("pitui/ui/x.py", "from ..modes import print_mode", "ui may not import modes"),
        ("pitui/agent/x.py", "from ..core.session import store", "agent may not import core"),
        ("pitui/core/x.py", "def f():\n    import textual\n", "only pitui.ui may import textual"),
        ("pitui/ai/x.py", "importlib.import_module('pitui.core.tools')", "ai may not import core"),
        ("pitui/core/x.py", "from pitui.cli import main", "layers never import the CLI"),
        ("pitui/ui/view/x.py", "from textual.widget import Widget", "pure view model"),
        ("pitui/ui/view/x.py", "def f():\n    import pitui.ui.app\n", "imports no widget"),
    ],
)
def test_the_checker_catches_violations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module_path: str, source: str, expected: str
) -> None:
    root = tmp_path
    file = root / module_path
    file.parent.mkdir(parents=True)
    file.write_text(source, encoding="utf-8")
    monkeypatch.setitem(globals(), "ROOT", root)
    [problem] = violations_in(file)
    assert expected in problem


@pytest.mark.parametrize(
    ("module_path", "source"),
    [
        ("pitui/core/x.py", "from pitui.ai.types import Message\nfrom pitui.agent import tool"),
        ("pitui/ui/x.py", "import textual\nfrom pitui.core import messages"),
        ("pitui/ai/providers/x.py", "from .. import types\nfrom . import demo"),
        ("pitui/modes/x.py", "from pitui import paths, errors\nfrom pitui.paths import home"),
    ],
)
def test_the_checker_allows_leftward_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module_path: str, source: str
) -> None:
    file = tmp_path / module_path
    file.parent.mkdir(parents=True)
    file.write_text(source, encoding="utf-8")
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    assert violations_in(file) == []


def test_cli_checker_ignores_imports_inside_functions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    file = tmp_path / "cli.py"
    file.write_text("def run():\n    import textual\n    import pitui.ui.app\n", encoding="utf-8")
    assert [i.top_level for i in imports_of(file)] == [False, False]
    assert cli_violations(file) == []
    file.write_text("try:\n    import textual\nexcept ImportError:\n    pass\n", encoding="utf-8")
    assert [i.top_level for i in imports_of(file)] == [True]
    assert len(cli_violations(file)) == 1


# --------------------------------------------------------------------------- runtime check

IMPORT_EVERYTHING = """
import importlib, json, pkgutil, sys
imported = []
for name in ("pitui.ai", "pitui.agent", "pitui.core", "pitui.modes", "pitui.ui.view"):
    package = importlib.import_module(name)
    imported.append(name)
    for info in pkgutil.walk_packages(package.__path__, name + "."):
        importlib.import_module(info.name)
        imported.append(info.name)
print(json.dumps({"imported": imported, "textual": sorted(
    m for m in sys.modules if m == "textual" or m.startswith("textual."))}))
"""


def test_headless_packages_never_load_textual() -> None:
    """Import every module of ai, agent, core, modes and the view model in a fresh interpreter."""
    proc = subprocess.run(
        [sys.executable, "-c", IMPORT_EVERYTHING],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "pitui.ai.types" in report["imported"]
    assert "pitui.ai.transform" in report["imported"]
    assert report["textual"] == []


# --------------------------------------------------------------------------- cycles


def all_modules(root: Path) -> dict[str, Path]:
    """Every module of the ``pitui`` package under ``root``, by name."""
    return {module_name(p): p for p in sorted((root / "pitui").rglob("*.py"))}


def resolve_module(name: str, modules: dict[str, Path]) -> str | None:
    """The module an imported name lands in (``pitui.a.b.func`` → ``pitui.a.b``)."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module → the pitui modules it imports, counting every import (module level,
    TYPE_CHECKING, inside functions, ``import_module``). A module's own package (and
    ``pitui`` itself) is left out: importing a submodule runs its package first anyway."""
    modules = all_modules(root)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges = set()
        for imp in imports_of(path):
            target = resolve_module(imp.module, modules)
            if target is None or target == name or target == "pitui":
                continue
            if name.startswith(target + "."):
                continue
            edges.add(target)
        graph[name] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycle_counting_every_import() -> None:
    """A function-level import may defer loading for start-up speed; it never keeps the
    graph acyclic, because it counts here like any other."""
    assert cycles(import_graph(ROOT)) == []


def test_the_cycle_checker_sees_function_level_and_type_checking_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    package = tmp_path / "pitui" / "core" / "session"
    package.mkdir(parents=True)
    for folder in (tmp_path / "pitui", tmp_path / "pitui" / "core", package):
        (folder / "__init__.py").write_text("", encoding="utf-8")
    (package / "listing_ops.py").write_text(
        "from pitui.core.session.listing import rows\n", encoding="utf-8"
    )
    (package / "listing.py").write_text(
        "def rows():\n    from pitui.core.session import listing_ops\n", encoding="utf-8"
    )
    (package / "tail.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pitui.core.session.head\n",
        encoding="utf-8",
    )
    (package / "head.py").write_text("import pitui.core.session.tail\n", encoding="utf-8")
    found = cycles(import_graph(tmp_path))
    assert ["pitui.core.session.listing", "pitui.core.session.listing_ops"] in found
    assert ["pitui.core.session.head", "pitui.core.session.tail"] in found


# --------------------------------------------------------------------------- ranks in the UI

UI_RANKS: tuple[tuple[str, int], ...] = (
    ("pitui.ui.view", 0),
    ("pitui.ui.early_terminal", 0),
    ("pitui.ui.live", 1),
    ("pitui.ui.widgets", 1),
    ("pitui.ui.theme", 1),
    ("pitui.ui.css_cache", 1),
    ("pitui.ui.subclassing", 1),
    ("pitui.ui.strip_caches", 1),
    ("pitui.ui.md_render", 1),
    ("pitui.ui.approval_preview", 1),
    ("pitui.ui.screens", 2),
    ("pitui.ui.host", 3),
    ("pitui.ui.commands", 4),
    ("pitui.ui.controllers", 5),
    ("pitui.ui.app", 6),
    ("pitui.ui.app_themes", 6),
    ("pitui.ui.app_tree_messages", 6),
    ("pitui.ui.launch", 7),
    ("pitui.ui.css_seed_build", 7),
)
"""Inside ``pitui.ui`` a module imports only its own rank or lower: view < live, widgets <
screens < host < commands < controllers < app < launch (the entry point)."""


def ui_rank(module: str) -> int | None:
    for prefix, rank in UI_RANKS:
        if module == prefix or module.startswith(prefix + "."):
            return rank
    return None


def ui_rank_violations(root: Path) -> list[str]:
    problems = []
    for source, targets in import_graph(root).items():
        rank = ui_rank(source)
        if rank is None:
            continue
        for target in sorted(targets):
            target_rank = ui_rank(target)
            if target_rank is not None and target_rank > rank:
                problems.append(f"{source} (rank {rank}) imports {target} (rank {target_rank})")
    return problems


def test_every_ui_module_has_a_rank() -> None:
    unranked = [m for m in all_modules(ROOT) if m.startswith("pitui.ui.") and ui_rank(m) is None]
    assert unranked == []


def test_ui_modules_import_only_their_rank_or_lower() -> None:
    assert ui_rank_violations(ROOT) == []


def names_the_app(path: Path) -> bool:
    """Whether a module's code names ``PituiApp`` (an import, a name, or a string
    annotation such as ``"PituiApp"``); prose in docstrings does not count."""
    return _names_the_app(ast.parse(path.read_text(encoding="utf-8")))


def _names_the_app(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "PituiApp":
            return True
        if isinstance(node, ast.alias) and node.name.split(".")[-1] == "PituiApp":
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if "PituiApp" not in node.value:
                continue
            try:  # a string annotation is an expression; a docstring is not
                annotation = ast.parse(node.value, mode="eval")
            except SyntaxError:
                continue
            if _names_the_app(annotation):
                return True
    return False


def test_nothing_below_the_app_names_it() -> None:
    """Commands and controllers take a ``UiHost``; only the app and the entry point know
    ``PituiApp``."""
    below = [
        name
        for name, path in all_modules(ROOT).items()
        if (ui_rank(name) or 0) < 6 and names_the_app(path) and name.startswith("pitui.ui.")
    ]
    assert below == []


def test_the_rank_and_app_checkers_catch_violations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    ui = tmp_path / "pitui" / "ui"
    for sub in ("screens", "commands"):
        (ui / sub).mkdir(parents=True)
    (ui / "screens" / "x.py").write_text(
        "def f():\n    from pitui.ui.commands import y\n", encoding="utf-8"
    )
    (ui / "commands" / "y.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from pitui.ui.app import PituiApp\n",
        encoding="utf-8",
    )
    (ui / "app.py").write_text("class PituiApp: ...\n", encoding="utf-8")
    problems = ui_rank_violations(tmp_path)
    assert "pitui.ui.screens.x (rank 2) imports pitui.ui.commands.y (rank 4)" in problems
    assert "pitui.ui.commands.y (rank 4) imports pitui.ui.app (rank 6)" in problems
    assert names_the_app(ui / "commands" / "y.py")
    assert not names_the_app(ui / "screens" / "x.py")
