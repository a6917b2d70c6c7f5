"""Source text the standard library generates, compiled once per machine, not per start.

Three standard modules compile text they write themselves, on every start: ``dataclasses``
writes each dataclass's ``__init__``, ``__repr__``, ``__eq__``… as source and ``exec``s it,
``typing.ForwardRef`` compiles every string annotation, and ``collections.namedtuple``
``eval``s each named tuple's ``__new__`` (~65 of them, Textual's geometry among them,
before a first screen: ~10 M instructions). Nearly all of it comes from
libraries pitui imports: pydantic and annotated_types define ~50 dataclasses, and
pydantic_core's schema TypedDicts hold ~700 string annotations (~210 distinct). Parsing
and compiling that text was ~130 M instructions of a ``pitui -p`` turn (14 %), more than
the turn itself.

The code object a text compiles to depends only on the text, the mode (``exec`` or
``eval``) and the interpreter, so :func:`install` gives those modules an ``exec``, a
``compile`` and an ``eval`` of their own (module globals shadow the builtins; nothing
else in the process sees them) that look the text up first: in memory (a text seen again
in this process) and in a file of the pitui home's cache folder that keeps what earlier
starts compiled. Each is compiled exactly as the builtin would (no inherited
``__future__`` flags: none of the three modules has any; the interpreter's own
optimisation level, part of the file's name), so the code, and everything built from it,
is the same.

The file holds code, like a ``.pyc``: it is read only when it is the user's own and
nobody else may write it (else, or when it is damaged or from another interpreter, it is
ignored and everything is compiled as without it). It is written (0600, atomically)
when the process ends, only if it lacked something.

A first start has no file yet, so the package ships a seed (``compile_seed.marshal``
beside this module, written with the CSS seed by ``python -m pitui.ui.css_seed_build``:
what a first start with no key compiles up to its first screen, ~75 M instructions). It is
code like the package's own ``.pyc`` files, and used on the same terms: only for the
interpreter whose bytecode it holds (magic number, cache tag, optimisation level) and
unless anyone may write it; a text it lacks (another Textual) is simply compiled.
"""

from __future__ import annotations

import atexit
import builtins
import marshal
import sys
from pathlib import Path
from types import CodeType
from typing import Any

FORMAT = 2
SEED_FILE = Path(__file__).with_name("compile_seed.marshal")
MAX_ENTRIES = 4000
"""Entries kept when the file is rewritten: all those used by this process, then older
ones up to this many (library upgrades leave texts behind that no start asks for)."""

_builtin_compile = builtins.compile
_builtin_exec = builtins.exec
_builtin_eval = builtins.eval

_Key = tuple[str, str]
"""(mode, source text)"""
_Stored = dict[_Key, bytes]
"""A file's entries: each code object marshalled on its own, so that a start unmarshals
only the code it uses (a first screen uses ~200 of a file's 700-1,500 entries; reading
them all was ~9 M instructions). Values are checked when they are used, and dropped
then: the process keeps each entry once, as code if it used it, else as bytes."""


class CompileCache:
    """Code objects by (mode, text): the stored ones and those compiled by this process."""

    def __init__(
        self,
        path: Path | None,
        stored: _Stored | None = None,
        seed: Path | None = None,
    ) -> None:
        self.path = path
        self._stored: _Stored = stored or {}
        self._used: dict[_Key, CodeType] = {}
        self.seed_path = seed
        self._seed: _Stored | None = None
        """The shipped seed's code, read on the first text the file lacks."""
        self.compiled = 0
        """Texts this process had to compile (none on a start like an earlier one)."""
        self.added = 0
        """Texts the file lacked (compiled, or taken from the seed): the file is rewritten."""

    def code(self, source: str, mode: str) -> CodeType:
        """The code of ``source`` compiled in ``mode``, as ``compile`` would make it."""
        key = (mode, source)
        found = self._used.get(key)
        if found is not None:
            return found
        found = _code_of(self._stored.pop(key, None))  # its code now: drop its bytes
        if found is None:
            found = self._seeded(key)
            if found is None:
                found = _builtin_compile(source, "<string>", mode, dont_inherit=True)
                self.compiled += 1
            self.added += 1
        self._used[key] = found
        return found

    def _seeded(self, key: _Key) -> CodeType | None:
        if self._seed is None:
            self._seed = read_seed(self.seed_path) if self.seed_path is not None else {}
        return _code_of(self._seed.pop(key, None))

    def exec_(self, source: Any, globals: Any = None, locals: Any = None, /) -> None:
        """``exec`` for :mod:`dataclasses` (its generated methods' source)."""
        if type(source) is str:
            source = self.code(source, "exec")
        _builtin_exec(source, globals, locals)

    def eval_(self, source: Any, globals: Any = None, locals: Any = None, /) -> Any:
        """``eval`` for :mod:`collections` (each named tuple's ``__new__``, a lambda's
        source). Text ``eval`` itself would treat otherwise (leading blanks, which it
        strips) and a call without globals (it reads the caller's) go to it unchanged."""
        if type(source) is str and globals is not None and source[:1] not in (" ", "\t"):
            source = self.code(source, "eval")
        elif globals is None:
            caller = sys._getframe(1)
            globals, locals = caller.f_globals, caller.f_locals if locals is None else locals
        return _builtin_eval(source, globals, locals)

    def compile_(
        self,
        source: Any,
        filename: Any,
        mode: str,
        flags: int = 0,
        dont_inherit: bool = False,
        optimize: int = -1,
    ) -> Any:
        """``compile`` for :mod:`typing` (string annotations, as ``ForwardRef`` compiles them)."""
        if type(source) is str and filename == "<string>" and not flags and optimize == -1:
            return self.code(source, mode)
        return _builtin_compile(source, filename, mode, flags, dont_inherit, optimize)

    def save(self) -> None:
        """Write the file if it lacked something this process used (at exit; errors are
        ignored: the next start compiles again)."""
        if not self.added or self.path is None:
            return
        entries = {key: marshal.dumps(code) for key, code in self._used.items()}
        for key, raw in self._stored.items():
            if len(entries) >= MAX_ENTRIES:
                break
            if type(raw) is bytes and _is_key(key):
                entries.setdefault(key, raw)
        from pitui.private_files import write_private_bytes

        try:
            write_private_bytes(self.path, marshal.dumps((_header(), entries)))
        except (OSError, ValueError):
            return
        self._stored, self.compiled, self.added = entries, 0, 0


