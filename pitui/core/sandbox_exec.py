"""The sandbox launcher: confine a command, run it, and end everything it started.

Run as a script, not imported (``python -S -I sandbox_exec.py [options] -- PROGRAM ARGS``):
it must start fast (no site; only ``os``, ``sys``, ``ctypes`` and the stdlib-only modules
beside it). Options: ``--write DIR``, ``--write-file FILE`` (e.g. ``/dev/null``),
``--no-network``, ``--no-unix-sockets``, ``--namespace`` with ``--read-only PATH``,
``--cover SOCKET``,
``--scratch DIR`` bound at each ``--scratch-at DIR``, ``--tmpfs DIR`` and ``--empty DIR``
(what pitui found to protect and replace: :meth:`pitui.core.sandbox.Sandbox.wrap`),
``--parent PID`` (pitui: if it has already gone, nothing runs).

1. ``--namespace``: a private mount namespace, read-only but for the writable places,
   with the ``--read-only`` paths bound read-only, the temp dirs, ``/dev/shm`` and the
   runtime dirs replaced and the ``--cover`` sockets covered
   (:mod:`pitui.core.sandbox_mounts`).
2. The launcher becomes a child subreaper and asks for SIGTERM if pitui dies, then forks.
3. Root's dangerous capabilities leave the bounding set, ``no_new_privs`` is set and the
   seccomp filter installed (:mod:`pitui.core.sandbox_rules`), all inherited by the
   child; the child enters the Landlock ruleset and ``exec``s the command. None of it can
   be lifted by the command or anything it starts.
4. The launcher itself stays outside Landlock (the command cannot signal or trace it) and
   waits. When the command exits, or the launcher gets SIGTERM/SIGHUP/SIGINT (pitui's
   abort, or pitui's death), every process left is SIGKILLed: a ``setsid`` or ``nohup``
   child has been reparented to the launcher, so none escapes. Its exit status is the
   command's.

If the sandbox cannot be made, the command is not run: exit code 126 and a line on
stderr starting ``pitui sandbox:``.
"""

import ctypes
import os
import sys

if __name__ == "__main__":  # run as a script: the pitui package is three levels up
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import _signal  # type: ignore[import-not-found]  # the C module: ``signal`` imports enum

from pitui.core import sandbox_mounts, sandbox_rules

EXIT_FAILED = 126
_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER, _PR_SET_NO_NEW_PRIVS = 1, 36, 38
_ENDING = (_signal.SIGTERM, _signal.SIGHUP, _signal.SIGINT)
_LISTS = {"--write": "dirs", "--write-file": "files", "--read-only": "read_only",
          "--cover": "cover", "--scratch-at": "scratch_at", "--tmpfs": "tmpfs",
          "--empty": "empty"}  # fmt: skip
_SWITCHES = {"--no-network": ("network", False), "--no-unix-sockets": ("unix_sockets", False),
             "--namespace": ("namespace", True)}  # fmt: skip


class Options:
    """The parsed command line (a plain class: dataclasses would cost an import)."""

    def __init__(self) -> None:
        self.dirs: list[str] = []
        self.files: list[str] = []
        self.read_only: list[str] = []
        self.cover: list[str] = []
        self.masks = sandbox_mounts.Masks()
        self.scratch_at = self.masks.scratch_at
        self.tmpfs = self.masks.tmpfs
        self.empty = self.masks.empty
        self.network = True
        self.unix_sockets = True
        self.namespace = False
        self.parent: int | None = None
        self.command: list[str] = []


def _fail(message: str) -> None:
    sys.stderr.write(f"pitui sandbox: {message}\n")
    sys.stderr.flush()
    os._exit(EXIT_FAILED)


def _parse(argv: list[str]) -> Options:
    options = Options()
    index = 0
    while index < len(argv) and argv[index] != "--":
        option = argv[index]
        if option in _SWITCHES:
            setattr(options, _SWITCHES[option][0], _SWITCHES[option][1])
            index += 1
        elif option == "--parent" and index + 1 < len(argv) and argv[index + 1].isdigit():
            options.parent = int(argv[index + 1])
            index += 2
        elif option == "--scratch" and index + 1 < len(argv):
            options.masks.scratch = argv[index + 1]
            index += 2
        elif option in _LISTS and index + 1 < len(argv):
            getattr(options, _LISTS[option]).append(argv[index + 1])
            index += 2
        else:
            _fail(f"unknown option {option!r}")
    options.command = argv[index + 1 :]
    if not options.command:
        _fail("no command given")
    return options


