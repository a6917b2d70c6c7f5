"""The seccomp filter's program: built for the known machines, refused for the others."""

from __future__ import annotations

import pytest

from pitui.core.sandbox_rules import RuleError, seccomp_program


def test_every_jump_lands_inside_the_seccomp_program() -> None:
    for machine in ("x86_64", "aarch64"):
        for network in (True, False):
            code = seccomp_program(machine, network)
            assert code[-1] == (0x06, 0, 0, 0x7FFF0000)  # the default: allow
            for index, (op, jt, jf, _) in enumerate(code):
                if op & 0x07 == 0x05:  # a jump
                    assert index + 1 + max(jt, jf) < len(code)


def test_the_network_switch_adds_the_socket_rules() -> None:
    assert len(seccomp_program("x86_64", False)) > len(seccomp_program("x86_64", True))


def test_an_unknown_machine_has_no_filter() -> None:
    with pytest.raises(RuleError, match="x86_64 and aarch64 only"):
        seccomp_program("riscv64", True)
