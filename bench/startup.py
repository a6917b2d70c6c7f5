"""Benchmark: wall time of ``pitui --version`` as a fresh process.

Start-up cost is what a user pays on every invocation, so the CLI must answer
``--version`` and ``--help`` without importing textual, pydantic or any provider.
Runs the ``pitui`` script next to the interpreter (else ``python -m pitui``) a number of
times and prints the median wall time in milliseconds.

Run: ``python bench/startup.py [--runs 20] [-- PITUI_ARGS…]`` (default arguments:
``--version``). Target: median < 100 ms.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGET_MS = 100.0


def command() -> list[str]:
    """The ``pitui`` console script beside ``sys.executable``, else ``python -m pitui``."""
    script = Path(sys.executable).with_name("pitui")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-m", "pitui"]


def time_once(argv: list[str]) -> float:
    """Milliseconds from spawn to exit of one run; fails loudly on a non-zero exit."""
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - start) * 1000


def _split_at_double_dash(args: list[str]) -> tuple[list[str], bool, list[str]]:
    if "--" not in args:
        return args, False, []
    cut = args.index("--")
    return args[:cut], True, args[cut + 1 :]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="number of timed runs")
    own, sep, pitui_args = _split_at_double_dash(sys.argv[1:])
    options = parser.parse_args(own)
    argv = [*command(), *(pitui_args if sep else ["--version"])]
    time_once(argv)  # warm the OS file cache and the bytecode cache
    samples = [time_once(argv) for _ in range(options.runs)]
    median = statistics.median(samples)
    print(f"command: {' '.join(argv)}")
    print(f"runs: {options.runs}  min: {min(samples):.1f} ms  max: {max(samples):.1f} ms")
    print(f"median: {median:.1f} ms  (target < {TARGET_MS:.0f} ms)")
    return 0 if median < TARGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
