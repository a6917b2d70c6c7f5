"""Import :mod:`asyncio` without :mod:`ssl`; ssl loads when something first imports it.

Why: asyncio imports ssl as it loads (for TLS connections, ``start_tls``), and ssl costs
~25 M instructions (its C module, the OpenSSL libraries' symbols, a dozen enum classes):
3 % of a ``pitui -p`` turn whose model is served over plain ``http://`` (a local Ollama,
vLLM or llama.cpp), which never speaks TLS. Three asyncio modules take ssl with
``try: import ssl / except ImportError: ssl = None`` and read that global when a
connection is made, so asyncio imported while ssl cannot be found simply has ``ssl = None``.

Nothing loses TLS: a one-shot import hook watches for the first ``import ssl`` (pitui's own
:mod:`pitui.ai.tls`, httpx, an MCP client …) and, once ssl has loaded, hands it to every
module that was given ``None`` for it in the meantime, and re-creates the one value
``asyncio.sslproto`` derives from ssl at import (``SSLAgainErrors``), so asyncio is then
exactly as an ordinary import leaves it. Only Pythons whose asyncio was checked to follow
that pattern (3.11–3.13) take this path, and only while no other thread runs (one that
imported ssl during the window would fail); anything else imports asyncio as usual.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from typing import Any

CHECKED_PYTHONS = ((3, 11), (3, 12), (3, 13))
"""Versions whose asyncio takes ssl only as above (base_events, selector_events, sslproto)."""

_given_none: list[types.ModuleType] = []
"""The modules imported while ssl was hidden that hold ``ssl = None``: given ssl later."""


def import_asyncio() -> None:
    """Import asyncio, without ssl when that is safe (see the module's docstring)."""
    if "asyncio" in sys.modules or "ssl" in sys.modules or not _may_hide_ssl():
        import asyncio  # as usual

        return
    before = set(sys.modules)
    sys.modules["ssl"] = None  # type: ignore[assignment]  # import ssl raises ImportError
    try:
        import asyncio  # noqa: F401
    finally:
        del sys.modules["ssl"]
    _given_none[:] = [
        module
        for name in sys.modules.keys() - before
        if (module := sys.modules[name]) is not None and vars(module).get("ssl", ...) is None
    ]
    if _given_none:
        sys.meta_path.insert(0, _FirstSslImport())


def _may_hide_ssl() -> bool:
    if sys.version_info[:2] not in CHECKED_PYTHONS:
        return False
    threading = sys.modules.get("threading")
    return threading is None or threading.active_count() == 1


def ssl_is_pending() -> bool:
    """Whether asyncio was imported without ssl and ssl has not been imported since."""
    return bool(_given_none)


def _hand_over(ssl: types.ModuleType) -> None:
    """Give the loaded ssl to every module that was given ``None`` for it."""
    for module in _given_none:
        if vars(module).get("ssl", ...) is None:
            module.ssl = ssl  # type: ignore[attr-defined]
    sslproto = sys.modules.get("asyncio.sslproto")
    if sslproto is not None and not hasattr(sslproto, "SSLAgainErrors"):
        # What ``if ssl is not None: SSLAgainErrors = (…)`` would have set at import.
        sslproto.SSLAgainErrors = (ssl.SSLWantReadError, ssl.SSLSyscallError)  # type: ignore[attr-defined]
    _given_none.clear()


class _FirstSslImport:
    """A meta-path finder for the first ``import ssl``: it lets the usual finders find
    it, and has :func:`_hand_over` run once the module has loaded. It then leaves."""

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: types.ModuleType | None = None
    ) -> ModuleSpec | None:
        if name != "ssl":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec: ModuleSpec | None = find(name, path, target) if find is not None else None
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None:
            spec.loader = _ThenHandOver(spec.loader)  # type: ignore[assignment]  # a Loader in all but name
        return spec


class _ThenHandOver:
    """ssl's own loader, followed by :func:`_hand_over`; the module keeps its loader."""

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def create_module(self, spec: ModuleSpec) -> types.ModuleType | None:
        made: types.ModuleType | None = self._loader.create_module(spec)
        return made

    def exec_module(self, module: types.ModuleType) -> None:
        module.__loader__ = self._loader
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        _hand_over(module)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)
