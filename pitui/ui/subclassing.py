"""Textual widget classes created for less (issue 26: the first frame's ~17 pitui widgets).

Every new ``DOMNode`` subclass (a widget, a screen, the app) runs Textual's
``DOMNode.__init_subclass__``, ~1.7 M instructions a class: most of it works out two facts
from scratch, the names of its ``compute_`` methods (a Python pass over ``dir(cls)``,
~700 names) and its reactives (every ``__dict__`` of its MRO). Both are a pure function
of the class's own namespace and its base's facts, which Textual already worked out when
the base was created. :func:`install` puts in a copy of that method which, for a class with
one base that has its own facts, starts from the base's facts instead (the same values, in
the same order); a class with several bases, or a base without its own facts, gets
Textual's full computation, as before.

It is installed only when Textual's method is the one it was written against (the digest
of its code): a Textual whose method differs keeps its own. ``tests/ui/test_subclassing.py``
checks that every widget class of Textual and pitui gets the facts Textual would give it.
The TUI installs it before it imports Textual's widgets (``pitui.cli``).
"""

from __future__ import annotations

from types import CodeType
from typing import Any

from textual.dom import DOMNode
from textual.reactive import Reactive

from pitui.digests import sha256

KNOWN_DIGESTS = frozenset(
    {
        "7f5c1bb7b0402178a868169f247e9115af7af017a55bb362c7e8fef7652836f3",  # 8.x, Python 3.11
        "870113fdd88a00d039c5fcc366814929e925868e779723e9c5ff9054929d2d6d",  # 8.x, Python 3.12
        "17ecc01955933bdfd6685b6222b96913d2c92889ac87acc2a4be8572e10319e7",  # 8.x, Python 3.13
    }
)
"""Digests (:func:`code_digest`) of Textual's ``DOMNode.__init_subclass__`` as this copies
it (the bytecode differs between Python versions)."""
_COMPUTE_PREFIXES = ("_compute_", "compute_")


def code_digest(code: CodeType) -> str:
    """A digest of a function's code: its bytecode, names and constants (nested code
    objects by their own digest: their repr has an address)."""
    digest = sha256(code.co_code)
    digest.update(repr(code.co_names).encode())
    for const in code.co_consts:
        text = code_digest(const) if isinstance(const, CodeType) else repr(const)
        digest.update(text.encode())
    return digest.hexdigest()


def textual_init_subclass() -> Any:
    """Textual's own ``DOMNode.__init_subclass__`` (the function, unbound)."""
    return DOMNode.__dict__["__init_subclass__"].__func__


_ORIGINAL = textual_init_subclass()


def reactives_of(cls: type[DOMNode]) -> dict[str, Reactive[Any]]:
    """What Textual stores as ``cls._reactives``: every reactive of the MRO, the nearest
    class's winning, in the order first met from ``object`` down."""
    parent = _sole_base_with_facts(cls)
    if parent is None:
        reactives: dict[str, Reactive[Any]] = {}
        for base in reversed(cls.__mro__):
            reactives.update(
                {
                    name: value
                    for name, value in base.__dict__.items()
                    if isinstance(value, Reactive)
                }
            )
        return reactives
    reactives = dict(parent.__dict__["_reactives"])
    reactives.update(
        {name: value for name, value in cls.__dict__.items() if isinstance(value, Reactive)}
    )
    return reactives


def computes_of(cls: type[DOMNode]) -> frozenset[str]:
    """What Textual stores as ``cls._computes``: the names of the ``compute_`` methods
    anywhere in ``dir(cls)``."""
    parent = _sole_base_with_facts(cls)
    names = cls.__dict__ if parent is not None else dir(cls)
    own = [name.lstrip("_")[8:] for name in names if name.startswith(_COMPUTE_PREFIXES)]
    if parent is None:
        return frozenset(own)
    computes: frozenset[str] = parent.__dict__["_computes"]
    return computes.union(own) if own else computes


def _sole_base_with_facts(cls: type[DOMNode]) -> type[DOMNode] | None:
    """The class's one base when it has its own reactives and computes (None: several
    bases, or facts only inherited)."""
    if len(cls.__bases__) != 1:
        return None
    parent = cls.__bases__[0]
    facts = parent.__dict__
    if not isinstance(facts.get("_reactives"), dict):
        return None
    if not isinstance(facts.get("_computes"), frozenset):
        return None
    return parent


def _init_subclass(
    cls: type[DOMNode],
    inherit_css: bool = True,
    inherit_bindings: bool = True,
    inherit_component_classes: bool = True,
) -> None:
    """Textual's ``DOMNode.__init_subclass__``, its two facts from the base's (above)."""
    super(DOMNode, cls).__init_subclass__()
    cls._reactives = reactives_of(cls)
    cls._inherit_css = inherit_css
    cls._inherit_bindings = inherit_bindings
    cls._inherit_component_classes = inherit_component_classes
    bases = cls._css_bases(cls)
    cls._css_type_name = bases[0].__name__
    cls._merged_bindings = cls._merge_bindings()
    cls._css_type_names = frozenset(base.__name__ for base in bases)
    cls._computes = computes_of(cls)


def install() -> bool:
    """Put the faster method in, if Textual's is the one it copies (True: installed)."""
    current = textual_init_subclass()
    if current is _init_subclass:
        return True
    if current is not _ORIGINAL or code_digest(current.__code__) not in KNOWN_DIGESTS:
        return False
    DOMNode.__init_subclass__ = classmethod(_init_subclass)  # type: ignore[assignment]
    return True


def uninstall() -> None:
    """Textual's own method again (for tests)."""
    DOMNode.__init_subclass__ = classmethod(_ORIGINAL)  # type: ignore[assignment]
