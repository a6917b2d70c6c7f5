"""Import hygiene: layers import only leftwards and only ``pitui.ui`` touches textual.

Layers: ``ai`` → ``agent`` → ``core`` → {``modes`` | ``ui``}. A module may import its own
layer and the layers to its left; ``modes`` and ``ui`` never import each other. The
top-level modules (``cli``, ``__main__``, ``paths``, ``errors``, ``private_files``) sit
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
# private (0600/0700) file writing.
COMMON = {"pitui", "pitui.paths", "pitui.errors", "pitui.private_files"}
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
