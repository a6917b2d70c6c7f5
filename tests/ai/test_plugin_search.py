"""pitui's models never pay for pydantic's search of installed plugins."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import importlib.metadata as metadata
calls = []
real = metadata.entry_points
def entry_points(*args, **kwargs):
    calls.append(kwargs.get("group"))
    return real(*args, **kwargs)
metadata.entry_points = entry_points
import pydantic.plugin._loader as loader
loader.entry_points = entry_points
import pitui.ai.types
pitui.ai.types.UserMessage(content="hi").to_json_dict()
print(calls)
"""


def test_no_entry_point_search_for_pydantic_plugins() -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert "pydantic" not in out, out
