"""The two match finders behind ``grep``: ripgrep (``rg --json``) and pure Python.

Both return the first ``limit`` matching lines as ``(absolute file path, line number)``.
The Python finder walks with :mod:`pitui.core.tools.gitignore` (hidden files included,
``.gitignore`` honoured, ``.git`` skipped, binary files skipped) and matches with
:mod:`re`, whose syntax covers the common subset of ripgrep's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
from dataclasses import dataclass

from pitui.agent.tool import ToolError
from pitui.core.tools.gitignore import GlobRule, compile_glob, walk

Match = tuple[str, int]
_BINARY_SNIFF = 8192
_LINE_LIMIT = 64 * 1024 * 1024


@dataclass(frozen=True)
class SearchSpec:
    """What to look for, where, and how many."""

    pattern: str
    path: str  # absolute
    is_directory: bool
    glob: str | None = None
    ignore_case: bool = False
    literal: bool = False
    limit: int = 100


@dataclass
class SearchResult:
    """The matches found, and whether the limit cut the search short."""

    matches: list[Match]
    limit_reached: bool


# --------------------------------------------------------------------------- ripgrep


def rg_args(spec: SearchSpec) -> list[str]:
    """pi's ripgrep arguments, plus two that make rg agree with the Python finder.

    ``--no-require-git`` honours ``.gitignore`` outside git work trees too, and
    ``--glob !.git`` keeps ``--hidden`` from searching the repository database.
    """
    args = ["--json", "--line-number", "--color=never", "--hidden", "--no-require-git"]
    args += ["--glob", "!.git"]
    if spec.ignore_case:
        args.append("--ignore-case")
    if spec.literal:
        args.append("--fixed-strings")
    if spec.glob:
        args += ["--glob", spec.glob]
    # -e: a pattern starting with "-" must not be read as a flag.
    return [*args, "-e", spec.pattern, "--", spec.path]


async def search_with_rg(rg: str, spec: SearchSpec) -> SearchResult:
    """Run ripgrep and read its JSON events until ``limit`` matches (then stop it).

    ripgrep matches ``--glob`` patterns containing ``/`` against paths relative to its
    own cwd, so it runs in the searched directory: ``src/*.ts`` then means the same as
    in the Python finder.
    """
    proc = await asyncio.create_subprocess_exec(
        rg,
        *rg_args(spec),
        cwd=spec.path if spec.is_directory else os.path.dirname(spec.path),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=_LINE_LIMIT,
    )
    assert proc.stdout is not None and proc.stderr is not None
    stderr_task = asyncio.ensure_future(proc.stderr.read())
    matches: list[Match] = []
    limited = False
    try:
        while line := await proc.stdout.readline():
            match = _parse_rg_event(line)
            if match is None:
                continue
            matches.append(match)
            if len(matches) >= spec.limit:
                limited = True
                break
    except BaseException:
        # Aborted (task cancelled): stop ripgrep before giving up.
        _kill(proc)
        stderr_task.cancel()
        raise
    if limited:
        _kill(proc)
    code = await proc.wait()
    stderr = (await stderr_task).decode("utf-8", "replace")
    if not limited and code not in (0, 1):
        raise ToolError(stderr.strip() or f"ripgrep exited with code {code}")
    return SearchResult(matches, limited)


def _kill(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()


def _parse_rg_event(line: bytes) -> Match | None:
    try:
        event = json.loads(line)
    except ValueError:
        return None
    if not isinstance(event, dict) or event.get("type") != "match":
        return None
    data = event.get("data") or {}
    path = (data.get("path") or {}).get("text")
    number = data.get("line_number")
    if isinstance(path, str) and isinstance(number, int):
        return path, number
    return None


# --------------------------------------------------------------------------- python


def compile_pattern(spec: SearchSpec) -> re.Pattern[str]:
    """The search regex; an invalid one fails like ripgrep (``regex parse error``)."""
    source = re.escape(spec.pattern) if spec.literal else spec.pattern
    try:
        return re.compile(source, re.IGNORECASE if spec.ignore_case else 0)
    except re.error as exc:
        raise ToolError(f"regex parse error:\n    {spec.pattern}\nerror: {exc}") from exc


def _glob_filter(glob: str | None) -> GlobRule | None:
    return compile_glob(glob) if glob else None


def _accepts(rule: GlobRule | None, rel_path: str) -> bool:
    if rule is None:
        return True
    hit = rule.matches(rel_path, is_dir=False)
    return not hit if rule.negate else hit


def _search_file(path: str, regex: re.Pattern[str], budget: int) -> list[Match]:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return []
    if b"\0" in data[:_BINARY_SNIFF]:
        return []
    found: list[Match] = []
    for number, line in enumerate(data.decode("utf-8", "replace").split("\n"), start=1):
        if regex.search(line.removesuffix("\r")):
            found.append((path, number))
            if len(found) >= budget:
                break
    return found


def search_with_python(spec: SearchSpec) -> SearchResult:
    """Walk and match in-process (blocking: run it in a thread)."""
    regex = compile_pattern(spec)
    if not spec.is_directory:
        found = _search_file(spec.path, regex, spec.limit)
        return SearchResult(found, len(found) >= spec.limit)
    rule = _glob_filter(spec.glob)
    matches: list[Match] = []
    for entry in walk(spec.path):
        if entry.is_dir or entry.is_symlink or not _accepts(rule, entry.rel_path):
            continue
        matches += _search_file(entry.abs_path, regex, spec.limit - len(matches))
        if len(matches) >= spec.limit:
            return SearchResult(matches, True)
    return SearchResult(matches, False)


def is_directory(path: str) -> bool:
    """``os.path.isdir`` that raises when the path doesn't exist (like ``statSync``)."""
    return os.stat(path).st_mode & 0o170000 == 0o040000
