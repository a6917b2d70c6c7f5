"""Textual's strips without an empty dict in each of their seven caches (idle memory).

Every ``Strip`` (one line of a widget, and every crop, style and filter made of it) holds
seven ``FIFOCache`` objects, and each of those its own dict: 128 bytes a cache, ~900 a
strip, nearly all of them never filled (a strip made by a crop is rarely cropped again).
A 140x40 screen showing a long session holds ~4,600 strips: ~32,000 caches, 4 MB, half
of it empty dicts. :class:`LeanFIFOCache` starts with one shared read-only mapping and
gets a dict of its own on its first entry; the rest is Textual's ``FIFOCache`` (the same
answers, the same first-in-first-out eviction).

It is installed only when Textual's ``FIFOCache`` is the one it was written against (the
digest of its methods' code): a Textual whose cache differs keeps its own. The TUI
installs it before the first strip is made (``pitui.cli``);
``tests/ui/test_strip_caches.py`` checks both caches answer alike.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import textual.strip
from textual.cache import FIFOCache

from pitui.digests import sha256

KNOWN_DIGESTS = frozenset(
    {
        "d1014033d09dfa67a9d0bd216be2cbd851b729d795862e404b790eb2703ae41b",  # 8.x, Python 3.11
        "bef09f65c3bcca29fcaab95e6091850841d9d562f42371fcb06dff84e6c55c6c",  # 8.x, Python 3.12
        "4cef540e46f54424e056074bd580f37cb10379f969b64e1a85aba566b498a1f7",  # 8.x, Python 3.13
    }
)
"""Digests (:func:`fifo_cache_digest`) of Textual's ``FIFOCache`` as this class extends it
(the bytecode differs between Python versions)."""

_METHODS = ("__init__", "__bool__", "__len__", "clear", "keys", "set", "get", "__getitem__",
            "__contains__")  # fmt: skip
"""Every method of ``FIFOCache`` that touches its dict."""

_STRIP_NAMES: dict[str, Any] = vars(textual.strip)
"""The names ``textual.strip`` looks ``FIFOCache`` up in when it makes a strip."""

_NO_ENTRIES: MappingProxyType[Any, Any] = MappingProxyType({})
"""The dict of every cache that has had no entry yet: read-only, so a write that did not
go through :meth:`LeanFIFOCache.set` fails instead of filling every cache at once."""


def fifo_cache_digest(cls: type[Any] = FIFOCache) -> str:
    """A digest of the code of ``cls``'s methods that touch its dict, and of its slots:
    their bytecode, names and constants other than text (docstrings: their repr is most
    of the work, ~0.2 ms a start)."""
    digest = sha256(repr(cls.__dict__.get("__slots__")).encode())
    for name in _METHODS:
        code = getattr(cls.__dict__.get(name), "__code__", None)
        if code is None:
            digest.update(b"-")
            continue
        digest.update(code.co_code)
        digest.update(repr(code.co_names).encode())
        digest.update(repr([c for c in code.co_consts if c.__class__ is not str]).encode())
    digest.update(repr(cls.__dict__.get("__setitem__") is cls.__dict__.get("set")).encode())
    return digest.hexdigest()


class LeanFIFOCache(FIFOCache[Any, Any]):
    """Textual's ``FIFOCache`` whose dict is made on its first entry."""

    __slots__ = ()

    def __init__(self, maxsize: int) -> None:
        self._maxsize = maxsize
        self._cache = _NO_ENTRIES  # type: ignore[assignment]
        self.hits = 0
        self.misses = 0

    def clear(self) -> None:
        self._cache = _NO_ENTRIES  # type: ignore[assignment]

    def set(self, key: Any, value: Any) -> None:
        cache = self._cache
        if cache is _NO_ENTRIES:
            self._cache = {key: value}
            return
        # Textual's own, as it is (a full cache drops its first key).
        if key not in cache and len(cache) >= self._maxsize:
            for first_key in cache:
                cache.pop(first_key)
                break
        cache[key] = value

    __setitem__ = set


def install() -> bool:
    """Make Textual's strips use :class:`LeanFIFOCache`, if its ``FIFOCache`` is the one
    this extends (True: installed)."""
    current = _STRIP_NAMES["FIFOCache"]
    if current is LeanFIFOCache:
        return True
    if current is not FIFOCache or fifo_cache_digest() not in KNOWN_DIGESTS:
        return False
    _STRIP_NAMES["FIFOCache"] = LeanFIFOCache
    return True


def uninstall() -> None:
    """Textual's own caches again (for tests)."""
    _STRIP_NAMES["FIFOCache"] = FIFOCache
