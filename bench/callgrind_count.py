"""Instructions a Python script run takes, under ``valgrind --tool=callgrind``.

The benches that count a phase by difference (a run with 0 and with N repetitions) share
this: the script runs with this interpreter, the given checkout first on ``PYTHONPATH``,
a fixed hash seed and no address randomisation (``setarch -R``), so the count repeats.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path


def instructions(
    tree: Path, script: str, *args: str, extra_env: Mapping[str, str] | None = None
) -> int:
    """Instructions of ``python script args…`` run in ``tree`` (exits on failure)."""
    out = Path(tempfile.mkdtemp()) / "callgrind.out"
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0", **(extra_env or {})}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    command = [
        "setarch", "-R", "valgrind", "--tool=callgrind", "--dump-instr=no",
        f"--callgrind-out-file={out}", sys.executable, script, *args,
    ]  # fmt: skip
    done = subprocess.run(command, env=env, cwd=tree, capture_output=True, text=True, check=False)
    match = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or match is None:
        raise SystemExit(f"callgrind failed:\n{done.stderr[-2000:]}")
    return int(match.group(1))
