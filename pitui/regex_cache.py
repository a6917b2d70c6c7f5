"""Regular expressions the libraries compile at import, compiled once per machine.

Importing what a ``pitui -p`` turn needs compiles ~40 regular expressions at module level
(``textwrap``, ``string.Template``, ``tokenize``, ``json``, ``fractions``, logging's
format styles …) and a TUI start more (rich, Textual). The ``re`` module parses and
compiles each in Python: ~3 % of a print turn, the same every start. What it hands to the
C engine at the end, ``_sre.compile(pattern, flags, code, groups, groupindex,
indexgroup)``, depends only on the pattern, its flags and the interpreter, so
:func:`install` gives ``re`` a compile step that keeps those arguments in a file of the
pitui home's cache folder and, on a later start, passes them to ``_sre.compile`` at once.
The pattern object is the same: ``_sre.compile`` builds it from the same arguments, and
checks the code it is given (code it rejects is compiled again, as without the file).

The file is code for the regular expression engine: read only when it is the user's own
and nobody else may write it, for this exact interpreter (else ignored); written (0600,
atomically) at exit, only if it lacked a pattern this process compiled. Only patterns
compiled while a module is imported are added (:func:`in_import`): what is compiled later
can come from what someone typed, and is compiled as without the file.

A first start has no file yet: it compiled every one of those patterns (~90 M
instructions of a first screen, 9 %). So the package ships a seed (``regex_seed.marshal``
beside this module, written with the other seeds by ``python -m pitui.ui.css_seed_build``:
what a first start with no key compiles until it is ready for keys). Its code is what this
module would store, and used on the same terms: only for the exact interpreter that wrote
it (``re``'s compiler and the Unicode tables its case folding reads change between
releases; ``_sre.MAGIC`` alone would not say so), unless anyone may write it; a pattern it
lacks (another library version) is simply compiled, and the engine checks the rest.
"""

from __future__ import annotations

import atexit
import importlib
import marshal
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

# ``re``'s private parts, the same from Python 3.11 to 3.13 (untyped: no stubs name them).
_sre: Any = importlib.import_module("_sre")
_compiler: Any = importlib.import_module("re._compiler")
_parser: Any = importlib.import_module("re._parser")
_DEBUG: int = getattr(_compiler, "SRE_FLAG_DEBUG", 128)

FORMAT = 1
SEED_FILE = Path(__file__).with_name("regex_seed.marshal")
_LAZY_PATTERNS = "pitui.lazy_pattern"
MAX_ENTRIES = 2000
"""Entries kept when the file is rewritten: those used by this process, then older ones."""

_Key = tuple[str | bytes, int]
"""(pattern, flags) as ``re`` passes them to its compiler"""
Entries = dict[_Key, bytes]
"""A file's entries: each pattern's engine arguments, marshalled on their own"""
_Args = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]
"""``_sre.compile``'s arguments after the pattern: flags, code, groups - 1, the two indexes"""


class RegexCache:
    """``re``'s compile step, remembering the engine's arguments per (pattern, flags)."""

    def __init__(
        self,
        path: Path | None,
        stored: Entries,
        original: Callable[..., Any],
        keep_new: Callable[[], bool] | None = None,
        seed: Path | None = None,
    ) -> None:
        self.path = path
        self._stored = stored
        """The file's entries, each marshalled on its own: only the used ones are read."""
        self.seed_path = seed
        self._seed: Entries | None = None
        """The shipped seed's entries, read on the first pattern the file lacks."""
        self._used: dict[_Key, _Args] = {}
        self._original = original
        self._keep_new = keep_new or in_import
        """Whether a pattern the file lacks is added to it (see :func:`in_import`)."""
        self.added = 0
        """Patterns the file lacked: it is rewritten at exit."""
        self.compiled = 0
        """Patterns this process compiled for the file (none when the seed had them all)."""

    def compile(self, pattern: Any, flags: int = 0) -> Any:
        """``re._compiler.compile`` for a ``str`` or ``bytes`` pattern and ``int`` flags."""
        if type(pattern) not in (str, bytes) or type(flags) is not int or flags & _DEBUG:
            return self._original(pattern, flags)
        key = (pattern, flags)
        args = self._used.get(key)
        if args is None:
            args = _args_of(self._stored.pop(key, None))
        if args is not None:
            compiled = _checked(pattern, args)
            if compiled is not None:
                self._used[key] = args
                return compiled
        args = self._seeded(key)
        if args is not None:
            compiled = _checked(pattern, args)
            if compiled is not None:  # a package's own pattern: the file keeps it too
                self._used[key] = args
                self.added += 1
                return compiled
        if not self._keep_new():
            return self._original(pattern, flags)
        try:
            args = _engine_args(pattern, flags)
        except Exception:  # a bad pattern (re raises its own error) or another re inside
            return self._original(pattern, flags)
        self._used[key] = args
        self.added += 1
        self.compiled += 1
        return _sre.compile(pattern, *args)

    def _seeded(self, key: _Key) -> _Args | None:
        if self._seed is None:
            self._seed = read_seed(self.seed_path) if self.seed_path is not None else {}
        return _args_of(self._seed.pop(key, None))

    def save(self) -> None:
        """Write the file if this process compiled a pattern it lacked (errors ignored)."""
        if not self.added or self.path is None:
            return
        entries: Entries = {}
        for key, (final_flags, code, groups, groupindex, indexgroup) in self._used.items():
            # The code holds the engine's opcodes as named int constants: plain ints for
            # the file (converted here, at exit, not while the process starts).
            args = (final_flags, list(map(int, code)), groups, groupindex, indexgroup)
            try:
                entries[key] = marshal.dumps(args)
            except ValueError:  # not of the plain types marshal writes: compiled each time
                continue
        for key, raw in self._stored.items():
            if len(entries) >= MAX_ENTRIES:
                break
            if type(raw) is bytes:
                entries.setdefault(key, raw)
        from pitui.private_files import write_private_bytes

        try:
            write_private_bytes(self.path, marshal.dumps((_header(), entries)))
        except (OSError, ValueError):
            return
        self._stored, self.added = entries, 0


