"""Make model and tool output inert: text only, never terminal control.

Output shown in the UI or printed by the CLI may contain escape sequences (a tool ran
``ls --color``, or a model was tricked into emitting an OSC 52 clipboard write). Textual
would not pass them to the terminal verbatim, but we do not rely on that: every sequence
is removed before display.
"""

from __future__ import annotations

import re
from typing import Any, TextIO

from pitui.lazy_pattern import lazy_pattern

# OSC / DCS / SOS / PM / APC strings run to BEL or ST (ESC \); an unterminated one runs to the end.
_STRING_SEQ = lazy_pattern(
    r"\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\|$)"  # 7-bit introducers
    r"|[\x90\x98\x9d\x9e\x9f][^\x07\x9c]*(?:\x07|\x9c|$)"  # 8-bit (C1) introducers
)
_CSI = lazy_pattern(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?")
_ESC_OTHER = lazy_pattern(r"\x1b[ -/]*[0-~]?")
# C0 controls except tab and newline, DEL, C1 controls, and the interlinear annotation marks.
_CONTROL = lazy_pattern(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ufff9-\ufffb]")
# What may start a sequence: ESC or a C1 control. One regex scan (no Python loop over the
# characters: tool output shown on a resumed screen is tens of thousands of them).
_INTRODUCER = lazy_pattern(r"[\x1b\x80-\x9f]")


def inert(text: str, *, expand_tabs: bool = True) -> str:
    """``text`` with every escape sequence and control character removed.

    Tabs become four spaces (unless ``expand_tabs`` is false: stored output keeps them)
    and CRLF becomes LF; a lone CR is dropped (it would let output overwrite itself).
    """
    if text.isprintable():
        # The usual case, one C scan: no control, escape or format character, no tab, CR
        # or newline (``isprintable`` is false for all of them), so nothing to remove.
        return text
    if _INTRODUCER.search(text):
        text = _STRING_SEQ.sub("", text)
        text = _CSI.sub("", text)
        text = _ESC_OTHER.sub("", text)
    text = text.replace("\r\n", "\n")
    if expand_tabs:
        text = text.replace("\t", "    ")
    return _CONTROL.sub("", text)


# What :func:`visible` spells out: C0/C1 controls, DEL, and the characters that change how
# text around them is drawn or hide text (zero-width, bidi overrides and isolates, BOM,
# line/paragraph separators, interlinear annotation), lone surrogates.
_HIDDEN = lazy_pattern(
    "[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb\ud800-\udfff]"
)
_SPELLED = {"\n": "⏎", "\t": "\\t", "\r": "\\r"}


def _spell(match: re.Match[str]) -> str:
    char = match.group()
    return _SPELLED.get(char) or (
        f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"
    )


def visible(text: str) -> str:
    """``text`` with everything that could hide or fake what it says spelled out.

    For what a user must see exactly before it runs (the approval dialog): a newline is
    ``⏎``, a tab ``\\t``, ESC ``\\x1b``, a bidi override ``\\u202e`` and so on; nothing is
    dropped, so what is shown is what runs, one visible character (or escape) at a time.
    Linear (one regex scan).
    """
    return _HIDDEN.sub(_spell, text) if _HIDDEN.search(text) else text


# JSON writers escape C0 controls but leave DEL and the C1 controls (U+0080-U+009F) raw; a
# terminal may read U+009B as CSI. As UTF-8 a C1 control is the bytes C2 80 … C2 9F.
_JSON_RAW_CONTROL = lazy_pattern(r"[\x7f-\x9f]")
_JSON_RAW_CONTROL_UTF8 = lazy_pattern(rb"\x7f|\xc2[\x80-\x9f]")


def json_inert(text: str) -> str:
    """JSON text made safe for a terminal without changing its data.

    Raw DEL and C1 controls become ``\\u`` escapes, which any JSON reader turns back
    into the same characters.
    """
    if not _JSON_RAW_CONTROL.search(text):
        return text
    return _JSON_RAW_CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def json_inert_bytes(data: bytes) -> bytes:
    """:func:`json_inert` for UTF-8 encoded JSON."""
    if b"\x7f" not in data and b"\xc2" not in data:
        return data  # two memchr scans: ~100x the regex's speed on 20 MB of output
    if not _JSON_RAW_CONTROL_UTF8.search(data):
        return data
    return json_inert(data.decode("utf-8")).encode("utf-8")


class InertStream:
    """A text stream that passes everything written through :func:`inert` (tabs kept).

    The CLI's stdout and stderr outside the TUI (``pitui session …``, ``--export``,
    ``--list-models``, print mode) are wrapped in one, so no code path can forget the
    sanitizer: a label, a file name or a model's text reaches the terminal as text. Each
    write is made inert on its own; a sequence split over two writes loses its ESC in the
    first and is plain text in the second. JSON written here is unchanged: a JSON writer
    escapes C0 controls and :func:`json_inert` the rest. The binary ``buffer`` is the
    real one: whoever writes bytes there makes them safe (:func:`json_inert_bytes`).
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        """Write ``text`` made inert; returns the length of ``text`` (as a stream does)."""
        self._stream.write(inert(text, expand_tabs=False))
        return len(text)

    def writelines(self, lines: Any) -> None:
        """Write each line made inert."""
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        # flush, fileno, isatty, encoding, buffer …: the real stream's.
        return getattr(self._stream, name)