def _header() -> tuple[int, str, str]:
    """What the stored code depends on besides its text: this exact interpreter."""
    return (FORMAT, sys.version, sys.implementation.cache_tag or "")


def _seed_header() -> tuple[int, bytes, str, int]:
    """What the seed's code depends on besides its text: the bytecode's version (as a
    ``.pyc`` file's is checked) and the optimisation level."""
    from importlib.util import MAGIC_NUMBER

    return (FORMAT, MAGIC_NUMBER, sys.implementation.cache_tag or "", sys.flags.optimize)


def _code_of(raw: object) -> CodeType | None:
    """The code of a stored entry (None: no entry, or not marshalled code)."""
    if type(raw) is not bytes:
        return None
    try:
        code = marshal.loads(raw)
    except Exception:  # damaged
        return None
    return code if type(code) is CodeType else None


def _is_key(key: object) -> bool:
    return (
        type(key) is tuple and len(key) == 2 and key[0] in ("exec", "eval") and type(key[1]) is str
    )


def seed_bytes(entries: _Stored, libraries: tuple[tuple[str, str], ...] = ()) -> bytes:
    """The seed file for ``entries`` (sorted: the same entries give the same bytes) and
    the versions of the ``libraries`` whose source they hold (read only by the seed's
    freshness check: a text of another version is simply not found)."""
    return marshal.dumps((_seed_header(), dict(sorted(entries.items())), libraries))


def seed_libraries(path: Path = SEED_FILE) -> object:
    """The library versions a seed file was built with (None: unreadable)."""
    try:
        return marshal.loads(path.read_bytes())[2]
    except Exception:  # missing, damaged, or an older seed without them
        return None


def read_seed(path: Path = SEED_FILE) -> _Stored:
    """The shipped code (empty when missing, damaged, for another interpreter, or
    writable by anyone: a group-writable install, umask 002, is as the modules beside it)."""
    from pitui.shipped_files import read_shipped

    data = read_shipped(path)
    return {} if data is None else _entries_of(data, _seed_header())


def cache_file() -> Path:
    """The file of this interpreter and optimisation level in the pitui home's cache."""
    from pitui import paths

    tag = sys.implementation.cache_tag or "python"
    return paths.home() / "cache" / f"compiled-{tag}-O{sys.flags.optimize}.marshal"


def read_entries(path: Path) -> _Stored:
    """The stored code of ``path`` (empty when missing, damaged, foreign or not private)."""
    from pitui.private_files import read_own_file

    data = read_own_file(path)
    return {} if data is None else _entries_of(data, _header())


def _entries_of(data: bytes, expected: object) -> _Stored:
    """The entries of a file's ``data`` whose header is ``expected`` (else none)."""
    try:
        header, entries = marshal.loads(data)[:2]  # a seed also names its libraries
    except Exception:  # damaged or from another interpreter's marshal format
        return {}
    if header != expected or type(entries) is not dict:
        return {}
    return entries  # each value is checked when used (_code_of), each key when saved


_installed: CompileCache | None = None


def install(path: Path | None = None, seed: Path | None = SEED_FILE) -> CompileCache:
    """Route :mod:`dataclasses`' and :mod:`typing`'s compiling through the cache (once per
    process; before the libraries that define dataclasses are imported) and save it at
    exit. Returns the process's cache."""
    global _installed
    if _installed is not None:
        return _installed
    import collections
    import dataclasses
    import typing

    path = path or cache_file()
    cache = CompileCache(path, read_entries(path), seed)
    dataclasses.exec = cache.exec_  # type: ignore[attr-defined]
    typing.compile = cache.compile_  # type: ignore[attr-defined]
    collections.eval = cache.eval_  # type: ignore[attr-defined]
    atexit.register(cache.save)
    _installed = cache
    return cache


def generated_code(source: str) -> CodeType:
    """The code of ``source``, text pitui generates itself (a record's ``__init__``, the
    view model's copiers: :mod:`pitui.records`, :mod:`pitui.ui.view.evolve`), compiled
    as ``exec`` compiles it. Through the process's cache when :func:`install` was called:
    a first start's notice needs three such texts before its first frame (~1 M
    instructions each to compile), the seed holds them."""
    cache = _installed
    if cache is None:
        return _builtin_compile(source, "<string>", "exec", dont_inherit=True)
    return cache.code(source, "exec")


def installed() -> CompileCache | None:
    """The process's cache, if :func:`install` was called."""
    return _installed