def _rules(libc: ctypes.CDLL, options: Options, terminals: tuple[str, ...]) -> int:
    """What cannot be undone, in the launcher itself (inherited by the child: the less
    Python runs between ``fork`` and ``exec``, the fewer pages are copied), but Landlock,
    whose ruleset (returned) only the child enters: the launcher stays outside it, where
    the command cannot signal or trace it. None of it hinders the launcher's own work."""
    try:
        dirs = [*options.dirs, *options.scratch_at, *options.tmpfs]
        ruleset = sandbox_rules.build_ruleset(libc, dirs, options.files, options.network, terminals)
    except sandbox_rules.RuleError as exc:
        _fail(str(exc))
    if os.geteuid() == 0:
        sandbox_rules.drop_capabilities(libc)  # the bounding set: this process keeps its own
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        _fail(f"cannot set no_new_privs: {os.strerror(ctypes.get_errno())}")
    try:
        sandbox_rules.install_seccomp(libc, options.network, options.unix_sockets)
    except sandbox_rules.RuleError as exc:
        if not options.network:
            _fail(f"{exc}: cannot turn UDP and raw sockets off")
        if not options.unix_sockets:
            _fail(f"{exc}: cannot turn unix sockets off (sandbox.allowUnixSockets)")
    return ruleset


def _become_the_command(libc: ctypes.CDLL, options: Options, ruleset: int) -> None:
    """In the child: enter Landlock and ``exec`` the command (never returns)."""
    try:
        sandbox_rules.enter_ruleset(libc, ruleset)
    except sandbox_rules.RuleError as exc:
        _fail(str(exc))
    for number in (_signal.SIGPIPE, _signal.SIGXFSZ, *_ENDING):
        _signal.signal(number, _signal.SIG_DFL)  # Python ignores SIGPIPE; bash must not
    try:
        os.execvp(options.command[0], options.command)
    except OSError as exc:
        _fail(f"cannot run {options.command[0]}: {exc.strerror}")


def _children() -> list[int]:
    pid = os.getpid()
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="utf-8") as handle:
            return [int(child) for child in handle.read().split()]
    except OSError:  # no CONFIG_PROC_CHILDREN: look for them
        found = []
        for entry in os.listdir("/proc"):
            try:
                with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as handle:
                    fields = handle.read().rsplit(")", 1)[-1].split()
            except OSError:
                continue
            if entry.isdigit() and int(fields[1]) == pid:
                found.append(int(entry))
        return found


def end_everything() -> None:
    """SIGKILL every process left and reap it, until none is left: a killed process's own
    children are reparented here (the subreaper) and found on the next round."""
    while True:
        for child in _children():
            try:  # noqa: SIM105  (contextlib would cost the launcher 3 ms of imports)
                os.kill(child, _signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def _on_ending_signal(number: int, _frame: object) -> None:
    end_everything()
    os._exit(128 + number)


def _exit_like(status: int) -> None:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        _signal.signal(number, _signal.SIG_DFL)
        os.kill(os.getpid(), number)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else EXIT_FAILED)


def main(argv: list[str]) -> None:
    """Confine, run and wait for the command; never returns."""
    options = _parse(argv)
    libc = sandbox_rules.libc()
    terminals: tuple[str, ...] = ()
    if options.namespace:
        try:
            if sandbox_mounts.isolate(
                options.dirs, options.read_only, options.cover, options.masks
            ):
                terminals = (sandbox_mounts.PTS_DIR, sandbox_mounts.PTMX)
        except (sandbox_mounts.MountError, IndexError) as exc:
            _fail(f"no private mount namespace: {exc}")
        except Exception as exc:  # a bug must not run the command unconfined, nor trace
            _fail(f"cannot make the mount namespace: {exc!r}")
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    libc.prctl(_PR_SET_PDEATHSIG, _signal.SIGTERM, 0, 0, 0)
    if options.parent is not None and os.getppid() != options.parent:
        _fail("pitui has gone")  # before the death signal was asked for
    for number in _ENDING:
        _signal.signal(number, _on_ending_signal)
    ruleset = _rules(libc, options, terminals)
    child = os.fork()
    if child == 0:
        _become_the_command(libc, options, ruleset)
    os.close(ruleset)
    while True:
        pid, status = os.waitpid(-1, 0)
        if pid == child:
            break
    end_everything()
    _exit_like(status)


if __name__ == "__main__":
    main(sys.argv[1:])
