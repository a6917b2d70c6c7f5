"""Text matching, replacement and diff rendering behind the ``edit`` tool.

Matching is pi's: exact substring first, else a fuzzy match where both sides are
NFKC-normalised, stripped of trailing whitespace per line, and have smart quotes,
Unicode dashes and special spaces folded to ASCII. When any edit needed the fuzzy
path, replacement happens in the normalised text, so the whole file is written back
normalised (pi does the same). Occurrences are always counted in the fuzzy space.
"""

from __future__ import annotations

import difflib
import itertools
import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from pitui.agent.tool import ToolError

LineEnding = Literal["\r\n", "\n"]

_SINGLE_QUOTES = re.compile("[\u2018\u2019\u201a\u201b]")
_DOUBLE_QUOTES = re.compile("[\u201c\u201d\u201e\u201f]")
_DASHES = re.compile("[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]")
_SPACES = re.compile("[\u00a0\u2002-\u200a\u202f\u205f\u3000]")
BOM = "\ufeff"


@dataclass(frozen=True)
class Edit:
    """One replacement: ``old_text`` must occur exactly once in the file."""

    old_text: str
    new_text: str


def detect_line_ending(content: str) -> LineEnding:
    """CRLF if the first ``\\r\\n`` comes before the first bare ``\\n``, else LF."""
    lf = content.find("\n")
    crlf = content.find("\r\n")
    if lf == -1 or crlf == -1:
        return "\n"
    return "\r\n" if crlf < lf else "\n"


def normalize_to_lf(text: str) -> str:
    """CRLF and lone CR become LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def restore_line_endings(text: str, ending: LineEnding) -> str:
    """LF text back to the file's original line ending."""
    return text.replace("\n", "\r\n") if ending == "\r\n" else text


def strip_bom(content: str) -> tuple[str, str]:
    """``(bom, text)``: the UTF-8 BOM if present (models never include it) and the rest."""
    if content.startswith(BOM):
        return BOM, content[1:]
    return "", content


def normalize_for_fuzzy_match(text: str) -> str:
    """pi's fuzzy form: NFKC, trailing whitespace stripped per line, ASCII quotes/dashes/spaces."""
    text = unicodedata.normalize("NFKC", text)
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    text = _SINGLE_QUOTES.sub("'", text)
    text = _DOUBLE_QUOTES.sub('"', text)
    text = _DASHES.sub("-", text)
    return _SPACES.sub(" ", text)


@dataclass(frozen=True)
class _Match:
    index: int
    length: int
    fuzzy: bool


def _find(content: str, old_text: str) -> _Match | None:
    """Exact match first, then fuzzy (index into the normalised content)."""
    index = content.find(old_text)
    if index != -1:
        return _Match(index, len(old_text), fuzzy=False)
    fuzzy_old = normalize_for_fuzzy_match(old_text)
    index = normalize_for_fuzzy_match(content).find(fuzzy_old) if fuzzy_old else -1
    if index == -1:
        return None
    return _Match(index, len(fuzzy_old), fuzzy=True)


def _not_found(path: str, index: int, total: int) -> ToolError:
    if total == 1:
        return ToolError(
            f"Could not find the exact text in {path}. The old text must match exactly "
            "including all whitespace and newlines."
        )
    return ToolError(
        f"Could not find edits[{index}] in {path}. The oldText must match exactly "
        "including all whitespace and newlines."
    )


def _duplicate(path: str, index: int, total: int, count: int) -> ToolError:
    if total == 1:
        return ToolError(
            f"Found {count} occurrences of the text in {path}. The text must be unique. "
            "Please provide more context to make it unique."
        )
    return ToolError(
        f"Found {count} occurrences of edits[{index}] in {path}. Each oldText must be unique. "
        "Please provide more context to make it unique."
    )


def _no_change(path: str, total: int) -> ToolError:
    if total == 1:
        return ToolError(
            f"No changes made to {path}. The replacement produced identical content. This might "
            "indicate an issue with special characters or the text not existing as expected."
        )
    return ToolError(f"No changes made to {path}. The replacements produced identical content.")


