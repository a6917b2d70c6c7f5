"""Benchmark: start-up of ``pitui`` as a fresh process — ``--version``, and one ``-p`` turn.

Start-up cost is what a user pays on every invocation. Two figures:

* ``pitui --version`` (median wall, target < 50 ms): the CLI answers it without importing
  textual, pydantic or any provider.
* ``pitui -p`` for one whole turn against ``bench/loopback_model.py`` (a scripted server
  on 127.0.0.1: a ``read notes.txt`` tool call, then the answer), median wall and CPU.
  With ``--pi DIR`` (a directory where pi was npm-installed: pi 0.73's
  ``node_modules/.bin/pi`` or pi 1.6's bundled node and ``cli.js``), ``pi -p`` runs the
  same turn against the same server in the same run, alternating pitui, pi, pitui, pi …
  so both see the same machine load; the figure is the median of the per-pair ratios
  (target ≤ 0.5, issue 26).

Measured with bytecode, as a real install has it: the pitui package is byte-compiled
first and the measured processes run without PYTHONDONTWRITEBYTECODE. The pitui measured
is this checkout's (``python -m pitui`` with it on PYTHONPATH, unless the ``pitui``
console script beside the interpreter already runs it).

Run: ``python bench/startup.py [--runs 10] [--pi DIR] [--only version|print]``;
``python bench/startup.py -- ARGS…`` times ``pitui ARGS…`` alone.

``--instructions`` counts the instructions of the same ``-p`` turn instead, from process
start to exit, under ``valgrind --tool=callgrind`` (load-independent, for A/B comparisons
on a busy machine), after one warm-up turn in the same home (as the timed runs have:
caches written); ``--tree DIR`` adds another checkout of pitui (e.g. ``git archive
<commit> | tar -x -C DIR``, byte-compiled here), measured with this interpreter.
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from loopback_model import MODEL, PROMPT, PROVIDER, LoopbackModel, write_agent_dirs
from pi_cli import offline_env, pi_command, pi_version

REPO = Path(__file__).resolve().parents[1]
VERSION_TARGET_MS = 50.0
RATIO_TARGET = 0.5
EXPECTED = "build is green"
"""A phrase of the scripted answer: the run really went through both turns."""
API_KEY_VARS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_OAUTH_TOKEN")


@dataclass
class Sample:
    wall_ms: float
    cpu_ms: float


@dataclass
class Series:
    name: str
    samples: list[Sample] = field(default_factory=list)

    def wall(self) -> float:
        return statistics.median(s.wall_ms for s in self.samples)

    def cpu(self) -> float:
        return statistics.median(s.cpu_ms for s in self.samples)

    def line(self) -> str:
        walls = [s.wall_ms for s in self.samples]
        return (
            f"{self.name}: median {self.wall():.0f} ms wall, {self.cpu():.0f} ms CPU "
            f"(min {min(walls):.0f}, max {max(walls):.0f}, {len(walls)} runs)"
        )


def base_env() -> dict[str, str]:
    """This environment without bytecode suppression or API keys."""
    env = {k: v for k, v in os.environ.items() if k not in API_KEY_VARS}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def pitui_command() -> tuple[list[str], dict[str, str]]:
    """How to start this checkout's pitui: (argv, extra environment)."""
    script = Path(sys.executable).with_name("pitui")
    probe = subprocess.run(
        [sys.executable, "-c", "import pitui; print(pitui.__file__)"],
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
        check=False,
    )
    found = Path(probe.stdout.strip()).resolve().parent.parent if probe.returncode == 0 else None
    if script.is_file() and found == REPO:
        return [str(script)], {}
    return [sys.executable, "-m", "pitui"], {"PYTHONPATH": str(REPO)}


