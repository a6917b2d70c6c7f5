"""SHA-256 without loading OpenSSL: the start-up caches fingerprint their inputs with it.

``hashlib`` imports ``_hashlib``, which loads libcrypto (~1 ms, more than the rest of a
cache lookup), although CPython's own ``_sha256`` (3.11; ``_sha2`` from 3.12) computes the
same digests. The first frame's fingerprints (the start-up snapshot's key, the parsed-CSS
cache's keys) use this one.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from hashlib import _Hash


def _sha256() -> Callable[[bytes], _Hash]:
    for name in ("_sha256", "_sha2"):  # CPython 3.11, 3.12+
        try:
            return cast("Callable[[bytes], _Hash]", importlib.import_module(name).sha256)
        except (ImportError, AttributeError):
            continue
    from hashlib import sha256  # any other build

    return sha256


sha256 = _sha256()
"""``hashlib.sha256``'s digests (the data as a positional argument)."""
