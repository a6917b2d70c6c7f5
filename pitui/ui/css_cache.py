"""Textual's parsed CSS rules, kept between starts (issue 26: "CSS parsed once").

Every start parses the same stylesheets: pitui's ``.tcss`` files and the ``DEFAULT_CSS``
of each widget on the first screen (~20 sources, ~6 ms of the first frame, about what a
bare Textual app spends on its whole first frame). The rules a parse yields depend only
on the CSS text, where it was read from, its default/scope/tie-breaker flags, the theme's
variables and Textual itself, so they are stored under a digest of exactly those and read
back (~0.5 ms) on the next start.

The file lives in the pitui home's cache folder (mode 0600, written atomically after the
first frame, in a thread). It is read defensively: a file that is not the user's own or
that others may write is ignored; each entry carries a digest of its bytes (a damaged
entry is parsed afresh); and the entries are unpickled with an allow-list of Textual's CSS
value classes, so a hostile file can name nothing else: no callable outside that list
can run. Anything wrong means a parse, as without the cache; the cache is rewritten when
something had to be parsed.

A first start has no cache yet, so the package ships a seed (``css_seed.pickle`` beside
this module, written by ``python -m pitui.ui.css_seed_build``, a test fails when it is
stale): the rules of the first screen's sources with the default theme, keyed without
install paths and tied to Textual's exact sources (the file digests its wheel's
``RECORD`` lists). It is read with the same allow-list and digests as the user's file,
and only when the user's cache misses.
"""

from __future__ import annotations

import io
import logging
import os
import pickle
import sys
from enum import Enum
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

import textual
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.css.types import CSSLocation

from pitui import paths
from pitui.digests import sha256
from pitui.private_files import read_own_file, write_private_bytes
from pitui.shipped_files import read_shipped

_log = logging.getLogger(__name__)

FORMAT = 1
"""The file's layout (an older or newer one is ignored)."""
MAX_AGE = 8
"""Saves an entry survives without being used (pitui upgrades leave old CSS behind)."""
MAX_ENTRIES = 256
_TEXTUAL_FILES = ("css/parse.py", "css/model.py", "css/styles.py", "css/_styles_builder.py")
"""Textual's parser and rule model: their identity (size, mtime) stands for its version
(``textual.__version__`` asks importlib.metadata, which costs more than it saves)."""

# Module, name pairs an entry may name: Textual's CSS rule model and the values a rule
# holds. Nothing else resolves (see _RulesUnpickler).
_ALLOWED: dict[str, frozenset[str]] = {
    "textual.color": frozenset({"Color"}),
    "textual.css.model": frozenset(
        {
            "CombinatorType",
            "Declaration",
            "RuleSet",
            "Selector",
            "SelectorSet",
            "SelectorType",
            "_check_class",
            "_check_id",
            "_check_type",
            "_check_universal",
        }
    ),
    "textual.css.scalar": frozenset({"Scalar", "ScalarOffset", "Unit"}),
    "textual.css.styles": frozenset({"Styles"}),
    "textual.css.tokenizer": frozenset({"Token", "ReferencedBy"}),
    "textual.geometry": frozenset({"Offset", "Region", "Size", "Spacing"}),
    "textual.layouts.grid": frozenset({"GridLayout"}),
    "textual.layouts.horizontal": frozenset({"HorizontalLayout"}),
    "textual.layouts.stream": frozenset({"StreamLayout"}),
    "textual.layouts.vertical": frozenset({"VerticalLayout"}),
}


SEED_FILE = Path(__file__).with_name("css_seed.pickle")
"""The parsed rules shipped with the package (see the module docstring)."""


def css_cache_file() -> Path:
    """Where the parsed rules live (the pitui home's cache folder)."""
    return paths.home() / "cache" / "textual-css.pickle"


def _textual_identity() -> tuple[object, ...]:
    root = Path(textual.__file__).parent
    found: list[object] = [str(root)]
    for name in _TEXTUAL_FILES:
        try:
            info = os.stat(root / name)
        except OSError:
            found.append(None)
        else:
            found.append((info.st_size, info.st_mtime_ns))
    return tuple(found)


