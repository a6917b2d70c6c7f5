"""asyncio imported without ssl (pitui/asyncio_import.py): ssl stays unloaded until something
imports it, and from then on asyncio is exactly as an ordinary import leaves it — TLS works.

Each check runs in a fresh interpreter (the test process has ssl and asyncio loaded)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pitui import asyncio_import

SHAPE = """
import json, sys
def shape():
    '''Every loaded asyncio module's names, and what its ssl-derived names hold.'''
    import ssl
    found = {}
    for name, module in sorted(sys.modules.items()):
        if name.startswith("asyncio") and module is not None:
            names = vars(module)
            found[name] = {
                "names": sorted(names),
                "ssl": names["ssl"] is ssl if "ssl" in names else None,
                "again": repr(names.get("SSLAgainErrors")),
            }
    return found
"""

ORDINARY = (
    SHAPE
    + """
import asyncio, ssl
print(json.dumps(shape()))
"""
)

HIDDEN_THEN_IMPORTED = (
    SHAPE
    + """
from pitui.asyncio_import import import_asyncio, ssl_is_pending
import_asyncio()
import asyncio.base_events, asyncio.selector_events, asyncio.sslproto
assert "ssl" not in sys.modules, "ssl was loaded"
assert asyncio.base_events.ssl is None and asyncio.sslproto.ssl is None
assert not hasattr(asyncio.sslproto, "SSLAgainErrors")
assert ssl_is_pending()
import ssl
assert not ssl_is_pending()
from importlib.machinery import SourceFileLoader
assert type(ssl.__loader__) is SourceFileLoader, ssl.__loader__
assert type(ssl.__spec__.loader) is SourceFileLoader
print(json.dumps(shape()))
"""
)

HANDSHAKE = """
import sys
from pitui.asyncio_import import import_asyncio
import_asyncio()
assert "ssl" not in sys.modules
import asyncio

async def main(cert, key):
    import ssl  # first import: asyncio gets it
    server_side = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_side.load_cert_chain(cert, key)
    client_side = ssl.create_default_context(cafile=cert)

    async def echo(reader, writer):
        writer.write((await reader.readline()).upper())
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(echo, "127.0.0.1", 0, ssl=server_side)
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection(
        "127.0.0.1", port, ssl=client_side, server_hostname="localhost"
    )
    writer.write(b"over tls\\n")
    print((await reader.readline()).decode().strip())
    writer.close()
    server.close()

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


def _python(script: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.skipif(
    sys.version_info[:2] not in asyncio_import.CHECKED_PYTHONS, reason="asyncio is not checked"
)
def test_asyncio_without_ssl_is_an_ordinary_asyncio_once_ssl_is_imported() -> None:
    ordinary = json.loads(_python(ORDINARY))
    hidden = json.loads(_python(HIDDEN_THEN_IMPORTED))
    assert hidden == ordinary
    # What the hand-over restored: every module that takes ssl holds it again.
    holding = sorted(name for name, found in hidden.items() if found["ssl"])
    assert {"asyncio.base_events", "asyncio.selector_events", "asyncio.sslproto"} <= set(holding)
    assert "SSLWantReadError" in hidden["asyncio.sslproto"]["again"]


@pytest.mark.skipif(
    sys.version_info[:2] not in asyncio_import.CHECKED_PYTHONS, reason="asyncio is not checked"
)
def test_a_tls_connection_works_after_asyncio_was_imported_without_ssl(tmp_path: Path) -> None:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
         "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    assert _python(HANDSHAKE, str(cert), str(key)).strip() == "OVER TLS"


def test_with_ssl_or_asyncio_already_loaded_it_is_an_ordinary_import() -> None:
    script = """
import sys, ssl
from pitui.asyncio_import import import_asyncio, ssl_is_pending
import_asyncio()
import asyncio.base_events
assert asyncio.base_events.ssl is ssl and not ssl_is_pending()
print("ok")
"""
    assert _python(script).strip() == "ok"


def test_another_thread_running_means_an_ordinary_import() -> None:
    script = """
import sys, threading
stop = threading.Event()
worker = threading.Thread(target=stop.wait)
worker.start()
from pitui.asyncio_import import import_asyncio
import_asyncio()
stop.set()
worker.join()
print("ssl" in sys.modules)
"""
    assert _python(script).strip() == "True"
