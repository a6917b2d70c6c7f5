"""The filesystem unix sockets a sandboxed command must not reach: found, to be covered.

Imported by the launcher (:mod:`pitui.core.sandbox_exec`, through
:mod:`pitui.core.sandbox_mounts`) and by :mod:`pitui.core.sandbox` (bubblewrap), so only
``os``. Connecting to a socket is not a write: neither Landlock nor a read-only mount
stops it, and behind a socket is a server outside the sandbox (the tmux server runs
``run-shell``, docker runs containers as root, systemd starts units). Two sources:

* ``/proc/net/unix``: every socket bound in this network namespace (exhaustive there);
* a shallow walk of where sockets live (``/run``, ``$XDG_RUNTIME_DIR``, ``~/.ssh``,
  ``~/.gnupg``, and in the temp dirs the folders of tmux, ssh-agent, X11 …): a socket
  whose server runs in another network namespace (a container's ``/var/run/docker.sock``
  from the host; on a shared machine, other people's tmux servers) is not in the first.

A socket made after the command started, or one served from another network namespace
in a folder not walked, is not found: the temp dirs, ``/dev/shm`` and ``/run/user``,
where most are made, are replaced in the command's mount namespace instead
(:class:`pitui.core.sandbox.Masks`), so what is listed here is only what lies elsewhere.
"""

import os

_S_IFMT, _S_IFSOCK = 0o170000, 0o140000
_MAX_ENTRIES = 5000  # bounds the walk on a machine with a crowded /tmp


def beneath(path: str, folder: str) -> bool:
    """``path`` is ``folder`` or lies inside it (both real, absolute paths)."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _bound_sockets() -> list[str]:
    try:
        with open("/proc/net/unix", encoding="utf-8", errors="surrogateescape") as handle:
            lines = handle.read().splitlines()[1:]
    except OSError:
        return []
    found = []
    for line in lines:
        fields = line.split(None, 7)
        if len(fields) == 8 and fields[7].startswith("/"):
            found.append(fields[7])
    return found


# Folders in a temp dir that hold sockets: a crowded /tmp is not walked beyond these.
_TEMP_SOCKET_DIRS = (
    "tmux-", "ssh-", ".X11-unix", ".ICE-unix", ".XIM-unix", "pulse-", "emacs", "nvim",
    "zellij-", "gpg-", "screen", "vscode", "kitty", "wezterm", "dbus-", "orbit-",
)  # fmt: skip
_Root = tuple[str, int, tuple[str, ...] | None]  # folder, depth, first-level name prefixes


def _walk_roots() -> list[_Root]:
    """Where sockets are usually made, how deep to look, and (temp dirs) where."""
    home = os.environ.get("HOME", "")
    runtime = os.environ.get("XDG_RUNTIME_DIR", f"/run/user/{os.geteuid()}")
    roots: list[_Root] = [("/run", 2, None), (runtime, 3, None), ("/var/tmp", 1, None)]
    for temp in {"/tmp", os.environ.get("TMPDIR", "/tmp"), os.environ.get("TMUX_TMPDIR", "/tmp")}:
        roots.append((temp, 2, _TEMP_SOCKET_DIRS))
    if home:
        roots += [(os.path.join(home, ".ssh"), 1, None), (os.path.join(home, ".gnupg"), 1, None)]
    return roots


def _walked_sockets() -> list[str]:
    found: list[str] = []
    budget = _MAX_ENTRIES
    pending = [(os.path.realpath(folder), depth, only) for folder, depth, only in _walk_roots()]
    seen: set[str] = set()
    while pending and budget > 0:
        folder, depth, only = pending.pop()
        if folder in seen:
            continue
        seen.add(folder)
        try:
            entries = os.scandir(folder)
        except OSError:
            continue
        with entries:
            for entry in entries:
                budget -= 1
                if budget <= 0:
                    break
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if depth > 1 and (only is None or entry.name.startswith(only)):
                            pending.append((entry.path, depth - 1, None))
                    elif not entry.is_file(follow_symlinks=False) and not entry.is_symlink():
                        found.append(entry.path)  # a socket, fifo or device: lstat tells
                except OSError:
                    continue
    return found


def outside_sockets(reachable: tuple[str, ...]) -> list[str]:
    """Filesystem unix sockets that exist now outside the ``reachable`` folders (the
    project, and the ``writablePaths`` the user gave), each once."""
    found: dict[str, None] = {}
    for path in (*_bound_sockets(), *_walked_sockets()):
        if not any(beneath(path, folder) for folder in reachable):
            found.setdefault(path)
    sockets = []
    for path in found:
        try:
            if os.lstat(path).st_mode & _S_IFMT == _S_IFSOCK:
                sockets.append(path)
        except OSError:
            continue  # gone, or bound in another mount namespace
    return sockets