def _attribute(owner: object, name: object) -> object:
    """What pickle's ``getattr`` may do here: an enum member by name, or a dict's ``get``
    / ``__contains__`` (a Styles object keeps both of its rules dict as attributes)."""
    if isinstance(owner, dict) and isinstance(name, str) and name in ("get", "__contains__"):
        return getattr(owner, name)
    if isinstance(owner, type) and issubclass(owner, Enum) and isinstance(name, str):
        member = owner.__members__.get(name)
        if member is not None:
            return member
    raise pickle.UnpicklingError(f"attribute {name!r} is not allowed in the CSS cache")


def _partial(func: object, *args: object, **kwargs: object) -> object:
    """``functools.partial`` of one of the rule model's selector checks only."""
    if not callable(func) or getattr(func, "__module__", None) != "textual.css.model":
        raise pickle.UnpicklingError("partial of a foreign function")
    return partial(func, *args, **kwargs)


class _RulesUnpickler(pickle.Unpickler):
    """Resolves only the allow-listed names (and safe stand-ins for the two helpers
    pickle uses for enum members and selector checks)."""

    _SPECIAL: ClassVar[dict[tuple[str, str], object]] = {
        ("builtins", "getattr"): _attribute,
        ("builtins", "set"): set,
        ("builtins", "frozenset"): frozenset,
        ("functools", "partial"): _partial,
    }

    _resolved: ClassVar[dict[tuple[str, str], object]] = {}
    """Allowed names already looked up (each entry is a pickle of its own)."""

    def find_class(self, module: str, name: str) -> Any:
        found = self._SPECIAL.get((module, name)) or self._resolved.get((module, name))
        if found is not None:
            return found
        if name not in _ALLOWED.get(module, ()):
            raise pickle.UnpicklingError(f"{module}.{name} is not allowed in the CSS cache")
        found = self._resolved[module, name] = super().find_class(module, name)
        return found


