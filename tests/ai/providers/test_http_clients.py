"""Which HTTP client a request gets: a verifying TLS client for https, a plain one for http.

The plain client must never cost a CA bundle and never be able to complete a TLS
handshake; the TLS client verifies exactly as httpx does by default.
"""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from pitui.ai import tls
from pitui.ai.providers import _http_proxy as _http

PROXY_VARS = ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")


@pytest.fixture(autouse=True)
def _no_proxies(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(_http, "_clients", {})  # a new loop may reuse an old loop's id
    tls.reset()
    yield
    tls.reset()


def _context(client: httpx.AsyncClient) -> ssl.SSLContext:
    # httpx keeps the context on its transport's connection pool (no public accessor).
    transport = client._transport
    assert isinstance(transport, httpx.AsyncHTTPTransport)
    context = transport._pool._ssl_context
    assert context is not None
    return context


async def test_http_url_gets_a_client_without_ca_bundle_that_cannot_pass_verification() -> None:
    client = _http.shared_client("http://127.0.0.1:9/v1/chat/completions")
    context = _context(client)
    assert context.cert_store_stats()["x509_ca"] == 0
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.check_hostname


async def test_https_url_gets_httpx_default_verification() -> None:
    client = _http.shared_client("https://api.example.com/v1/messages")
    context = _context(client)
    default = httpx.create_ssl_context()
    assert context.cert_store_stats() == default.cert_store_stats()
    assert context.cert_store_stats()["x509_ca"] > 0
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.check_hostname
    assert context.minimum_version == default.minimum_version


async def test_clients_are_shared_per_kind_of_url() -> None:
    plain = _http.shared_client("http://127.0.0.1:9/a")
    secure = _http.shared_client("HTTPS://api.example.com/b")
    assert plain is not secure
    assert _http.shared_client("http://localhost:11434/v1") is plain
    assert _http.shared_client("https://other.example.com/") is secure


async def test_a_proxy_in_the_environment_sends_http_urls_through_the_tls_client(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    secure = _http.shared_client("https://api.example.com/")
    monkeypatch.setenv("HTTPS_PROXY", "https://proxy.example.com:8443")
    assert _http.shared_client("http://127.0.0.1:9/v1") is secure


async def test_prepared_context_is_the_one_used() -> None:
    tls.prepare("https://api.example.com")
    assert _context(_http.shared_client("https://api.example.com/")) is tls.context()


def test_prepare_ignores_plain_http() -> None:
    tls.prepare("http://127.0.0.1:8080/v1")
    assert tls._thread is None


def test_a_broken_ca_setting_fails_the_request_not_the_start(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "missing.pem"))
    tls.prepare("https://api.example.com")  # in the background: nothing raised here
    with pytest.raises(OSError):
        tls.context()
    with pytest.raises(OSError):  # the same failure for every later request
        tls.context()