def time_once(argv: list[str], env: dict[str, str], cwd: Path | None = None) -> tuple[Sample, str]:
    """One run from spawn to exit: (wall and CPU of the child, its stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True
    )
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    if done.returncode != 0:
        raise SystemExit(
            f"startup: {' '.join(argv)} exited {done.returncode}:\n{done.stderr[-2000:]}"
        )
    return Sample(wall, cpu), done.stdout


def bench_version(runs: int, args: list[str]) -> bool:
    """``pitui ARGS`` (default ``--version``) ``runs`` times; True when on target."""
    argv, extra = pitui_command()
    env = {**base_env(), **extra}
    command = [*argv, *args]
    time_once(command, env)  # warm the OS file cache
    series = Series(f"pitui {' '.join(args)}")
    for _ in range(runs):
        series.samples.append(time_once(command, env)[0])
    print(series.line())
    ok = series.wall() < VERSION_TARGET_MS
    print(f"  target < {VERSION_TARGET_MS:.0f} ms: {'met' if ok else 'MISSED'}")
    return ok


def print_turns(runs: int, pi_dir: Path | None) -> tuple[Series, Series | None]:
    """``runs`` one-turn ``-p`` runs of pitui and (with ``pi_dir``) pi, alternating."""
    argv, extra = pitui_command()
    try:
        pi = pi_command(pi_dir) if pi_dir is not None else None
    except ValueError as exc:
        raise SystemExit(f"startup: {exc}") from None
    pi_name = pi_version(pi_dir) if pi_dir is not None else "pi"
    with tempfile.TemporaryDirectory() as tmp, LoopbackModel() as server:
        dirs = write_agent_dirs(Path(tmp), server.base_url)
        common = {**base_env(), "HOME": str(dirs["home"])}
        pitui_env = {**common, **extra, "PITUI_HOME": str(dirs["pitui-home"])}
        pi_env = {**common, **offline_env(dirs["pi-agent"], dirs["home"])}
        flags = ["-p", "--model", f"{PROVIDER}/{MODEL}", PROMPT]
        runners = [("pitui -p", [*argv, *flags], pitui_env)]
        if pi is not None:
            runners.append((f"{pi_name} -p", [*pi, *flags], pi_env))
        series = {name: Series(name) for name, _, _ in runners}
        for name, command, env in runners:  # warm-up: file cache, bytecode, node's cache
            _check(name, time_once(command, env, dirs["project"])[1])
        for _ in range(runs):
            for name, command, env in runners:
                sample, out = time_once(command, env, dirs["project"])
                _check(name, out)
                series[name].samples.append(sample)
    return series["pitui -p"], series.get(f"{pi_name} -p")


def pair_ratio(mine: Series, theirs: Series) -> float:
    """The median of the per-pair wall-time ratios."""
    pairs = zip(mine.samples, theirs.samples, strict=True)
    return statistics.median(a.wall_ms / b.wall_ms for a, b in pairs)


def bench_print(runs: int, pi_dir: Path | None) -> bool:
    """One ``-p`` turn of pitui (and pi), alternating; True when on target."""
    mine, theirs = print_turns(runs, pi_dir)
    for one in (mine, theirs):
        if one is not None:
            print(one.line())
    if theirs is None:
        print("  (no --pi DIR: no comparison with pi)")
        return True
    pi_name = theirs.name.removesuffix(" -p")
    ratio = pair_ratio(mine, theirs)
    cpu_ratio = mine.cpu() / theirs.cpu()
    ok = ratio <= RATIO_TARGET
    print(f"pitui/{pi_name} wall, median of {len(mine.samples)} pairs: {ratio:.2f}", end="")
    print(f"  (CPU {cpu_ratio:.2f})")
    print(f"  target <= {RATIO_TARGET}: {'met' if ok else 'MISSED'}")
    return ok


def print_instructions(trees: list[Path]) -> None:
    """Instructions of one ``-p`` turn of each pitui checkout in ``trees`` (callgrind)."""
    counts: list[int] = []
    for tree in trees:
        compileall.compile_dir(str(tree / "pitui"), quiet=1)
        with tempfile.TemporaryDirectory() as tmp, LoopbackModel() as server:
            dirs = write_agent_dirs(Path(tmp), server.base_url)
            env = {**base_env(), "HOME": str(dirs["home"]), "PITUI_HOME": str(dirs["pitui-home"])}
            env.update(PYTHONPATH=str(tree), PYTHONHASHSEED="0")
            command = [sys.executable, "-m", "pitui", "-p", "--model", f"{PROVIDER}/{MODEL}"]
            command.append(PROMPT)
            _check("pitui -p", time_once(command, env, dirs["project"])[1])  # warm-up
            out = Path(tmp) / "callgrind.out"
            valgrind = ["setarch", "-R", "valgrind", "--tool=callgrind", "--dump-instr=no"]
            _check(
                "pitui -p",
                time_once(
                    [*valgrind, f"--callgrind-out-file={out}", *command], env, dirs["project"]
                )[1],
            )
            found = re.search(r"^(?:summary|totals):\s+(\d+)", out.read_text(), re.M)
            if found is None:
                raise SystemExit(f"startup: no callgrind summary for {tree}")
            counts.append(int(found.group(1)))
        print(f"pitui -p turn, {tree}: {counts[-1] / 1e6:.1f} M instructions")
    if len(counts) == 2:
        new, old = counts[0] / 1e6, counts[1] / 1e6
        print(f"  {old:.1f} M -> {new:.1f} M ({new / old - 1:+.1%})")


def _check(name: str, stdout: str) -> None:
    if EXPECTED not in stdout:
        raise SystemExit(f"startup: {name} did not give the scripted answer: {stdout!r}")


def _split_at_double_dash(args: list[str]) -> tuple[list[str], list[str] | None]:
    if "--" not in args:
        return args, None
    cut = args.index("--")
    return args[:cut], args[cut + 1 :]


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="timed runs of each command")
    parser.add_argument("--pi", type=Path, help="directory where pi was npm-installed")
    parser.add_argument("--only", choices=["version", "print"], help="one of the two figures")
    parser.add_argument(
        "--instructions", action="store_true", help="count a -p turn's instructions instead"
    )
    parser.add_argument("--tree", type=Path, help="with --instructions: another checkout too")
    own, pitui_args = _split_at_double_dash(sys.argv[1:])
    options = parser.parse_args(own)
    if options.instructions:
        print_instructions([REPO, *([options.tree] if options.tree else [])])
        return 0
    compileall.compile_dir(str(REPO / "pitui"), quiet=1)
    if pitui_args is not None:
        return 0 if bench_version(options.runs, pitui_args) else 1
    ok = True
    if options.only in (None, "version"):
        ok = bench_version(max(options.runs, 20), ["--version"]) and ok
    if options.only in (None, "print"):
        ok = bench_print(options.runs, options.pi) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