def apply_edits(content: str, edits: list[Edit], path: str) -> tuple[str, str]:
    """Apply ``edits`` to LF-normalised ``content``; return ``(base, new)`` for diffing.

    Every edit is matched against the same original content (not incrementally); the
    matched regions must be unique and must not overlap. Raises :class:`ToolError`
    with pi's texts otherwise.
    """
    edits = [Edit(normalize_to_lf(e.old_text), normalize_to_lf(e.new_text)) for e in edits]
    total = len(edits)
    for i, edit in enumerate(edits):
        if not edit.old_text:
            label = "oldText" if total == 1 else f"edits[{i}].oldText"
            raise ToolError(f"{label} must not be empty in {path}.")
    first = [_find(content, e.old_text) for e in edits]
    fuzzy = any(m is not None and m.fuzzy for m in first)
    base = normalize_for_fuzzy_match(content) if fuzzy else content
    fuzzy_base = normalize_for_fuzzy_match(base)
    matched: list[tuple[int, int, int, str]] = []  # (start, length, edit index, new text)
    for i, edit in enumerate(edits):
        found = _find(base, edit.old_text)
        if found is None:
            raise _not_found(path, i, total)
        count = fuzzy_base.count(normalize_for_fuzzy_match(edit.old_text))
        if count > 1:
            raise _duplicate(path, i, total, count)
        matched.append((found.index, found.length, i, edit.new_text))
    matched.sort()
    for prev, cur in itertools.pairwise(matched):
        if prev[0] + prev[1] > cur[0]:
            raise ToolError(
                f"edits[{prev[2]}] and edits[{cur[2]}] overlap in {path}. "
                "Merge them into one edit or target disjoint regions."
            )
    new = base
    for start, length, _index, new_text in reversed(matched):
        new = new[:start] + new_text + new[start + length :]
    if new == base:
        raise _no_change(path, total)
    return base, new


# --------------------------------------------------------------------------- diffs


@dataclass
class _Part:
    lines: list[str]
    added: bool = False
    removed: bool = False


def _diff_parts(old: str, new: str) -> list[_Part]:
    """Line-level diff parts (like jsdiff's ``diffLines``): removed before added."""
    a = old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    parts: list[_Part] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            parts.append(_Part(a[i1:i2]))
            continue
        if i2 > i1:
            parts.append(_Part(a[i1:i2], removed=True))
        if j2 > j1:
            parts.append(_Part(b[j1:j2], added=True))
    for part in parts:
        part.lines = [line[:-1] if line.endswith("\n") else line for line in part.lines]
    return parts


def generate_diff_string(old: str, new: str, context: int = 4) -> tuple[str, int | None]:
    """pi's display diff (``+<n> text``, ``-<n> text``, `` <n> text``) and first changed line.

    Line numbers are padded to the width of the larger line count; runs of unchanged
    lines longer than ``context`` show as `` <pad> ...``.
    """
    width = len(str(max(len(old.split("\n")), len(new.split("\n")))))
    pad = " " * width
    out: list[str] = []
    old_no = new_no = 1
    first_changed: int | None = None
    parts = _diff_parts(old, new)
    last_was_change = False

    def ctx(lines: list[str]) -> None:
        nonlocal old_no, new_no
        for line in lines:
            out.append(f" {old_no:>{width}} {line}")
            old_no += 1
            new_no += 1

    def skip(count: int) -> None:
        nonlocal old_no, new_no
        out.append(f" {pad} ...")
        old_no += count
        new_no += count

    for i, part in enumerate(parts):
        raw = part.lines
        if part.added or part.removed:
            if first_changed is None:
                first_changed = new_no
            for line in raw:
                if part.added:
                    out.append(f"+{new_no:>{width}} {line}")
                    new_no += 1
                else:
                    out.append(f"-{old_no:>{width}} {line}")
                    old_no += 1
            last_was_change = True
            continue
        next_change = i + 1 < len(parts) and (parts[i + 1].added or parts[i + 1].removed)
        if last_was_change and next_change:
            if len(raw) <= context * 2:
                ctx(raw)
            else:
                ctx(raw[:context])
                skip(len(raw) - 2 * context)
                ctx(raw[-context:])
        elif last_was_change:
            ctx(raw[:context])
            if len(raw) > context:
                skip(len(raw) - context)
        elif next_change:
            skipped = max(0, len(raw) - context)
            if skipped:
                skip(skipped)
            ctx(raw[skipped:])
        else:
            old_no += len(raw)
            new_no += len(raw)
        last_was_change = False
    return "\n".join(out), first_changed


def generate_unified_patch(path: str, old: str, new: str, context: int = 4) -> str:
    """A standard unified patch (``---``/``+++`` headers, ``@@`` hunks) for external tools."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=path,
        tofile=path,
        n=context,
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)
