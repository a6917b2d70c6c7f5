"""Remembered bash rules: what "always allow" saves, what a rule covers, what it never covers.

A rule is the exact command by default (``npm test -- --watch`` allows that command and
nothing else); a rule ending in `` *`` is a prefix of whole words (``npm test *`` allows
``npm test`` and ``npm test -- --watch``, not ``npm testing``). Commands are compared as
shell words, so spacing and quoting do not matter.

Some commands are never offered "always" and never run on a remembered rule, whatever
the settings say: destructive ones (``rm``, ``mv``, ``dd``, ``chmod -R``, ``chown``,
``sudo``, ``git push --force``, ``git reset --hard``, ``git clean`` …), commands that run
other commands given as text (``sh -c``, ``eval``, ``xargs``, ``find -exec``), and any
shell control (``;``, ``&&``, ``|``, redirects, `` ` ``, ``$(``). A rule also never covers
a command that names a path outside the project (``cat ~/.ssh/id_rsa`` under ``cat *``).

A rule is judged on the words as written, so it covers only a command whose words are
all literal: what the matcher reads is what the shell runs. A command with anything the
shell would expand or unescape (``$`` in any form, `` ` ``, ``~``, braces, glob
characters ``*?[``, a backslash, ``!``, parentheses, ``#``), quoted or not, is never covered
and never offered "always": it asks. ``touch $HOME/x`` under ``touch *`` asks.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Literal

import msgspec

from pitui.core.tools.path_utils import expand_path, is_within
from pitui.lazy_pattern import lazy_pattern

SHELL_CONTROL = lazy_pattern(r"[;&|`<>\n]|\$\(")
SHELL_EXPANSION = lazy_pattern(r"[$`~{}*?\[\]\\!()#]")
"""Characters after which a word may not mean what it says: parameter, command,
arithmetic and ANSI-C ``$'…'`` expansion, tilde, brace and glob expansion, escapes,
history, subshells, and ``#`` (bash drops a comment the word splitter would keep).
Quotes do not make them safe here (``"$HOME"`` still expands): a command holding any
of them is judged not literal, so it asks."""
PREFIX_MARK = " *"

_DESTRUCTIVE = frozenset(
    {"rm", "rmdir", "unlink", "mv", "dd", "shred", "truncate", "chown", "chgrp", "mkfs"}
)
_PRIVILEGE = frozenset({"sudo", "su", "doas", "pkexec"})
# Run another command given as text or as the rest of the words.
_RUNS_TEXT = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish", "eval", "xargs", "source", "."})
# Run the rest of their words as a command: judge that command instead.
_WRAPPERS = frozenset({"env", "command", "builtin", "exec", "nohup", "nice", "time", "timeout"})
_ASSIGNMENT = lazy_pattern(r"^[A-Za-z_][A-Za-z0-9_]*=")
_DURATION = lazy_pattern(r"^\d+(?:\.\d+)?[smhd]?$")
# Git options that take a value as the next word (``git -C dir push``).
_GIT_VALUE_OPTIONS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})


class CommandRule(msgspec.Struct, frozen=True):
    """One remembered bash rule: an exact command, or a prefix of whole words."""

    kind: Literal["exact", "prefix"]
    text: str
    """The command (or the prefix, without the trailing `` *``)."""

    @property
    def label(self) -> str:
        """The rule as the user reads and edits it (a prefix ends in `` *``)."""
        return self.text + PREFIX_MARK if self.kind == "prefix" else self.text

    def matches(self, command: str) -> bool:
        """True if this rule covers ``command`` word for word (nothing else is judged)."""
        mine, theirs = shell_words(self.text), shell_words(command)
        if not mine or theirs is None or mine is None:
            return False
        if self.kind == "exact":
            return theirs == mine
        return theirs[: len(mine)] == mine


def parse_rule(label: str) -> CommandRule | None:
    """The rule a user typed: ``… *`` is a prefix, anything else an exact command."""
    text = label.strip()
    if text == "*" or text.endswith(PREFIX_MARK):
        prefix = text[:-1].strip()
        return CommandRule("prefix", prefix) if prefix else None
    return CommandRule("exact", text) if text else None


def never_remembered(command: str) -> str | None:
    """Why ``command`` may never be covered by an "always" rule, or None if it may.

    Fast and pure (no file access): this is what the dialog shows when it offers no
    "always" choice.
    """
    if SHELL_CONTROL.search(command):
        return "it uses shell control (;, &&, |, redirects, $(…))"
    if SHELL_EXPANSION.search(command):
        return "the shell would expand it ($, ~, braces, globs, escapes): not literal"
    words = shell_words(command)
    if words is None:
        return "it cannot be read as shell words"
    return _destructive(words)


def _destructive(words: list[str]) -> str | None:
    words = _unwrap(words)
    if not words:
        return None
    name = os.path.basename(words[0])
    args = words[1:]
    if name in _DESTRUCTIVE or name.startswith("mkfs."):
        return f"`{name}` deletes or overwrites data"
    if name in _PRIVILEGE:
        return f"`{name}` runs with other privileges"
    if name in _RUNS_TEXT:
        return f"`{name}` runs commands given as text"
    if name == "chmod" and any(a in ("-R", "--recursive") or _short_flag(a, "R") for a in args):
        return "`chmod -R` changes a whole tree"
    if name == "find" and any(a in ("-delete", "-exec", "-execdir", "-ok", "-okdir") for a in args):
        return "`find` deletes or runs commands"
    if name == "git":
        return _git_destructive(args)
    return None


def _unwrap(words: list[str]) -> list[str]:
    """The command a wrapper runs: ``env A=1 nice -n 5 rm x`` → ``rm x``."""
    rest = list(words)
    while rest:
        head = os.path.basename(rest[0])
        if _ASSIGNMENT.match(rest[0]):
            rest.pop(0)
        elif head in _WRAPPERS:
            rest.pop(0)
            # Their own options (``nice -n 5``, ``timeout 10``) come first.
            while rest and (rest[0].startswith("-") or _DURATION.match(rest[0])):
                option = rest.pop(0)
                if option in ("-n", "-s", "-k", "-u") and rest:
                    rest.pop(0)
        else:
            break
    return rest


def _short_flag(word: str, letter: str) -> bool:
    return word.startswith("-") and not word.startswith("--") and letter in word[1:]


def _git_destructive(args: list[str]) -> str | None:
    rest = list(args)
    while rest and rest[0].startswith("-"):
        option = rest.pop(0)
        if option in _GIT_VALUE_OPTIONS and rest:
            rest.pop(0)
    if not rest:
        return None
    sub, options = rest[0], rest[1:]
    if sub == "push" and any(
        o in ("--force", "--force-with-lease", "--mirror", "--delete", "--prune")
        or o.startswith("--force-with-lease=")
        or _short_flag(o, "f")
        or _short_flag(o, "d")
        or (o.startswith("+") and len(o) > 1)
        or (o.startswith(":") and len(o) > 1)
        for o in options
    ):
        return "`git push --force` rewrites the remote"
    if sub == "reset" and "--hard" in options:
        return "`git reset --hard` discards changes"
    if sub == "clean":
        return "`git clean` deletes untracked files"
    if sub in ("checkout", "restore") and ("--" in options or "." in options):
        return f"`git {sub}` discards changes"
    if sub == "branch" and any(o in ("-D", "--delete") for o in options):
        return "`git branch -D` deletes a branch"
    return None


def proposed_rule(command: str) -> CommandRule | None:
    """What "always" offers for ``command``: the exact command, or None if never offered."""
    if never_remembered(command) is not None:
        return None
    text = " ".join(shlex.quote(w) for w in shell_words(command) or [])
    return CommandRule("exact", text) if text else None


def validate_rule(label: str, command: str) -> CommandRule | str:
    """The rule a user edited for ``command``, or why it cannot be saved."""
    rule = parse_rule(label)
    if rule is None:
        return "the rule is empty"
    if rule.kind == "prefix":
        reason = never_remembered(rule.text)
        if reason is not None:
            return f"a rule cannot start like that: {reason}"
    if not rule.matches(command):
        return "the rule does not cover this command"
    return rule


def rule_applies(rule: CommandRule, command: str, cwd: Path) -> bool:
    """True if ``rule`` lets ``command`` run in ``cwd`` without asking.

    Blocking (resolves the paths the command names); the gate runs it in a thread.
    """
    if never_remembered(command) is not None or not rule.matches(command):
        return False
    return not names_outside(command, cwd)


def tool_rule_applies(command: str, cwd: Path) -> bool:
    """True if a remembered "bash: any command" rule lets ``command`` run: the same limits
    as a command rule (literal, nothing destructive, nothing outside). Blocking."""
    return never_remembered(command) is None and not names_outside(command, cwd)


def names_outside(command: str, cwd: Path) -> bool:
    """True if a word of ``command`` (or the value of ``--opt=value``) resolves outside ``cwd``.

    Every word is read as a path relative to ``cwd``, symlinks followed: a plain word
    stays inside, ``/etc/x``, ``~/y``, ``../z`` and ``link/w`` (``link -> /outside``) do
    not. Blocking.
    """
    root = str(cwd)
    for word in (shell_words(command) or [])[1:]:
        values = [word, word.split("=", 1)[1]] if word.startswith("-") and "=" in word else [word]
        for value in values:
            if value.startswith("-") or not value:
                continue
            # Not normalised: the shell resolves ``link/..`` through the link, and so does this.
            if not is_within(os.path.join(root, expand_path(value)), root):
                return True
    return False


# One shell word: runs of unquoted characters, '…' and "…" (no backslash: see _words).
_WORD = lazy_pattern(r"""(?:[^ \t'"]+|'[^']*'|"[^"]*")+""")
_BLANKS = lazy_pattern(r"[ \t]+")
_QUOTED = lazy_pattern(r"""'([^']*)'|"([^"]*)"|([^'"]+)""")


def shell_words(command: str) -> list[str] | None:
    """``command`` split into words as bash splits them, quotes removed; None if it cannot
    be read (an unbalanced quote, a backslash).

    Linear, unlike :func:`shlex.split` (quadratic in the length of one word: a 1 MB
    command froze the approval dialog for half a minute). Only blanks (space, tab)
    separate words, as in bash; a backslash is not read at all (a command holding one is
    never literal, see :data:`SHELL_EXPANSION`), so quoting is just ``'…'`` and ``"…"``.
    """
    if "\\" in command:
        return None
    words: list[str] = []
    position = _BLANKS.match(command)
    at = position.end() if position else 0
    while at < len(command):
        word = _WORD.match(command, at)
        if word is None:
            return None  # an unbalanced quote
        words.append("".join(a or b or c for a, b, c in _QUOTED.findall(word.group())))
        blanks = _BLANKS.match(command, word.end())
        if blanks is None and word.end() < len(command):
            return None
        at = blanks.end() if blanks else word.end()
    return words


_GIT_WRITES = frozenset(
    {
        "add", "commit", "checkout", "switch", "restore", "reset", "rm", "mv", "merge",
        "stash", "tag", "branch", "cherry-pick", "revert", "fetch", "pull", "apply", "notes",
        "gc", "update-index", "update-ref", "read-tree", "write-tree", "commit-tree",
    }
)  # fmt: skip
"""git commands that write the repository and run nothing given to them."""
_GIT_RUNS = ("--exec", "-x", "--upload-pack", "--receive-pack", "--ext-diff", "--rebase",
             "--template", "--strategy", "-s", "-X", "--strategy-option")  # fmt: skip
"""Their options that would run something (or a merge driver) of the model's choosing."""


def git_writes(command: str) -> bool:
    """True if ``command`` is one plain ``git`` command that writes the repository
    (``git commit -m x``, ``git checkout -b y``): all literal words, no global option
    (``-c``, ``-C``, ``--git-dir``), no option that runs a command. What the sandbox may
    run with ``.git`` writable once the user allows it."""
    if SHELL_CONTROL.search(command) or SHELL_EXPANSION.search(command):
        return False
    words = shell_words(command)
    if not words or len(words) < 2 or words[0] != "git" or words[1] not in _GIT_WRITES:
        return False
    return not any(w == o or w.startswith((o + "=", o + " ")) for w in words[2:] for o in _GIT_RUNS)
