"""The verifying SSL context of https requests, built once and, when asked early, ahead of time.

Building it loads the whole CA bundle (certifi's, or ``SSL_CERT_FILE`` / ``SSL_CERT_DIR``
as httpx honours them): ~70 ms of a print-mode run, spent before the first byte goes
out. It is the same context ``httpx.AsyncClient()`` builds by default (httpx 0.28's
``create_ssl_context()``, made here the same way so that a request without a proxy needs
no httpx at all) — verification is never relaxed — only built at a better time:
:func:`prepare` starts a background thread (``load_verify_locations`` releases the GIL,
so the start-up work goes on beside it), and :func:`context` waits for it. A run that
only talks to ``http://`` never builds one.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ssl  # imported when a context is built: a plain-http run never loads it

_lock = threading.Lock()
_thread: threading.Thread | None = None
_result: ssl.SSLContext | BaseException | None = None


def uses_tls(url: str) -> bool:
    """Whether a request to ``url`` is made over TLS (anything but plain ``http://``)."""
    return url[:7].lower() != "http://"


def prepare(url: str) -> None:
    """Start building the context in the background if requests to ``url`` will need it."""
    global _thread
    if not uses_tls(url):
        return
    with _lock:
        if _thread is None:
            # Imported here, not in the thread: a module imported by two threads at once
            # can deadlock. (ssl is first imported here too, which hands it to asyncio if
            # that was imported without it: pitui.asyncio_import.)
            import ssl  # noqa: F401

            import certifi

            _thread = threading.Thread(
                target=_build, args=(certifi.where(),), name="pitui-tls", daemon=True
            )
            _thread.start()


def context() -> ssl.SSLContext:
    """The context (waiting for a build under way); raises what building it raised."""
    prepare("https://")
    assert _thread is not None
    _thread.join()
    if isinstance(_result, BaseException):
        raise _result
    assert _result is not None
    return _result


def create_default(certifi_bundle: str) -> ssl.SSLContext:
    """httpx's default context (``verify=True, trust_env=True``): ``SSL_CERT_FILE``, else
    ``SSL_CERT_DIR``, else certifi's bundle; the one protocol spoken is HTTP/1.1."""
    import ssl

    if cafile := os.environ.get("SSL_CERT_FILE"):
        context = ssl.create_default_context(cafile=cafile)
    elif capath := os.environ.get("SSL_CERT_DIR"):
        context = ssl.create_default_context(capath=capath)
    else:
        context = ssl.create_default_context(cafile=certifi_bundle)
    context.set_alpn_protocols(["http/1.1"])  # as httpcore sets it for HTTP/1.1
    return context


def _build(certifi_bundle: str) -> None:
    global _result
    try:
        _result = create_default(certifi_bundle)
    except BaseException as exc:  # handed to the caller of context()
        _result = exc


def reset() -> None:
    """Forget the context (tests that change ``SSL_CERT_FILE``)."""
    global _thread, _result
    with _lock:
        if _thread is not None:
            _thread.join()
        _thread, _result = None, None
