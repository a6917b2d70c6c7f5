"""Whether the environment configures a proxy: it decides which HTTP path a provider request takes.

With none, the request goes through pitui's asyncio client (:mod:`._wire`); with one,
through httpx (:mod:`._http_proxy`), which reads the same variables to find it.
"""

from __future__ import annotations

import os
import sys


def environment_proxies() -> bool:
    """Whether a proxy is configured, as httpx would find one (``urllib.request.getproxies``).

    On Linux that is the environment's ``*_proxy`` variables, read here the way the
    standard library reads them without importing ``urllib.request`` (``http.client``,
    ``email`` …); elsewhere the system's settings count too, so the library answers.
    """
    if sys.platform != "linux":
        import urllib.request

        return any(scheme != "no" for scheme in urllib.request.getproxies())
    found: dict[str, str] = {}
    for name, value in os.environ.items():
        lower = name.lower()
        if value and lower[-6:] == "_proxy":
            found[lower[:-6]] = value
    if "REQUEST_METHOD" in os.environ:  # CGI: HTTP_PROXY may come from a client header
        found.pop("http", None)
    for name, value in os.environ.items():
        if name[-6:] == "_proxy":
            if value:
                found[name[:-6].lower()] = value
            else:
                found.pop(name[:-6].lower(), None)
    return any(scheme != "no" for scheme in found)
