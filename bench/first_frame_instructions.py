"""Benchmark: instructions from process start to the first frame written to the terminal.

Issue 26's first-screen rows (``bench/issue26.py --rows screen,nokey``) are wall-clock
figures, which a busy machine blurs; this counts instructions under ``valgrind
--tool=callgrind`` instead (load-independent, ~±0.5 %), for the three starts those rows
compare: the bare Textual app (``bench/bare_textual.py``), pitui with a configured model
(the loopback model of ``bench/loopback_model.py``, after one earlier start in the same
home, as the bench's warm-up run: start-up snapshot and parsed-CSS cache written) and
pitui's first run with no key (a fresh home every time).

Each program runs in a pseudo-terminal (``script``, 140x40) under a small wrapper that
patches ``textual.app.App._display`` when Textual is first imported (an import hook: the
program's own import order and garbage-collection settings stay as they are): after the
first non-empty frame, the output thread is stopped (everything queued is written) and
the process exits. ``PYTHONHASHSEED=0``, no address randomisation and a stable working
directory keep the count repeatable. ``--tree DIR`` measures another checkout of pitui
(e.g. ``git archive <commit> | tar -x -C DIR``, byte-compiled) with this interpreter.

Run: ``python bench/first_frame_instructions.py [--tree DIR] [--runs 1]`` (needs valgrind
and script; ~10 s a run).
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

from loopback_model import LoopbackModel, write_agent_dirs  # noqa: E402

WIDTH, HEIGHT = 140, 40
WRAPPER = """
import importlib.abc, importlib.machinery, os, runpy, sys

def _patch(module):
    display = module.App._display
    def _display(self, screen, renderable):
        display(self, screen, renderable)
        if renderable is not None:
            writer = getattr(self._driver, "_writer_thread", None)
            if writer is not None:
                writer.stop()
            os._exit(0)
    module.App._display = _display

class Hook(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "textual.app":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        run = spec.loader.exec_module
        def exec_module(module):
            run(module)
            _patch(module)
        spec.loader.exec_module = exec_module
        return spec

sys.meta_path.insert(0, Hook())
sys.argv = sys.argv[1:]
if sys.argv[0].endswith(".py"):
    runpy.run_path(sys.argv[0], run_name="__main__")
else:
    from pitui.cli import main
    sys.exit(main(sys.argv[1:]))
"""


def _instructions(argv: list[str], env: dict[str, str], cwd: Path, out: Path) -> int:
    """Instructions of one run of ``argv`` under callgrind in a 140x40 pseudo-terminal."""
    command = [
        "setarch", "-R", "valgrind", "--tool=callgrind", "--dump-instr=no",
        f"--callgrind-out-file={out}", *argv,
    ]  # fmt: skip
    inner = f"stty cols {WIDTH} rows {HEIGHT}; {shlex.join(command)}"
    subprocess.run(
        ["script", "-qfc", inner, "/dev/null"],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=300,
        check=False,
    )
    found = re.search(r"summary:\s+(\d+)", out.read_text())
    if found is None:
        raise RuntimeError(f"no callgrind summary for {argv}")
    return int(found.group(1))


def _environment(tree: Path, home: Path, pitui_home: Path) -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if "API_KEY" not in name and "TOKEN" not in name and name != "PYTHONDONTWRITEBYTECODE"
    }
    env.update(PYTHONPATH=str(tree), PYTHONHASHSEED="0", HOME=str(home))
    env["PITUI_HOME"] = str(pitui_home)
    return env


def _warm_up(env: dict[str, str], cwd: Path, model: list[str]) -> None:
    """One ordinary start that runs past its first frame (it writes the start-up snapshot
    and the parsed-CSS cache), ended after a few seconds."""
    process = subprocess.Popen(
        ["script", "-qfc", shlex.join([sys.executable, "-m", "pitui", *model]), "/dev/null"],
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(6)
    process.terminate()
    process.wait(timeout=10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="pitui checkout to measure")
    parser.add_argument("--runs", type=int, default=1)
    options = parser.parse_args()
    if shutil.which("valgrind") is None or shutil.which("script") is None:
        print("needs valgrind and script")
        return 1
    tree = options.tree.resolve()
    compileall.compile_dir(str(tree / "pitui"), quiet=1)
    with tempfile.TemporaryDirectory() as tmp, LoopbackModel() as server:
        root = Path(tmp)
        dirs = write_agent_dirs(root, server.base_url)
        wrapper = root / "wrapper" / "first_frame.py"
        wrapper.parent.mkdir()
        wrapper.write_text(WRAPPER)
        model = ["--model", "loopback/bench-model"]
        configured = _environment(tree, dirs["home"], dirs["pitui-home"])
        _warm_up(configured, dirs["project"], model)
        python = [sys.executable, str(wrapper)]
        counts: dict[str, list[int]] = {"bare": [], "configured": [], "no key": []}
        for index in range(options.runs):
            out = root / f"cg.{index}"
            bare = [*python, str(BENCH / "bare_textual.py")]
            counts["bare"].append(_instructions(bare, configured, dirs["project"], out))
            ours = [*python, "pitui", *model]
            counts["configured"].append(_instructions(ours, configured, dirs["project"], out))
            first = root / f"first-{index}"
            for name in ("home", "state", "project"):
                (first / name).mkdir(parents=True)
            fresh = _environment(tree, first / "home", first / "state")
            no_key = [*python, "pitui"]
            counts["no key"].append(_instructions(no_key, fresh, first / "project", out))
    bare_m = min(counts["bare"]) / 1e6
    print(f"instructions to the first frame ({tree}):")
    for name, values in counts.items():
        figure = min(values) / 1e6
        print(f"  {name:<11} {figure:8.1f} M  {figure / bare_m:.2f}x bare")
    return 0


if __name__ == "__main__":
    sys.exit(main())
