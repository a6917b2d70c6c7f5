"""Parse the raw argument text of a tool call while it is still streaming (PI_SPEC §1.6).

pi re-parses the accumulated argument text after every fragment: an empty text is ``{}``,
complete JSON is parsed strictly, anything else goes through npm ``partial-json`` with all
partial kinds allowed, and a text that even that rejects is ``{}``. This module is a
faithful port of that lenient parser, quirks included (its fallbacks cut at the *last*
``e`` or backslash of the whole text, with JS ``substring`` argument swapping), so pitui
shows the same half-built arguments pi shows. It never raises.

Speed matters (it runs once per streamed fragment): complete JSON takes the C fast path of
:func:`json.loads`, and the lenient parser scans strings, numbers and blanks with regular
expressions rather than character by character.
"""

from __future__ import annotations

import json
import math
import re
from json.decoder import scanstring as _scanstring  # type: ignore[attr-defined]
from typing import Any

from pitui.lazy_pattern import lazy_pattern

__all__ = ["JS_WHITESPACE", "parse_final_json", "parse_partial_json", "parse_streaming_json"]

#: What JavaScript's ``String.prototype.trim()`` strips (differs from str.strip(): JS strips
# U+FEFF but not U+001C–U+001F or U+0085).
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)

# Body of a string literal after its opening quote: runs of plain characters and escape
# pairs. It stops at an unescaped quote, at a trailing lone backslash, or at the end.
_STRING_BODY = lazy_pattern(r'[^"\\]*(?:\\.[^"\\]*)*', re.DOTALL)
# The last character of any complete JSON text (NaN/Infinity are not JSON).
_COMPLETE_ENDINGS = frozenset('}]"0123456789el')
_BLANKS = lazy_pattern(r"[ \n\r\t]*")
# partial-json ends a nested number at the next ``,``, ``]`` or ``}`` (or the end).
_NUMBER_TOKEN = lazy_pattern(r"[^,\]}]*")

# Literals partial-json accepts, possibly cut short at the end of the text.
_LITERALS: tuple[tuple[str, Any, int], ...] = (
    ("null", None, 1),
    ("true", True, 1),
    ("false", False, 1),
    ("Infinity", math.inf, 1),
    ("-Infinity", -math.inf, 2),
    ("NaN", math.nan, 1),
)


