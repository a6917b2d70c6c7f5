"""Widget classes created through pitui/ui/subclassing.py get exactly the facts Textual's
own ``DOMNode.__init_subclass__`` gives them (checked on every widget class of Textual
and pitui, in a fresh interpreter with the faster method installed first, as the TUI
does)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pitui.ui import subclassing

CHECK = """
import importlib, pkgutil, sys
from pitui.ui import subclassing
assert subclassing.install(), "Textual's method is not the one subclassing.py copies"
import textual.widgets, textual.containers, textual.app, textual.screen
import pitui.ui.launch, pitui.ui.widgets, pitui.ui.screens
for package in (textual.widgets, pitui.ui.widgets, pitui.ui.screens):
    for module in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
        importlib.import_module(module.name)
for name in dir(textual.widgets):  # textual.widgets loads its widgets lazily
    getattr(textual.widgets, name)
from textual.dom import DOMNode

def every(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from every(sub)

FACTS = ("_reactives", "_computes", "_inherit_css", "_inherit_bindings",
         "_inherit_component_classes", "_css_type_name", "_css_type_names", "_merged_bindings")
classes = sorted(set(every(DOMNode)), key=lambda cls: len(cls.__mro__))  # bases first
fast = {cls: {name: cls.__dict__.get(name) for name in FACTS} for cls in classes}
kwargs = {cls: dict(inherit_css=cls._inherit_css, inherit_bindings=cls._inherit_bindings,
                    inherit_component_classes=cls._inherit_component_classes) for cls in classes}
for cls in classes:  # Textual's own computation, from the bases down
    subclassing._ORIGINAL(cls, **kwargs[cls])
wrong = []
for cls in classes:
    for name in FACTS:
        mine, textuals = fast[cls][name], cls.__dict__.get(name)
        if name == "_reactives":
            mine, textuals = list(mine.items()), list(textuals.items())
        elif name == "_merged_bindings":
            mine, textuals = repr(mine), repr(textuals)
        if mine != textuals:
            wrong.append(f"{cls.__module__}.{cls.__qualname__}.{name}")
assert not wrong, wrong
fast_ones = [cls for cls in classes if subclassing._sole_base_with_facts(cls) is not None]
print(len(classes), len(fast_ones))
"""


def test_every_widget_class_gets_textuals_facts() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHECK], check=True, capture_output=True, text=True, timeout=120
    )
    classes, fast = map(int, done.stdout.split())
    assert classes > 150 and fast > classes // 2, "most classes take the fast way"


def test_the_tui_installs_it_before_the_widget_classes() -> None:
    """pitui.cli installs it before it imports the TUI (and Textual's widgets)."""
    if subclassing.code_digest(subclassing._ORIGINAL.__code__) not in (subclassing.KNOWN_DIGESTS):
        pytest.skip("another Textual: its own __init_subclass__ stays (add its digest)")
    probe = (
        "import sys, pitui.cli as cli, importlib\n"
        "real = importlib.import_module\n"
        "def stop(name, *a):\n"
        "    if name == 'pitui.ui.launch':\n"
        "        from textual.dom import DOMNode\n"
        "        from pitui.ui import subclassing\n"
        "        method = DOMNode.__dict__['__init_subclass__'].__func__\n"
        "        assert method is subclassing._init_subclass\n"
        "        assert 'textual.widget' not in sys.modules, 'installed before the widgets load'\n"
        "        raise SystemExit(0)\n"
        "    return real(name, *a)\n"
        "importlib.import_module = stop\n"
        "cli._run_mode('pitui.ui.launch', None)\n"
    )
    subprocess.run([sys.executable, "-c", probe], check=True, timeout=60)
