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


def inert(text: str) -> str:
    """``text`` with every escape sequence and control character removed.

    Tabs become four spaces and CRLF becomes LF; a lone CR is dropped (it would let
    output overwrite itself).
    """
    if not text:
        return text
    if _INTRODUCER.search(text):
        text = _STRING_SEQ.sub("", text)
        text = _CSI.sub("", text)
        text = _ESC_OTHER.sub("", text)
    text = text.replace("\r\n", "\n").replace("\t", "    ")
    return _CONTROL.sub("", text)
