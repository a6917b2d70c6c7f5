"""Module-level regular expressions that compile on their first use, not at import.

Shared by every layer (like ``pitui.paths``): it imports only :mod:`re`.

Compiling a pattern runs :mod:`re`'s parser and compiler in Python: ~1 M instructions for
a typical one. pitui's modules define ~35 patterns at module level and a ``pitui -p`` turn
uses three of them (issue 26: ~27 M instructions, 3 % of the turn, went to the rest). A
:func:`lazy_pattern` stands where ``re.compile`` stood and compiles when a method of it
is first called; from then on the call goes straight to the compiled pattern's method.
"""

from __future__ import annotations

import re
from typing import Any, AnyStr, cast


class _LazyPattern:
    """Holds a pattern's source until an attribute of the compiled pattern is asked for.

    Each attribute asked for is kept on the instance (a bound method of the compiled
    pattern), so a later ``search``/``sub`` … finds it without reaching ``__getattr__``.
    """

    def __init__(self, source: str | bytes, flags: int) -> None:
        self._source = source
        self._flags = flags
        self._compiled: re.Pattern[Any] | None = None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # copy/pickle probes: not the pattern's
            raise AttributeError(name)
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self._source, self._flags)
        value = getattr(compiled, name)
        self.__dict__[name] = value
        return value

    def __repr__(self) -> str:
        return f"lazy_pattern({self._source!r}, {self._flags!r})"


def lazy_pattern(source: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """``re.compile(source, flags)``, done when the pattern is first used.

    For module-level patterns used through their methods (``search``, ``sub``,
    ``fullmatch`` …, and ``pattern``/``flags``); not for passing to ``re.sub`` & co.
    """
    return cast("re.Pattern[AnyStr]", _LazyPattern(source, flags))
