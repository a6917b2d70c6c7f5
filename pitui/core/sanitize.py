"""Make model and tool output inert: text only, never terminal control.

Output shown in the UI or printed by the CLI may contain escape sequences (a tool ran
``ls --color``, or a model was tricked into emitting an OSC 52 clipboard write). Textual
would not pass them to the terminal verbatim, but we do not rely on that: every sequence
is removed before display.
"""

from __future__ import annotations

import re

# OSC / DCS / SOS / PM / APC strings run to BEL or ST (ESC \); an unterminated one runs to the end.
_STRING_SEQ = re.compile(
    r"\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\|$)"  # 7-bit introducers
    r"|[\x90\x98\x9d\x9e\x9f][^\x07\x9c]*(?:\x07|\x9c|$)"  # 8-bit (C1) introducers
)
_CSI = re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?")
_ESC_OTHER = re.compile(r"\x1b[ -/]*[0-~]?")
# C0 controls except tab and newline, DEL, C1 controls, and the interlinear annotation marks.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ufff9-\ufffb]")
# What may start a sequence: ESC or a C1 control. One regex scan (no Python loop over the
# characters: tool output shown on a resumed screen is tens of thousands of them).
_INTRODUCER = re.compile(r"[\x1b\x80-\x9f]")


def inert(text: str, *, expand_tabs: bool = True) -> str:
    """``text`` with every escape sequence and control character removed.

    Tabs become four spaces (unless ``expand_tabs`` is false: stored output keeps them)
    and CRLF becomes LF; a lone CR is dropped (it would let output overwrite itself).
    """
    if not text:
        return text
    if _INTRODUCER.search(text):
        text = _STRING_SEQ.sub("", text)
        text = _CSI.sub("", text)
        text = _ESC_OTHER.sub("", text)
    text = text.replace("\r\n", "\n")
    if expand_tabs:
        text = text.replace("\t", "    ")
    return _CONTROL.sub("", text)


# JSON writers escape C0 controls but leave DEL and the C1 controls (U+0080-U+009F) raw; a
# terminal may read U+009B as CSI. As UTF-8 a C1 control is the bytes C2 80 … C2 9F.
_JSON_RAW_CONTROL = re.compile(r"[\x7f-\x9f]")
_JSON_RAW_CONTROL_UTF8 = re.compile(rb"\x7f|\xc2[\x80-\x9f]")


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
    if not _JSON_RAW_CONTROL_UTF8.search(data):
        return data
    return json_inert(data.decode("utf-8")).encode("utf-8")
