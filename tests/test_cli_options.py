"""The flags read without argparse (pitui/cli_options.py ``simple_arguments``) are what
argparse reads: on every command line it takes, it gives argparse's attributes exactly,
and every command line it declines is one argparse reads differently or rejects."""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
from typing import Any

import pytest

from pitui.cli_options import build_parser, simple_arguments

PROMPTS = [[], ["hi"], ["read notes.txt", "and more"], [""], ["-"], ["- a list"], ["-5"]]
FLAGS = [
    [],
    ["-p"],
    ["--print"],
    ["-p", "--model", "loopback/bench-model"],
    ["--model", "a/b:high", "-p", "--no-session"],
    ["--mode", "json"],
    ["--mode", "xml"],
    ["--thinking", "high", "--approve", "all", "-c"],
    ["--tools", "read,grep", "--exclude-tools", "bash", "--no-mcp", "--read-only"],
    ["--model"],
    ["--model", "-x"],
    ["--model", "--print"],
    ["--mod", "x"],
    ["--model=a/b"],
    ["-pc"],
    ["--help"],
    ["-h"],
    ["--version", "-p"],
    ["--list-models"],
    ["--list-models", "gpt"],
    ["--export", "s.jsonl"],
    ["--session", "abc", "--session-dir", "d", "-r", "--trust-project"],
    ["--system-prompt", "be brief", "--append-system-prompt", "x", "--api-key", "k"],
    ["--", "-p"],
    ["--unknown"],
    ["--theme", "light", "--provider", "anthropic", "--no-checkpoints"],
    ["-p", "--model", "a", "--model", "b"],
]


def _argparse(argv: list[str]) -> dict[str, Any] | None:
    """argparse's attributes for ``argv`` (None: it exits, with help or an error)."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            return vars(build_parser().parse_args(argv))
        except SystemExit:
            return None


@pytest.mark.parametrize(
    "argv",
    [
        *(flags + prompt for flags, prompt in itertools.product(FLAGS, PROMPTS)),
        *(prompt + flags for flags, prompt in itertools.product(FLAGS, PROMPTS) if prompt),
    ],
)
def test_simple_arguments_are_argparses(argv: list[str]) -> None:
    simple = simple_arguments(argv)
    if simple is not None:
        assert simple == _argparse(argv)


def test_the_bench_command_line_is_simple() -> None:
    argv = ["-p", "--model", "loopback/bench-model", "Read notes.txt and tell me what it says."]
    assert simple_arguments(argv) == vars(build_parser().parse_args(argv))


def test_a_simple_namespace_reads_like_argparses() -> None:
    argv = ["-p", "hi"]
    parsed = build_parser().parse_args(argv)
    assert isinstance(parsed, argparse.Namespace)
    assert sorted(simple_arguments(argv) or {}) == sorted(vars(parsed))