def in_import() -> bool:
    """Whether the pattern is a module's own: compiled while a module is imported (its
    top-level code is on the stack), or a pitui module's :func:`pitui.lazy_pattern` on its
    first use. Those are the same on every start, worth keeping. Others may come from what
    the user or the model typed (a search, a ``grep`` pattern, a project's ignore rules):
    they are never written down."""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        name = frame.f_globals.get("__name__")
        if name == _LAZY_PATTERNS or (frame.f_code.co_name == "<module>" and name != "__main__"):
            return True
        frame = frame.f_back
    return False


def _engine_args(pattern: str | bytes, flags: int) -> _Args:
    """What ``re._compiler.compile`` passes to ``_sre.compile`` after the pattern (the
    same steps: parse, generate the code, index the groups both ways)."""
    tree = _parser.parse(pattern, flags)
    code = _compiler._code(tree, flags)
    state = tree.state
    groupindex = state.groupdict
    indexgroup: list[str | None] = [None] * state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    return (int(flags | state.flags), code, state.groups - 1, groupindex, tuple(indexgroup))


def _checked(pattern: str | bytes, args: _Args) -> Any:
    """The pattern built from stored ``args`` (None: code the engine rejects, a damaged
    entry; the pattern is compiled anew)."""
    try:
        return _sre.compile(pattern, *args)
    except Exception:
        return None


def _args_of(raw: object) -> _Args | None:
    """A stored entry's arguments (None: none stored, or not of their shape)."""
    if type(raw) is not bytes:
        return None
    try:
        args = marshal.loads(raw)
    except Exception:  # damaged
        return None
    if type(args) is not tuple or len(args) != 5 or type(args[1]) is not list:
        return None
    return args  # the engine checks the rest


def _header() -> tuple[int, str, int]:
    """What the stored code depends on besides the pattern: this interpreter's engine."""
    return (FORMAT, sys.version, _sre.MAGIC)


def cache_file() -> Path:
    """The file of this interpreter in the pitui home's cache folder."""
    from pitui import paths

    return paths.home() / "cache" / f"regex-{sys.implementation.cache_tag or 'python'}.marshal"


def read_entries(path: Path) -> Entries:
    """The stored entries of ``path`` (empty when missing, damaged, foreign or not private)."""
    from pitui.private_files import read_own_file

    data = read_own_file(path)
    return {} if data is None else _entries_of(data)


def _entries_of(data: bytes) -> Entries:
    """The entries of a file's ``data`` if it was written by this interpreter (else none)."""
    try:
        header, entries = marshal.loads(data)
    except Exception:  # damaged or from another interpreter's marshal format
        return {}
    if header != _header() or type(entries) is not dict:
        return {}
    return entries


def read_seed(path: Path = SEED_FILE) -> Entries:
    """The shipped entries (empty when missing, damaged, for another interpreter, or
    writable by anyone: a group-writable install, umask 002, is as the modules beside it)."""
    from pitui.shipped_files import read_shipped

    data = read_shipped(path)
    return {} if data is None else _entries_of(data)


def seed_bytes(entries: Entries) -> bytes:
    """The seed file for ``entries`` (in a fixed order: str and bytes patterns apart)."""
    ordered = sorted(entries.items(), key=lambda item: (type(item[0][0]) is bytes, item[0]))
    return marshal.dumps((_header(), dict(ordered)))


_installed: RegexCache | None = None


def install(path: Path | None = None, seed: Path | None = SEED_FILE) -> RegexCache:
    """Route ``re``'s compiling through the cache (once per process) and save it at exit."""
    global _installed
    if _installed is not None:
        return _installed
    path = path or cache_file()
    cache = RegexCache(path, read_entries(path), _compiler.compile, seed=seed)
    _compiler.compile = cache.compile
    atexit.register(cache.save)
    _installed = cache
    return cache


def installed() -> RegexCache | None:
    """The process's cache, if :func:`install` was called."""
    return _installed
