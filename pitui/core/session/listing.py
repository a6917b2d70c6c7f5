"""Fast session listing (PI_SPEC §5.8). Standard library only, so ``pitui session ls`` starts fast.

pi parses every line of every file to list sessions (users report 11 s). A listing needs
only a few facts, and pi's writer puts ``"type"`` first on every line, so this module
finds them with byte searches (C speed) and parses only the handful of lines that
matter: the header, the first user message, the last user/assistant message, the last
``session_info``. A file that does not look pi-written in that way gets a full parse.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pitui import paths
from pitui.core.session.ids import encode_cwd
from pitui.core.session.list_cache import MISS, ListCache
from pitui.errors import SessionError

_MESSAGE_AT_LINE_START = b'\n{"type":"message",'
_MESSAGE_ANYWHERE = b'"type":"message"'


@dataclass
class SessionInfo:
    """One row of the session list."""

    path: str
    id: str
    cwd: str
    created: str
    """Header time (ISO)."""
    modified_ms: int
    """Last user/assistant message time, else header time, else file mtime (epoch ms)."""
    message_count: int
    first_message: str
    """First user text (blocks joined by a space), or ``(no messages)``."""
    name: str | None = None
    parent_session_path: str | None = None
    error: str | None = None
    """Set on the row of a file that could not be listed (why); its other fields are
    placeholders (only :func:`scan_files` with ``unreadable=True`` makes such rows)."""

    @property
    def modified(self) -> str:
        """``modified_ms`` as ISO text."""
        moment = datetime.fromtimestamp(self.modified_ms / 1000, UTC)
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.modified_ms % 1000:03d}Z"

    def to_json(self) -> dict[str, Any]:
        """pi's field names; unset optionals absent."""
        data: dict[str, Any] = {"path": self.path, "id": self.id, "cwd": self.cwd}
        if self.name is not None:
            data["name"] = self.name
        if self.parent_session_path is not None:
            data["parentSessionPath"] = self.parent_session_path
        data.update(
            created=self.created,
            modified=self.modified,
            messageCount=self.message_count,
            firstMessage=self.first_message,
        )
        return data


def default_session_dir(cwd: str) -> Path:
    """``<pitui home>/sessions/--<cwd encoded>--``."""
    return paths.sessions_dir() / encode_cwd(cwd)


def _load(line: bytes) -> dict[str, Any] | None:
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):  # not JSON, or nested past the stack
        return None
    return obj if isinstance(obj, dict) else None


def _line_around(data: bytes, pos: int) -> tuple[int, bytes]:
    start = data.rfind(b"\n", 0, pos) + 1
    end = data.find(b"\n", pos)
    end = len(data) if end < 0 else end
    return start, data[start:end]


def _text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
    return " ".join(t for t in texts if isinstance(t, str))


def _chat_message(obj: dict[str, Any] | None) -> dict[str, Any] | None:
    if obj is None or obj.get("type") != "message":
        return None
    message = obj.get("message")
    if isinstance(message, dict) and message.get("role") in ("user", "assistant"):
        return message if "content" in message else None
    return None


def _activity_ms(obj: dict[str, Any], message: dict[str, Any]) -> int | None:
    stamp = message.get("timestamp")
    if isinstance(stamp, int | float) and not isinstance(stamp, bool):
        return int(stamp)
    return _iso_ms(obj.get("timestamp"))


def _iso_ms(value: Any) -> int | None:
    if not isinstance(value, str):
        return None
    try:
        return int(datetime.fromisoformat(value).timestamp() * 1000 + 0.5)
    except ValueError:
        return None


class _Facts:
    def __init__(self) -> None:
        self.count = 0
        self.first = ""
        self.last_ms: int | None = None
        self.name: str | None = None

    def see(self, obj: dict[str, Any]) -> None:
        kind = obj.get("type")
        if kind == "session_info" and isinstance(obj.get("name"), str) and obj["name"]:
            self.name = obj["name"].strip()
        if kind != "message":
            return
        self.count += 1
        message = _chat_message(obj)
        if message is None:
            return
        stamp = _activity_ms(obj, message)
        if stamp is not None:
            self.last_ms = max(self.last_ms or 0, stamp)
        if not self.first and message.get("role") == "user":
            self.first = _text_of(message)


