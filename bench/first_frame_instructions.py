"""Benchmark: instructions from process start to the first frame written to the terminal,
and whether the screen stays as that frame drew it until pitui is ready for keys.

Issue 26's first-screen rows (``bench/issue26.py --rows screen,nokey``) are wall-clock
figures, which a busy machine blurs; this counts instructions under ``valgrind
--tool=callgrind`` instead (load-independent, ~±0.5 %), for the three starts those rows
compare: the bare Textual app (``bench/bare_textual.py``), pitui with a configured model
(the loopback model of ``bench/loopback_model.py``, after one earlier start in the same
home, as the bench's warm-up run: start-up snapshot and parsed-CSS cache written) and
pitui's first run with no key (a fresh home every time). Each row prints its ratio to bare.

Each program runs in a pseudo-terminal (``script``, ``--size``, 140x40 by default) under a
small wrapper that patches ``textual.app.App._display`` when Textual is first imported (an
import hook: the program's own import order and garbage-collection settings stay as they
are): after the first non-empty frame, the output thread is stopped (everything queued is
written) and the process exits. ``PYTHONHASHSEED=0``, no address randomisation and a
stable working directory keep the count repeatable. ``--runs N`` repeats each count and
keeps the lowest. ``--tree DIR`` measures another checkout of pitui (e.g. ``git archive
<commit> | tar -x -C DIR``, byte-compiled here) with this interpreter. ``--keep DIR`` keeps
each row's callgrind file there (``bare.0.callgrind``, ``configured.0.callgrind``,
``nokey.0.callgrind``) for ``callgrind_annotate``.

The stability check runs the configured start and the first start with no key (a fresh
home) without valgrind, keeps every frame written until the app is ready for keys
(``PituiApp._after_first_frame`` done: the real composer in its stand-in's place, the
autocomplete list added) and counts the cells any of them drew differently from the first
frame (character or style). ``bench/issue26.py`` takes the
first stable screen as the time the screen stops changing: a change here would move it.

Run: ``python bench/first_frame_instructions.py [--tree DIR] [--size 140x40] [--runs 1]``
(needs valgrind and script; ~10 s a run).
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

MODEL = ["--model", "loopback/bench-model"]
# Run as ``python first_frame.py PROGRAM ARGS``: PROGRAM is a script (``*.py``) or pitui.
# With FF_KEEP=PATH it lets every frame through, keeps a copy of each, and once pitui is
# ready for keys writes them to PATH (NUL-separated) and exits; otherwise it exits right
# after the first frame.
WRAPPER = """
import importlib.abc, importlib.machinery, os, runpy, sys

KEEP = os.environ.get("FF_KEEP")
frames = []

def _exit_after_first_frame(display):
    def _display(self, screen, renderable):
        display(self, screen, renderable)
        if renderable is not None:
            writer = getattr(self._driver, "_writer_thread", None)
            if writer is not None:
                writer.stop()
            os._exit(0)
    return _display

def _keep_frames(display):
    def _display(self, screen, renderable):
        driver = self._driver
        if renderable is None or driver is None:
            return display(self, screen, renderable)
        write, written = driver.write, []
        driver.write = written.append
        try:
            display(self, screen, renderable)
        finally:
            driver.write = write
        if written:
            frames.append("".join(written))
            write(frames[-1])
    return _display

def _patch_textual(module):
    patch = _keep_frames if KEEP else _exit_after_first_frame
    module.App._display = patch(module.App._display)

def _save_and_exit():
    with open(KEEP, "w") as out:
        out.write("\\0".join(frames))
    os._exit(0)

def _patch_pitui(module):
    after = module.PituiApp._after_first_frame
    async def _after_first_frame(self):
        await after(self)
        self.call_after_refresh(_save_and_exit)
    module.PituiApp._after_first_frame = _after_first_frame

PATCHES = {"textual.app": _patch_textual}
if KEEP:
    PATCHES["pitui.ui.app"] = _patch_pitui

class Hook(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        patch = PATCHES.pop(name, None)
        if patch is None:
            return None
        if not PATCHES:
            sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        run = spec.loader.exec_module
        def exec_module(module):
            run(module)
            patch(module)
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
_TOKEN = re.compile(r"\x1b\[([0-9;?]*)([A-Za-z])|([^\x1b\n])", re.S)


def _in_terminal(command: list[str], size: tuple[int, int], env: dict[str, str], cwd: Path) -> None:
    """Run ``command`` in a pseudo-terminal of ``size`` (columns, rows)."""
    inner = f"stty cols {size[0]} rows {size[1]}; {shlex.join(command)}"
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


def _keep_profiles(root: Path, index: int, keep: Path) -> None:
    """Copy run ``index``'s callgrind files (one a row) into ``keep``."""
    keep.mkdir(parents=True, exist_ok=True)
    for row in ("bare", "configured", "nokey"):
        shutil.copyfile(root / f"cg.{index}.{row}", keep / f"{row}.{index}.callgrind")


def _instructions(
    argv: list[str], env: dict[str, str], cwd: Path, size: tuple[int, int], out: Path
) -> int:
    """Instructions of one run of ``argv`` under callgrind, up to its first frame."""
    command = [
        "setarch", "-R", "valgrind", "--tool=callgrind", "--dump-instr=no",
        f"--callgrind-out-file={out}", *argv,
    ]  # fmt: skip
    out.unlink(missing_ok=True)
    _in_terminal(command, size, env, cwd)
    found = re.search(
        r"^(?:summary|totals):\s+(\d+)", out.read_text() if out.exists() else "", re.M
    )
    if found is None:
        raise RuntimeError(f"no callgrind summary for {argv}")
    return int(found.group(1))


def _environment(tree: Path, home: Path, pitui_home: Path) -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if "API_KEY" not in name and "TOKEN" not in name and name != "PYTHONDONTWRITEBYTECODE"
    }
    env.update(PYTHONPATH=str(tree), PYTHONHASHSEED="0", HOME=str(home), TERM="xterm-256color")
    env["PITUI_HOME"] = str(pitui_home)
    return env