class _PlainUnpickler(pickle.Unpickler):
    """The file's outer layer: dicts, tuples, numbers, bytes; no name resolves."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in the CSS cache index")


def _loads_rules(payload: bytes) -> list[RuleSet] | None:
    try:
        rules = _RulesUnpickler(io.BytesIO(payload)).load()
    except Exception:  # a damaged or foreign entry: parse instead
        return None
    if not isinstance(rules, list) or not all(isinstance(rule, RuleSet) for rule in rules):
        return None
    return rules


Entry = tuple[int, bytes, bytes]
"""(saves since last used, sha256 of the payload, the pickled rules)."""


class CssCache:
    """The stored rules of one pitui home: read at start, written after the first frame."""

    def __init__(
        self, path: Path, entries: dict[str, Entry] | None = None, seed: Path | None = SEED_FILE
    ) -> None:
        self.path = path
        self._stored: dict[str, Entry] = entries or {}
        self._used: set[str] = set()
        self._new: dict[str, list[RuleSet]] = {}
        self.textual_identity = _textual_identity()
        self.seed_path = seed
        self._seed: dict[str, Entry] | None = None
        """The shipped entries, read on the first miss (None: not read yet)."""
        self.parsed_for_seed: dict[str, list[RuleSet]] = {}
        """What was parsed, by seed key (what ``css_seed_build`` writes)."""

    @classmethod
    def load(cls, path: Path | None = None) -> CssCache:
        """The cache in ``path`` (empty when missing, damaged, foreign or not private)."""
        path = path or css_cache_file()
        return cls(path, _read_entries(path))

    @property
    def dirty(self) -> bool:
        """Something was parsed that the file does not hold yet."""
        return bool(self._new)

    def get(self, key: str) -> list[RuleSet] | None:
        """The rules stored under ``key`` (None: not stored, or not readable)."""
        rules = _rules_of(self._stored, key)
        if rules is not None:
            self._used.add(key)
        return rules

    def seed_get(self, seed_key: str) -> list[RuleSet] | None:
        """The shipped rules under ``seed_key`` (None: not shipped, or not for this
        Textual)."""
        if self._seed is None:
            self._seed = read_seed(self.seed_path) if self.seed_path is not None else {}
        return _rules_of(self._seed, seed_key)

    def put(self, key: str, rules: list[RuleSet], seed_key: str | None = None) -> None:
        """Remember rules this start had to find (pickled when saved); freshly parsed
        ones by their ``seed_key`` too."""
        self._new[key] = rules
        if seed_key is not None:
            self.parsed_for_seed[seed_key] = rules

    def save(self) -> None:
        """Write the file if something new was parsed (blocking: run it in a thread).
        Entries that cannot be pickled or read back with the allow-list are left out;
        what the event loop parses meanwhile waits for the next save."""
        new = dict(self._new)
        if not new:
            return
        entries: dict[str, Entry] = {}
        for key, (age, digest, payload) in self._stored.items():
            if key in self._used:
                entries[key] = (0, digest, payload)
            elif age + 1 <= MAX_AGE:
                entries[key] = (age + 1, digest, payload)
        for key, rules in new.items():
            try:
                payload = pickle.dumps(rules, protocol=pickle.HIGHEST_PROTOCOL)
            except Exception as exc:  # something Textual added that pickle cannot take
                _log.debug("CSS rules not cached: %s", exc)
                continue
            if _loads_rules(payload) is None:
                _log.debug("CSS rules not cached: they name something off the allow-list")
                continue
            entries[key] = (0, sha256(payload).digest(), payload)
        kept = dict(sorted(entries.items(), key=lambda item: item[1][0])[:MAX_ENTRIES])
        data = pickle.dumps({"format": FORMAT, "entries": kept}, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            write_private_bytes(self.path, data)
        except OSError as exc:
            _log.warning("could not write the CSS cache: %s", exc)
            return
        self._stored = kept
        for key in new:
            self._new.pop(key, None)
        self._used = (self._used | set(new)) & set(kept)


def _rules_of(entries: dict[str, Entry], key: str) -> list[RuleSet] | None:
    """The rules of ``entries[key]`` (a damaged entry is dropped: None)."""
    entry = entries.get(key)
    if entry is None:
        return None
    _age, digest, payload = entry
    rules = _loads_rules(payload) if sha256(payload).digest() == digest else None
    if rules is None:
        del entries[key]
    return rules


def _read_entries(path: Path) -> dict[str, Entry]:
    raw = read_own_file(path)  # None: missing, or others could have written it
    if raw is None:
        return {}
    try:
        data = _PlainUnpickler(io.BytesIO(raw)).load()
    except Exception:  # damaged: start empty
        return {}
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return {}
    entries = data.get("entries")
    if not isinstance(entries, dict):
        return {}
    return _valid_entries(entries)


def _valid_entries(entries: dict[object, object]) -> dict[str, Entry]:
    return {
        key: entry
        for key, entry in entries.items()
        if isinstance(key, str)
        and isinstance(entry, tuple)
        and len(entry) == 3
        and isinstance(entry[0], int)
        and isinstance(entry[1], bytes)
        and isinstance(entry[2], bytes)
    }


def textual_sources_digest(dist_info: str | None = None) -> tuple[str, str] | None:
    """The Textual installed, as a seed names it: (its ``.dist-info`` folder, a digest of
    the lines its wheel's ``RECORD`` has for the parser files, their sha256 and size).
    ``dist_info`` is the folder to read (a seed's own: missing means another Textual).
    None: not a wheel install, or a parser file is not the size ``RECORD`` says (edited
    in place). Like the user's cache (``_textual_identity``), it checks the parser files
    only; the version in the folder's name stands for the rest."""
    root = Path(textual.__file__).parent
    try:
        if dist_info is None:
            found = [
                name
                for name in os.listdir(root.parent)
                if name.startswith("textual-") and name.endswith(".dist-info")
            ]
            if len(found) != 1:
                return None
            dist_info = found[0]
        elif not dist_info.startswith("textual-") or os.sep in dist_info or ".." in dist_info:
            return None
        text = "\n" + (root.parent / dist_info / "RECORD").read_text(encoding="utf-8")
        lines = []
        for name in _TEXTUAL_FILES:
            start = text.find(f"\ntextual/{name},sha256=") + 1
            line = text[start : text.find("\n", start)] if start else ""
            size = line.rpartition(",")[2]
            if not size.isdigit() or int(size) != os.stat(root / name).st_size:
                return None
            lines.append(line)
    except (OSError, UnicodeDecodeError):
        return None
    return dist_info, sha256("\n".join(lines).encode("utf-8")).hexdigest()


def read_seed(path: Path = SEED_FILE) -> dict[str, Entry]:
    """The shipped entries (empty when missing, damaged, made for another Textual or
    writable by anyone: a group-writable install, umask 002, is as the modules beside it)."""
    raw = read_shipped(path)
    if raw is None:  # missing, or anyone could have written it
        return {}
    try:
        data = _PlainUnpickler(io.BytesIO(raw)).load()
    except Exception:  # damaged (any error unpickling can raise): no seed
        return {}
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return {}
    textual_facts = data.get("textual")
    if not isinstance(textual_facts, tuple) or len(textual_facts) != 2:
        return {}
    if textual_sources_digest(str(textual_facts[0])) != textual_facts:
        return {}
    entries = data.get("entries")
    return _valid_entries(entries) if isinstance(entries, dict) else {}


def seed_bytes(rules: dict[str, list[RuleSet]]) -> bytes:
    """The seed file for ``rules`` (by seed key) and the Textual installed now."""
    entries: dict[str, Entry] = {}
    for key, found in sorted(rules.items()):
        payload = pickle.dumps(found, protocol=pickle.HIGHEST_PROTOCOL)
        if _loads_rules(payload) is None:
            raise ValueError("the rules name something off the CSS cache's allow-list")
        entries[key] = (0, sha256(payload).digest(), payload)
    data = {"format": FORMAT, "textual": textual_sources_digest(), "entries": entries}
    return pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)


def _location(read_from: CSSLocation) -> tuple[str, str] | None:
    """``read_from`` without the install path (None: from outside pitui and Textual)."""
    path, name = read_from
    if not path:  # CSS from a string: Textual names it by hash(css), which varies per run
        return ("", "")
    for package, root in (("pitui", _PITUI_ROOT), ("textual", _TEXTUAL_ROOT)):
        if path.startswith(root + os.sep):
            return (f"{package}:{Path(path[len(root) + 1 :]).as_posix()}", name)
    return None


_PITUI_ROOT = str(Path(__file__).resolve().parent.parent)
_TEXTUAL_ROOT = str(Path(textual.__file__).resolve().parent)


def _digest(facts: tuple[object, ...], css: str) -> str:
    digest = sha256(repr(facts).encode("utf-8", "surrogatepass"))
    digest.update(css.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


class CachedStylesheet(Stylesheet):
    """A Textual stylesheet that looks in a :class:`CssCache` before parsing a source."""

    def __init__(self, cache: CssCache, *, variables: dict[str, str] | None = None) -> None:
        super().__init__(variables=variables)
        self.cache = cache
        self._variables_digest: bytes | None = None

    def set_variables(self, variables: dict[str, str]) -> None:
        super().set_variables(variables)
        self._variables_digest = None

    def _variables_hex(self) -> str:
        if self._variables_digest is None:
            text = repr(sorted(self._variables.items())).encode("utf-8", "surrogatepass")
            self._variables_digest = sha256(text).digest()
        return self._variables_digest.hex()

    def _cache_key(
        self, css: str, read_from: CSSLocation, is_default: bool, tie_breaker: int, scope: str
    ) -> str:
        facts = (
            FORMAT,
            sys.version_info[:2],
            self.cache.textual_identity,
            read_from,
            is_default,
            tie_breaker,
            scope,
            self._variables_hex(),
        )
        return _digest(facts, css)

    def _seed_key(
        self, css: str, read_from: CSSLocation, is_default: bool, tie_breaker: int, scope: str
    ) -> str | None:
        """The key in the shipped seed: no install path, no Python or Textual identity
        (the seed file is tied to Textual's sources as a whole)."""
        location = _location(read_from)
        if location is None:
            return None
        facts = ("seed", FORMAT, location, is_default, tie_breaker, scope, self._variables_hex())
        return _digest(facts, css)

    def _parse_rules(
        self,
        css: str,
        read_from: CSSLocation,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        memo_key = (css, read_from, is_default_rules, tie_breaker, scope)
        known = self._parse_cache.get(memo_key)
        if known is not None:
            return known
        key = self._cache_key(css, read_from, is_default_rules, tie_breaker, scope)
        rules = self.cache.get(key)
        if rules is not None:
            self._parse_cache[memo_key] = rules
            return rules
        seed_key = self._seed_key(css, read_from, is_default_rules, tie_breaker, scope)
        rules = self.cache.seed_get(seed_key) if seed_key is not None else None
        if rules is not None:  # a first start: the package's own rules
            self._parse_cache[memo_key] = rules
            self.cache.put(key, rules)
            return rules
        rules = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
        if not any(rule.errors for rule in rules):  # errors are reported from a parse
            self.cache.put(key, rules, seed_key)
        return rules