def _full_scan(data: bytes) -> _Facts:
    facts = _Facts()
    for line in data.split(b"\n")[1:]:
        obj = _load(line) if line.strip() else None
        if obj is not None:
            facts.see(obj)
    return facts


def _last_matching(data: bytes, needle: bytes, want: str) -> dict[str, Any] | None:
    end = len(data)
    while (pos := data.rfind(needle, 0, end)) > 0:
        start, line = _line_around(data, pos)
        obj = _load(line)
        if obj is not None and obj.get("type") == want:
            return obj
        end = start
    return None


def _fast_scan(data: bytes) -> _Facts | None:
    """Facts by byte search; None when the file does not have pi's line layout."""
    facts = _Facts()
    facts.count = data.count(_MESSAGE_AT_LINE_START)
    if facts.count != data.count(_MESSAGE_ANYWHERE):
        return None
    if not facts.count and b'"message"' in data:
        return None  # entries written with other spacing ("type": "message"): parse them
    pos = 0
    while (pos := data.find(b'"role":"user"', pos)) > 0:
        start, line = _line_around(data, pos)
        message = _chat_message(_load(line))
        if message is not None and message.get("role") == "user" and _text_of(message):
            facts.first = _text_of(message)
            break
        pos = start + len(line) + 1
    for role in (b'"role":"assistant"', b'"role":"user"'):
        obj = _last_matching(data, role, "message")
        message = _chat_message(obj)
        if obj is not None and message is not None:
            stamp = _activity_ms(obj, message)
            if stamp is not None:
                facts.last_ms = max(facts.last_ms or 0, stamp)
    end = len(data)
    while (pos := data.rfind(b'"type":"session_info"', 0, end)) > 0:
        end, line = _line_around(data, pos)
        info = _load(line)
        name = info.get("name") if info and info.get("type") == "session_info" else None
        if isinstance(name, str) and name:
            facts.name = name.strip()
            break
    return facts


def read_session_info(path: Path, mtime_ms: int | None = None) -> SessionInfo | None:
    """The listing row of one file; None when it is not a session file."""
    found = _read_info(path, mtime_ms)
    return found if isinstance(found, SessionInfo) else None


NOT_A_SESSION = "not a session file (no session header)"


def unreadable_info(path: Path, error: str, mtime_ms: int = 0) -> SessionInfo:
    """The row of a file that could not be listed."""
    return SessionInfo(str(path), "", "", "", mtime_ms, 0, error, error=error)


def _read_info(path: Path, mtime_ms: int | None) -> SessionInfo | str | None:
    """The row; None for a file that is not a session; the error text when unreadable."""
    try:
        data = path.read_bytes()
        if mtime_ms is None:
            mtime_ms = int(path.stat().st_mtime * 1000)
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    newline = data.find(b"\n")
    header = _load(data if newline < 0 else data[:newline])
    if header is None or header.get("type") != "session" or not isinstance(header.get("id"), str):
        return None
    if not data.endswith(b"\n") and _load(data[data.rfind(b"\n") + 1 :]) is None:
        data = data[: data.rfind(b"\n") + 1]  # a torn last line is not an entry
    facts = _fast_scan(data) or _full_scan(data)
    created = header.get("timestamp") if isinstance(header.get("timestamp"), str) else ""
    modified = facts.last_ms if facts.last_ms else _iso_ms(created) or mtime_ms
    cwd, parent = header.get("cwd"), header.get("parentSession")
    return SessionInfo(
        path=str(path),
        id=header["id"],
        cwd=cwd if isinstance(cwd, str) else "",
        created=str(created),
        modified_ms=modified,
        message_count=facts.count,
        first_message=facts.first or "(no messages)",
        name=facts.name,
        parent_session_path=parent if isinstance(parent, str) else None,
    )


