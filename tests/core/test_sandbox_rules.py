"""The seccomp filter's program: built for the known machines, refused for the others."""

from __future__ import annotations

import itertools

import pytest

from pitui.core.sandbox_rules import RuleError, seccomp_program


def test_every_jump_lands_inside_the_seccomp_program() -> None:
    switches = (True, False)
    for machine, network, unix in itertools.product(("x86_64", "aarch64"), switches, switches):
        code = seccomp_program(machine, network, unix)
        assert code[-1] == (0x06, 0, 0, 0x7FFF0000)  # the default: allow
        for index, (op, jt, jf, _) in enumerate(code):
            if op & 0x07 == 0x05:  # a jump
                assert index + 1 + max(jt, jf) < len(code)


def test_the_network_and_unix_switches_add_the_socket_rules() -> None:
    allowed = len(seccomp_program("x86_64", True, True))
    assert len(seccomp_program("x86_64", False, True)) > allowed
    assert len(seccomp_program("x86_64", True, False)) > allowed


def test_an_unknown_machine_has_no_filter() -> None:
    with pytest.raises(RuleError, match="x86_64 and aarch64 only"):
        seccomp_program("riscv64", True, True)
