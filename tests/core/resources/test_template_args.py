"""Template arguments: pi's shell-like quoting and every substitution its doc lists."""

from __future__ import annotations

import pytest

from pitui.core.resources.template_args import parse_command_args, substitute_args


@pytest.mark.parametrize(
    ("text", "args"),
    [
        ("", []),
        ("a b  c", ["a", "b", "c"]),
        ('"API compatibility"', ["API compatibility"]),
        ("'single quoted' x", ["single quoted", "x"]),
        ("doesn't matter", ["doesn't", "matter"]),  # a quote inside a word is text
        ('say"hi"', ['say"hi"']),
        ('"unclosed quote', ['"unclosed', "quote"]),  # never closed: kept as text
        ('a "', ["a", '"']),
        ('"the \\"fast\\" path"', ['the "fast" path']),  # \" inside "…" is a quote
        ("'it\\'s'", ["it's"]),
        ('"keep \\n and \\\\ as typed"', ["keep \\n and \\\\ as typed"]),
        ("\"mixed 'inner' quotes\"", ["mixed 'inner' quotes"]),
        ('"" empty', ["", "empty"]),
        ('"a b"c d', ["a bc", "d"]),
        ("tab\tand\nnewline", ["tab", "and", "newline"]),
    ],
)
def test_arguments_split_as_pi_splits_them(text: str, args: list[str]) -> None:
    assert parse_command_args(text) == args


@pytest.mark.parametrize(
    ("template", "args", "result"),
    [
        ("Review $1 and $2", ["a.py", "b.py"], "Review a.py and b.py"),
        ("missing: [$3]", ["x"], "missing: []"),
        ("all: $@", ["a", "b c"], "all: a b c"),
        ("all: $ARGUMENTS", ["a", "b"], "all: a b"),
        ("Review ${1:-everything} carefully", [], "Review everything carefully"),
        ("Review ${1:-everything} carefully", ["main.py"], "Review main.py carefully"),
        ("${@:-nothing given}", [], "nothing given"),
        ("${@:-nothing given}", ["x", "y"], "x y"),
        ("${ARGUMENTS:-none}", [], "none"),
        ("${@:2}", ["a", "b", "c"], "b c"),
        ("${@:2:1}", ["a", "b", "c"], "b"),
        ("${@:0}", ["a", "b"], "a b"),
        ("${@:5}", ["a"], ""),
        ("$10", [str(i) for i in range(1, 11)], "10"),
        ("$0 and ${0:-zero}", ["a"], " and zero"),
        ("cost: $", ["a"], "cost: $"),
        ("no ${unknown} change", ["a"], "no ${unknown} change"),
        ("once: $1", ["$2"], "once: $2"),  # substituted text is not scanned again
        ("${1:-}", [], ""),
    ],
)
def test_substitutions(template: str, args: list[str], result: str) -> None:
    assert substitute_args(template, args) == result