class _Incomplete(ValueError):
    """partial-json's ``PartialJSON``/``MalformedJSON``/``SyntaxError``: the parse failed."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# ``JSON.parse``: like :func:`json.loads`, but NaN and Infinity are not JSON. Built once:
# ``json.loads`` with a hook would build a decoder on every call.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def _js_json_parse(text: str) -> Any:
    """``JSON.parse`` of ``text``; failures raise :class:`_Incomplete`."""
    try:
        return _DECODER.decode(text)
    except (ValueError, RecursionError) as exc:
        raise _Incomplete(str(exc)) from exc


def _js_substring(text: str, start: int, end: int) -> str:
    """JS ``String.prototype.substring``: negative bounds are 0 and swapped bounds swap."""
    start = max(start, 0)
    end = max(end, 0)
    if start > end:
        start, end = end, start
    return text[start:end]


def parse_streaming_json(text: str | None) -> Any:
    """pi's ``parseStreamingJson``: the best reading of possibly incomplete JSON.

    Args:
        text: The raw argument text accumulated so far.

    Returns:
        ``{}`` for empty or whitespace-only text; the strictly parsed value for complete
        JSON; otherwise what npm ``partial-json`` makes of it (``null`` becomes ``{}``),
        or ``{}`` when that fails too. Never raises.
    """
    if not text or not text.strip(JS_WHITESPACE):
        return {}
    # Complete JSON can only end in one of these; skip the doomed strict parse otherwise.
    if text.rstrip(" \t\n\r")[-1:] in _COMPLETE_ENDINGS:
        try:
            return _DECODER.decode(text)
        except (ValueError, RecursionError):
            pass  # Incomplete or invalid: fall through to the lenient parser.
    try:
        result = parse_partial_json(text)
    except (_Incomplete, RecursionError):
        return {}
    return {} if result is None else result


def parse_final_json(text: str | None) -> tuple[Any, str | None]:
    """The arguments of a tool call whose stream has ended, and what is wrong with them.

    While streaming, half-built arguments are shown as pi shows them; once the call is
    complete, only complete JSON counts. ``{"command": "touch keep_`` followed by the end
    of the call is not a command to run, whatever the lenient parser makes of it: the
    problem is returned (the value is still the lenient reading, for display) and the
    agent answers the call with a tool error. Empty text is ``{}`` (a call without
    arguments).
    """
    if not text or not text.strip(JS_WHITESPACE):
        return {}, None
    try:
        value = _DECODER.decode(text)
    except (ValueError, RecursionError):
        return parse_streaming_json(text), "the arguments are not complete JSON"
    if not isinstance(value, dict):
        return {}, "the arguments are not a JSON object"
    return value, None


def parse_partial_json(text: str) -> Any:
    """npm ``partial-json``'s ``parse(text, Allow.ALL)``.

    Raises:
        ValueError: When the text is empty or the parse fails (as partial-json throws).
    """
    trimmed = text.strip(JS_WHITESPACE)
    if not trimmed:
        raise ValueError("empty input")
    return _Parser(trimmed).parse_any()


class _Parser:
    """partial-json's recursive descent over one trimmed text, with every kind partial."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.length = len(text)
        self.index = 0
        self._closed: str | None = None

    def _scan_str_fast(self) -> str | None:
        """The string at the cursor via the C scanner, or None when it needs the slow path.

        Scanning ``text + '"'`` covers both a closed string (the scanner stops at its quote)
        and a string cut off by the end of the text (the added quote closes it), which is
        what partial-json returns in both cases, as long as every escape in it is valid.
        """
        if self.text[self.index] != '"':
            return None  # partial-json treats any first character as the quote
        if self._closed is None:
            self._closed = self.text + '"'
        value: str
        end: int
        try:
            value, end = _scanstring(self._closed, self.index + 1, True)
        except ValueError:
            return None  # bad escape, control character or trailing backslash
        self.index = min(end, self.length)
        return value

    def skip_blank(self) -> None:
        match = _BLANKS.match(self.text, self.index)
        assert match is not None  # the pattern matches the empty string
        self.index = match.end()

    def char(self) -> str:
        """The character at the cursor, or ``""`` past the end (JS ``undefined``)."""
        return self.text[self.index] if self.index < self.length else ""

    def parse_any(self) -> Any:
        self.skip_blank()
        if self.index >= self.length:
            raise _Incomplete("Unexpected end of input")
        first = self.text[self.index]
        if first == '"':
            return self.parse_str()
        if first == "{":
            return self.parse_obj()
        if first == "[":
            return self.parse_arr()
        literal = self._literal()
        if literal is not _NO_LITERAL:
            return literal
        return self.parse_num()

    def _literal(self) -> Any:
        text, index = self.text, self.index
        rest = self.length - index
        for word, value, min_rest in _LITERALS:
            if text.startswith(word, index) or (
                min_rest <= rest < len(word) and word.startswith(text[index:])
            ):
                self.index += len(word)
                return value
        return _NO_LITERAL

    def parse_str(self) -> str:
        fast = self._scan_str_fast()
        if fast is not None:
            return fast
        text, start = self.text, self.index
        match = _STRING_BODY.match(text, start + 1)
        assert match is not None  # the pattern matches the empty string
        end = match.end()
        if end < self.length and text[end] == '"':
            self.index = end + 1
            value = _js_json_parse(text[start : end + 1])
            if not isinstance(value, str):
                raise _Incomplete("not a string")
            return value
        # Unterminated: the text ends inside the string, maybe right after a backslash.
        self.index = self.length
        escape = end < self.length
        try:
            value = _js_json_parse(text[start : self.length - int(escape)] + '"')
        except _Incomplete:
            # Probably a cut escape sequence: drop everything from the last backslash.
            value = _js_json_parse(_js_substring(text, start, text.rfind("\\")) + '"')
        if not isinstance(value, str):
            raise _Incomplete("not a string")
        return value

    def parse_obj(self) -> dict[str, Any]:
        self.index += 1
        self.skip_blank()
        obj: dict[str, Any] = {}
        try:
            while self.char() != "}":
                self.skip_blank()
                if self.index >= self.length:
                    return obj
                key = self.parse_str()
                self.skip_blank()
                self.index += 1  # the colon, unchecked (as in partial-json)
                try:
                    obj[key] = self.parse_any()
                except _Incomplete:
                    return obj
                self.skip_blank()
                if self.char() == ",":
                    self.index += 1
        except _Incomplete:
            return obj
        self.index += 1
        return obj

    def parse_arr(self) -> list[Any]:
        self.index += 1
        arr: list[Any] = []
        try:
            while self.char() != "]":
                before = self.index
                arr.append(self.parse_any())
                if self.index == before:
                    # A value that consumed nothing would loop forever in partial-json.
                    raise _Incomplete("no progress")
                self.skip_blank()
                if self.char() == ",":
                    self.index += 1
        except _Incomplete:
            return arr
        self.index += 1
        return arr

    def parse_num(self) -> Any:
        text = self.text
        if self.index == 0:
            return self._top_level_num()
        start = self.index
        if text[self.index] == "-":
            self.index += 1
        match = _NUMBER_TOKEN.match(text, self.index)
        assert match is not None  # the pattern matches the empty string
        self.index = match.end()
        token = text[start : self.index]
        try:
            return _js_json_parse(token)
        except _Incomplete:
            if token == "-":
                raise
            # A cut exponent (``1e``, ``1e-``): retry up to the text's last ``e``.
            return _js_json_parse(_js_substring(text, start, text.rfind("e")))

    def _top_level_num(self) -> Any:
        text = self.text
        if text == "-":
            raise _Incomplete("Not sure what '-' is")
        try:
            return _js_json_parse(text)
        except _Incomplete:
            return _js_json_parse(_js_substring(text, 0, text.rfind("e")))


_NO_LITERAL: Any = object()