def _row(info: SessionInfo) -> list[Any]:
    return [
        info.id,
        info.cwd,
        info.created,
        info.modified_ms,
        info.message_count,
        info.first_message,
        info.name,
        info.parent_session_path,
    ]


def _from_row(path: str, row: list[Any]) -> SessionInfo | None:
    try:
        sid, cwd, created, modified, count, first, name, parent = row
    except (TypeError, ValueError):
        return None
    return SessionInfo(path, sid, cwd, created, modified, count, first, name, parent)


def _info(path: Path, cache: ListCache | None, unreadable: bool = False) -> SessionInfo | None:
    try:
        stat = path.stat()
    except OSError as exc:
        error = f"cannot be read: {exc.strerror or exc}"
        return unreadable_info(path, error) if unreadable else None
    key, mtime_ms = str(path), int(stat.st_mtime * 1000)
    row = cache.get(key, stat.st_size, stat.st_mtime_ns) if cache else MISS
    if row is not MISS:
        if row is None:
            return unreadable_info(path, NOT_A_SESSION, mtime_ms) if unreadable else None
        return _from_row(key, row)
    found = _read_info(path, mtime_ms)
    if isinstance(found, str):  # not cached: a permission problem may be fixed by then
        return unreadable_info(path, found, mtime_ms) if unreadable else None
    if cache is not None:
        cache.put(key, stat.st_size, stat.st_mtime_ns, None if found is None else _row(found))
    if found is None and unreadable:
        return unreadable_info(path, NOT_A_SESSION, mtime_ms)
    return found


def cached_rows(
    files: list[Path], cache: ListCache, *, unreadable: bool = False
) -> tuple[list[SessionInfo], list[Path]]:
    """The rows the cache holds for unchanged files, and the files it has no row for
    (only stats files: a warm picker shows its first rows after this)."""
    rows: list[SessionInfo] = []
    misses: list[Path] = []
    for file in files:
        try:
            stat = file.stat()
        except OSError:
            misses.append(file)  # read again, to say why
            continue
        key = str(file)
        row = cache.get(key, stat.st_size, stat.st_mtime_ns)
        if row is MISS:
            misses.append(file)
        elif row is not None:
            info = _from_row(key, row)
            if info is not None:
                rows.append(info)
        elif unreadable:
            rows.append(unreadable_info(file, NOT_A_SESSION, int(stat.st_mtime * 1000)))
    return rows, misses


def scan_files(
    files: list[Path], cache: ListCache | None, *, unreadable: bool = False
) -> list[SessionInfo]:
    """The rows of these files (cache rows where valid; unreadable rows on request)."""
    rows = (_info(file, cache, unreadable) for file in files)
    return [row for row in rows if row is not None]


def session_files(directories: list[Path]) -> list[Path]:
    """Every ``*.jsonl`` file in these directories."""
    return [file for directory in directories for file in _session_files(directory)]


def _session_files(directory: Path) -> list[Path]:
    try:
        with os.scandir(directory) as it:
            return [Path(e.path) for e in it if e.name.endswith(".jsonl") and e.is_file()]
    except OSError:
        return []


def listing_directories(
    cwd: str | None, session_dir: Path | None, all_projects: bool
) -> list[Path]:
    """The directories a listing reads (see :func:`list_sessions` for the arguments)."""
    if all_projects:
        root = session_dir or paths.sessions_dir()
    else:
        root = session_dir or default_session_dir(cwd or os.getcwd())
    return _directories(Path(os.path.abspath(root)), all_projects)


def _directories(root: Path, all_projects: bool) -> list[Path]:
    if not all_projects:
        return [root]
    try:
        with os.scandir(root) as it:
            return [root, *sorted(Path(e.path) for e in it if e.is_dir())]
    except OSError:
        return [root]