def _warm_up(env: dict[str, str], cwd: Path, size: tuple[int, int]) -> None:
    """One ordinary start that runs past its first frame (it writes the start-up snapshot
    and the parsed-CSS cache), ended after a few seconds."""
    command = shlex.join([sys.executable, "-m", "pitui", *MODEL])
    process = subprocess.Popen(
        ["script", "-qfc", f"stty cols {size[0]} rows {size[1]}; {command}", "/dev/null"],
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(6)
    process.terminate()
    process.wait(timeout=10)


def changed_cells(frames: list[str], size: tuple[int, int]) -> int:
    """Cells that any later frame drew differently (character or style) from the first."""
    width, height = size
    grid: dict[tuple[int, int], tuple[str, str]] = {}
    first: dict[tuple[int, int], tuple[str, str]] | None = None
    changed: set[tuple[int, int]] = set()
    x = y = 0
    style = ""
    for frame in frames:
        for match in _TOKEN.finditer(frame):
            params, command, char = match.groups()
            if command == "H":
                row, column = [*params.split(";"), "1", "1"][:2]
                y, x = int(row or 1) - 1, int(column or 1) - 1
            elif command == "m":
                style = "" if params in ("", "0") else f"{style};{params}"
            elif char and 0 <= x < width and 0 <= y < height:
                grid[(x, y)] = (char, style)
                x += 1
        if first is None:
            first = dict(grid)
        else:
            changed |= {cell for cell, look in grid.items() if first.get(cell) != look}
    return len(changed)


def _stable_until_ready(
    python: list[str],
    env: dict[str, str],
    cwd: Path,
    size: tuple[int, int],
    kept: Path,
    args: list[str] = MODEL,
) -> tuple[int, int]:
    """(frames written until ready for keys, cells they changed from the first frame)."""
    kept.unlink(missing_ok=True)
    _in_terminal([*python, "pitui", *args], size, {**env, "FF_KEEP": str(kept)}, cwd)
    if not kept.exists():
        raise RuntimeError("the stability run never got ready for keys")
    frames = kept.read_text().split("\0")
    return len(frames), changed_cells(frames, size)


def _size(text: str) -> tuple[int, int]:
    width, _, height = text.partition("x")
    try:
        return int(width), int(height)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not WIDTHxHEIGHT: {text!r}") from None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="pitui checkout to measure")
    parser.add_argument("--size", type=_size, default=(140, 40), help="terminal WxH")
    parser.add_argument("--runs", type=int, default=1, help="counts per row (lowest kept)")
    parser.add_argument(
        "--keep",
        type=Path,
        help="folder to keep each row's callgrind file in (for callgrind_annotate)",
    )
    options = parser.parse_args()
    if shutil.which("valgrind") is None or shutil.which("script") is None:
        print("needs valgrind and script")
        return 1
    tree: Path = options.tree.resolve()
    size: tuple[int, int] = options.size
    compileall.compile_dir(str(tree / "pitui"), quiet=1)  # byte-compiled, as installed
    with tempfile.TemporaryDirectory() as tmp, LoopbackModel() as server:
        root = Path(tmp)
        dirs = write_agent_dirs(root, server.base_url)
        wrapper = root / "wrapper" / "first_frame.py"
        wrapper.parent.mkdir()
        wrapper.write_text(WRAPPER)
        configured = _environment(tree, dirs["home"], dirs["pitui-home"])
        _warm_up(configured, dirs["project"], size)
        python = [sys.executable, str(wrapper)]
        stable = _stable_until_ready(python, configured, dirs["project"], size, root / "kept")
        first = root / "first-stable"
        for name in ("home", "state", "project"):
            (first / name).mkdir(parents=True)
        fresh = _environment(tree, first / "home", first / "state")
        stable_no_key = _stable_until_ready(
            python, fresh, first / "project", size, root / "kept-no-key", args=[]
        )
        counts: dict[str, list[int]] = {"bare": [], "configured": [], "no key": []}
        for index in range(options.runs):
            bare = [*python, str(BENCH / "bare_textual.py")]
            counts["bare"].append(
                _instructions(bare, configured, dirs["project"], size, root / f"cg.{index}.bare")
            )
            ours = [*python, "pitui", *MODEL]
            counts["configured"].append(
                _instructions(
                    ours, configured, dirs["project"], size, root / f"cg.{index}.configured"
                )
            )
            first = root / f"first-{index}"
            for name in ("home", "state", "project"):
                (first / name).mkdir(parents=True)
            fresh = _environment(tree, first / "home", first / "state")
            no_key = [*python, "pitui"]
            counts["no key"].append(
                _instructions(no_key, fresh, first / "project", size, root / f"cg.{index}.nokey")
            )
            if options.keep is not None:
                _keep_profiles(root, index, options.keep)
    bare_m = min(counts["bare"]) / 1e6
    print(f"instructions to the first frame, {size[0]}x{size[1]} ({tree}):")
    for name, values in counts.items():
        figure = min(values) / 1e6
        print(f"  {name:<11} {figure:8.1f} M  {figure / bare_m:.2f}x bare")
    for name, (frames, cells) in (("configured", stable), ("no key", stable_no_key)):
        print(
            f"  {name}: {frames} frames until ready for keys, {cells} cells changed from the first"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
