"""JavaScript string semantics the estimates and serialisations depend on.

pi measures text with ``String.length`` (UTF-16 code units: an emoji counts 2), slices
with ``String.slice`` (which can split a surrogate pair) and renders tool arguments with
``JSON.stringify`` (no spaces, JS number formatting, integer-like keys first). Python
differs on all of these, so they are re-created here.
"""

from __future__ import annotations

import json
import math
from json.encoder import encode_basestring
from typing import Any

import orjson

from pitui.lazy_pattern import lazy_pattern

_SURROGATE = lazy_pattern("[\ud800-\udfff]")
_INDEX_KEY = lazy_pattern(r"0|[1-9][0-9]*")
_MAX_INDEX = 2**32 - 2
_encode_string = encode_basestring
"""``json.dumps(text, ensure_ascii=False)`` without building an encoder per call (the C
function that call ends in)."""


def utf16_len(text: str) -> int:
    """``text.length`` in JavaScript: UTF-16 code units."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def utf16_slice(text: str, end: int) -> str:
    """``text.slice(0, end)`` in JavaScript (may end in half a surrogate pair, as there)."""
    if text.isascii():
        return text[:end]
    data = text.encode("utf-16-le", "surrogatepass")[: 2 * end]
    return data.decode("utf-16-le", "surrogatepass")


def utf16_sort_key(text: str) -> bytes:
    """Key giving JavaScript's default ``Array.prototype.sort`` order (code-unit order)."""
    return text.encode("utf-16-be", "surrogatepass")


def js_number(value: float) -> str:
    """``String(value)`` for a JavaScript number, as ``JSON.stringify`` writes it."""
    if math.isnan(value) or math.isinf(value):
        return "null"
    if value == 0:
        return "0"
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    sign = "-" if value < 0 else ""
    mantissa, _, exp_text = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    # value = 0.<digits> * 10**point
    point = len(whole) + (int(exp_text) if exp_text else 0)
    point -= len(whole + fraction) - len((whole + fraction).lstrip("0"))
    digits = digits.rstrip("0") or "0"
    count = len(digits)
    if count <= point <= 21:
        body = digits + "0" * (point - count)
    elif 0 < point <= 21:
        body = digits[:point] + "." + digits[point:]
    elif -6 < point <= 0:
        body = "0." + "0" * -point + digits
    else:
        exponent = point - 1
        tail = "." + digits[1:] if count > 1 else ""
        body = f"{digits[0]}{tail}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"
    return sign + body


def _escape_lone_surrogates(encoded: str) -> str:
    # A surrogate left in a Python str is unpaired unless a high one precedes a low one.
    out: list[str] = []
    i = 0
    n = len(encoded)
    while i < n:
        ch = encoded[i]
        code = ord(ch)
        if 0xD800 <= code <= 0xDBFF and i + 1 < n and 0xDC00 <= ord(encoded[i + 1]) <= 0xDFFF:
            out.append(ch + encoded[i + 1])
            i += 2
            continue
        out.append(f"\\u{code:04x}" if 0xD800 <= code <= 0xDFFF else ch)
        i += 1
    return "".join(out)


def js_quote(text: str) -> str:
    """``JSON.stringify(text)`` for a string."""
    encoded = _encode_string(text)
    if not encoded.isascii() and _SURROGATE.search(encoded):
        return _escape_lone_surrogates(encoded)
    return encoded


def js_keys(obj: dict[str, Any]) -> list[str]:
    """JavaScript property order: array-index keys ascending first, then insertion order."""
    keys = list(obj)
    if not any(k[:1].isdigit() for k in keys):  # the usual case, without a regex per key
        return keys
    index_keys = [k for k in keys if _INDEX_KEY.fullmatch(k) and int(k) <= _MAX_INDEX]
    if not index_keys:
        return keys
    rest = [k for k in keys if k not in set(index_keys)]
    return sorted(index_keys, key=int) + rest


_PLAIN = frozenset({str, int, bool, type(None)})
"""Exact classes ``json.dumps`` writes as ``JSON.stringify`` does (floats differ: ``1.0``)."""


def _flat_plain(value: dict[str, Any]) -> bool:
    """A dict of plain values (no float, no nesting) whose keys keep their order in JS."""
    for key, item in value.items():
        if item.__class__ not in _PLAIN or key.__class__ is not str or key[:1].isdigit():
            return False
    return True


def js_stringify(value: Any) -> str:
    """``JSON.stringify(value)`` for JSON-shaped data (dicts, lists, str, numbers, bool, None)."""
    if value.__class__ is dict and _flat_plain(value):
        # Tool-call arguments, mostly: orjson writes these as JSON.stringify does (same
        # escapes, UTF-8 as is) and refuses what it would write otherwise.
        try:
            return orjson.dumps(value).decode()
        except TypeError:  # a lone surrogate (JS escapes it), an integer beyond 64 bits
            pass
    return js_stringify_walk(value)


def js_stringify_walk(value: Any) -> str:
    """:func:`js_stringify` value by value, in Python (what its C fast path must equal)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return js_quote(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return js_number(value)
    if isinstance(value, dict):
        parts = [f"{js_quote(str(k))}:{js_stringify_walk(value[k])}" for k in js_keys(value)]
        return "{" + ",".join(parts) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(js_stringify_walk(v) for v in value) + "]"
    return "null"


def dumps_js_safe(data: Any, *, indent: int | None = None) -> str:
    """``json.dumps`` whose output is valid UTF-8 even when strings hold lone surrogates."""
    text = json.dumps(data, ensure_ascii=False, indent=indent)
    if not text.isascii() and _SURROGATE.search(text):
        return _escape_lone_surrogates(text)
    return text
