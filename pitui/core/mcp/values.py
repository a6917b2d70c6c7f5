"""``env`` and ``headers`` values of ``mcp.json``, resolved as pi 1.6 resolves them.

A value that starts with ``!`` is a shell command whose trimmed stdout is the value
(the whole value must be the command; pitui's one runner for ``!command`` values,
:func:`pitui.ai.keys.resolve_config_value`, runs it). Any other value is a template:
``${NAME}`` and ``$NAME`` are environment variables, ``$$`` is a literal ``$`` and
``$!`` a literal ``!``. A variable that is unset or empty fails the value, with a message
naming it, so a server never starts with a half-filled credential.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from pitui.ai.keys import resolve_config_value

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class UnresolvedValue(Exception):
    """A value that cannot be resolved; the message names what is missing."""


def template_parts(value: str) -> list[tuple[bool, str]]:
    """``(is_variable, text)`` pieces of a template value."""
    parts: list[tuple[bool, str]] = []
    index = 0
    while index < len(value):
        dollar = value.find("$", index)
        if dollar < 0:
            parts.append((False, value[index:]))
            break
        parts.append((False, value[index:dollar]))
        following = value[dollar + 1 : dollar + 2]
        if following in ("$", "!"):
            parts.append((False, following))
            index = dollar + 2
        elif following == "{" and (end := value.find("}", dollar + 2)) >= 0:
            name = value[dollar + 2 : end]
            parts.append(
                (True, name) if _NAME.fullmatch(name) else (False, value[dollar : end + 1])
            )
            index = end + 1
        elif match := _NAME.match(value, dollar + 1):
            parts.append((True, match.group(0)))
            index = match.end()
        else:
            parts.append((False, "$"))
            index = dollar + 1
    return [part for part in parts if part[1]]


def resolve_template(value: str, environ: Mapping[str, str] | None = None) -> str:
    """Fill in the variables of a template value.

    Raises:
        UnresolvedValue: a variable is unset or empty.
    """
    env = os.environ if environ is None else environ
    parts = template_parts(value)
    missing = [text for is_var, text in parts if is_var and not env.get(text)]
    if missing:
        names = ", ".join(dict.fromkeys(missing))
        plural = "variables" if len(set(missing)) > 1 else "variable"
        raise UnresolvedValue(f"environment {plural} not set: {names}")
    return "".join(env[text] if is_var else text for is_var, text in parts)


async def resolve_value(value: str, what: str) -> str:
    """One ``env``/``headers`` value; ``what`` names it in errors (``env "API_KEY"``).

    Raises:
        UnresolvedValue: the command failed or printed nothing, or a variable is missing.
    """
    if value.startswith("!"):
        result = await resolve_config_value(value)
        if result is None:
            raise UnresolvedValue(f"cannot resolve {what}: the command failed: {value[1:]}")
        return result
    try:
        return resolve_template(value)
    except UnresolvedValue as exc:
        raise UnresolvedValue(f"cannot resolve {what}: {exc}") from None


async def resolve_map(values: Mapping[str, str] | None, kind: str) -> dict[str, str]:
    """Every value of an ``env`` or ``headers`` map (``kind`` is the map's name)."""
    return {
        key: await resolve_value(value, f'{kind} "{key}"') for key, value in (values or {}).items()
    }


def expand_home(value: str) -> str:
    """A leading ``~/`` (or a bare ``~``) names the home directory."""
    if value == "~":
        return str(Path.home())
    return str(Path.home() / value[2:]) if value.startswith("~/") else value