def list_sessions(
    cwd: str | None = None,
    session_dir: Path | None = None,
    *,
    all_projects: bool = False,
    use_cache: bool = True,
) -> list[SessionInfo]:
    """Sessions of ``cwd`` (or in ``session_dir``, or of every project), newest first.

    Args:
        cwd: Project whose sessions to list (default: the current directory).
        session_dir: List this directory instead (with ``all_projects``: its subdirectories).
        all_projects: Every project directory under the sessions root.
        use_cache: Reuse rows of unchanged files from the listing cache (and update it).
    """
    directories = listing_directories(cwd, session_dir, all_projects)
    cache = ListCache.load(paths.session_list_cache()) if use_cache else None
    infos = scan_files(session_files(directories), cache)
    if cache is not None:
        cache.save({str(d) for d in directories})
    infos.sort(key=lambda i: i.modified_ms, reverse=True)
    return infos


def looks_like_path(arg: str) -> bool:
    """Whether a session argument names a file rather than an id (pi's rule: a path
    separator, or the ``.jsonl`` ending)."""
    return "/" in arg or "\\" in arg or arg.endswith(".jsonl")


def resolve_session(
    arg: str,
    cwd: str | Path | None = None,
    session_dir: Path | None = None,
    *,
    must_exist: bool = True,
) -> Path:
    """The session file ``arg`` names: a path, or a session id or the start of one (as
    pi's ``--session``).

    An id is looked up among the sessions of ``cwd`` first, then among every project's
    (``session_dir``, if given, is where they are). A word that is no session's id but
    names a file in ``cwd`` is that file.

    Args:
        arg: What the user typed.
        cwd: The project (default: the current directory); relative paths start there.
        session_dir: Where the session folders are (``--session-dir``).
        must_exist: A path must name an existing file (False for ``--session``, where a
            new path starts a new session there, as in pi).

    Raises:
        SessionError: A directory; no file or session matches; several sessions match
            (each listed).
    """
    base = Path(cwd) if cwd is not None else Path.cwd()
    if looks_like_path(arg):
        path = base / Path(arg).expanduser()
        _check_file(path, arg, must_exist)
        return path
    if not arg.strip():
        raise SessionError("no session given: a session file or id is needed")
    local = list_sessions(str(base), session_dir)
    found = _by_id(arg, local)
    if found is None:
        found = _by_id(arg, list_sessions(session_dir=session_dir, all_projects=True))
    if found is not None:
        return found
    plain = base / arg
    if plain.is_file():
        return plain
    _check_file(plain, arg, False)  # a directory says so
    raise SessionError(
        f"{arg}: no such session file or session id (no session id starts with it; see "
        "`pitui session ls --all`)"
    )


def _check_file(path: Path, arg: str, must_exist: bool) -> None:
    if path.is_dir():
        raise SessionError(
            f"{arg} is a directory, not a session file; give a .jsonl file, or a session "
            "id from `pitui session ls`"
        )
    if must_exist and not path.is_file():
        raise SessionError(f"{arg}: no such session file")


def _by_id(arg: str, sessions: list[SessionInfo]) -> Path | None:
    """The session whose id is ``arg``, else the one whose id starts with it.

    Raises:
        SessionError: Several ids start with it (each listed, newest first).
    """
    needle = arg.lower()
    exact = [info for info in sessions if info.id.lower() == needle]
    matches = exact or [info for info in sessions if info.id.lower().startswith(needle)]
    if len({m.path for m in matches}) == 1:
        return Path(matches[0].path)
    if not matches:
        return None
    listed = "\n".join(f"  {m.id}  {m.path}" for m in matches[:10])
    more = f"\n  … and {len(matches) - 10} more" if len(matches) > 10 else ""
    raise SessionError(
        f"{arg} matches {len(matches)} sessions; give more of the id:\n{listed}{more}",
        title="Ambiguous session id",
    )


def most_recent_session(directory: Path) -> Path | None:
    """Newest ``*.jsonl`` by mtime whose first line (first 512 bytes) is a session header."""
    best: tuple[float, Path] | None = None
    for file in _session_files(directory):
        try:
            with file.open("rb") as handle:
                head = handle.read(512).split(b"\n")[0]
            mtime = file.stat().st_mtime
        except OSError:
            continue
        header = _load(head)
        valid = header and header.get("type") == "session" and isinstance(header.get("id"), str)
        if valid and (best is None or mtime > best[0]):
            best = (mtime, file)
    return None if best is None else best[1]
