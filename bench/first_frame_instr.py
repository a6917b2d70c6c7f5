"""Instructions from process start to the first frame written to the terminal (callgrind),
for pitui (configured model, and a first run with no key) beside the bare Textual app, and
whether the screen stays as the first frame drew it until pitui is ready for keys.

Wall times on a shared 2-core machine are noise; callgrind's instruction counts are not
(±2 %), so A/B comparisons of the first frame (issue 26's first two rows) use these. Each
program runs in a pseudo-terminal of the given size (``script``), with ``App._display``
patched to end the process right after the first frame is written. ``--base DIR`` adds the
same runs of another pitui tree (``git archive <commit> | tar -x -C DIR``).

The stability check runs pitui without valgrind, keeps every frame written until the app
is ready for keys (its after-first-frame step done: the real composer mounted in its
stand-in's place, the autocomplete list added) and counts the cells any of them changed
from the first frame (character or style). ``bench/issue26.py`` takes the first stable
screen as the time the screen stops changing: a change here would move it.

    python bench/first_frame_instr.py [--base /tmp/pitui-base] [--size 140x40]
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path[:0] = [str(BENCH), str(ROOT)]

HARNESS = r"""
import os, sys
import textual.app as ta
display = ta.App._display
frames = []
def first_frame_then_exit(self, screen, renderable):
    if renderable is None or self._batch_count or os.environ.get("FF_KEEP"):
        return display(self, screen, renderable)
    display(self, screen, renderable)
    os._exit(0)
def keep(self, screen, renderable):
    driver = self._driver
    if renderable is None or self._batch_count or driver is None:
        return display(self, screen, renderable)
    write, written = driver.write, []
    driver.write = written.append
    try:
        display(self, screen, renderable)
    finally:
        driver.write = write
    frames.append("".join(written))
    write(frames[-1])
ta.App._display = keep if os.environ.get("FF_KEEP") else first_frame_then_exit
if os.environ.get("FF_KEEP"):
    from pitui.ui.screens import main as main_screen
    add = main_screen.MainScreen.add_suggestion_list
    async def ready_then_exit(self):
        await add(self)
        self.app.call_after_refresh(save_and_exit)
    def save_and_exit():
        with open(os.environ["FF_KEEP"], "w") as out:
            out.write("\0".join(frames))
        os._exit(0)
    main_screen.MainScreen.add_suggestion_list = ready_then_exit
script, *sys.argv = sys.argv[1:]
if script == "pitui":
    from pitui.cli import main
    sys.argv = ["pitui", *sys.argv]
    main()
else:
    import runpy
    sys.argv = [script, *sys.argv]
    runpy.run_path(script, run_name="__main__")
"""
_TOKEN = re.compile(r"\x1b\[([0-9;?]*)([A-Za-z])|([^\x1b\n])", re.S)


def _in_terminal(command: list[str], size: tuple[int, int], env: dict[str, str]) -> None:
    inner = f"stty cols {size[0]} rows {size[1]}; {shlex.join(command)}"
    subprocess.run(
        ["script", "-qfc", inner, "/dev/null"],
        env={**os.environ, "TERM": "xterm-256color", **env},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
        timeout=300,
    )


def _program_env(tree: Path | None, home: Path, state: Path) -> dict[str, str]:
    env = {"HOME": str(home), "PITUI_HOME": str(state), "PYTHONDONTWRITEBYTECODE": ""}
    env["PYTHONPATH"] = str(tree or ROOT)
    return env


def instructions(argv: list[str], env: dict[str, str], size: tuple[int, int], cwd: Path) -> int:
    """Instructions from start to the first frame of ``HARNESS argv``."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        valgrind = ["valgrind", "--tool=callgrind", "--dump-instr=no"]
        command = ["env", "-C", str(cwd), *valgrind, f"--callgrind-out-file={out}"]
        _in_terminal([*command, sys.executable, "-c", HARNESS, *argv], size, env)
        found = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.M)
        if found is None:
            raise RuntimeError(f"no callgrind totals for {argv}")
        return int(found[1])


def changed_cells(frames: list[str], size: tuple[int, int]) -> int:
    """Cells that any later frame drew differently from the first."""
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
                row, column = ([*params.split(";"), "1", "1"])[:2]
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


def stable_until_ready(env: dict[str, str], size: tuple[int, int], cwd: Path) -> tuple[int, int]:
    """(frames written until ready for keys, cells they changed from the first frame)."""
    with tempfile.TemporaryDirectory() as tmp:
        kept = Path(tmp) / "frames"
        command = ["env", "-C", str(cwd), sys.executable, "-c", HARNESS, "pitui"]
        _in_terminal([*command, *MODEL], size, {**env, "FF_KEEP": str(kept)})
        frames = kept.read_text().split("\0") if kept.exists() else []
        return len(frames), changed_cells(frames, size)


MODEL = ["--model", "loopback/bench-model"]


def main() -> int:
    from loopback_model import write_agent_dirs

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, help="another pitui tree to compare")
    parser.add_argument("--size", default="140x40")
    options = parser.parse_args()
    width, height = (int(n) for n in options.size.split("x"))
    size = (width, height)
    trees: dict[str, Path | None] = {"pitui": None}
    if options.base is not None:
        trees["base"] = options.base.resolve()
    for tree in trees.values():  # byte-compiled, as an installed pitui is
        compileall.compile_dir(str((tree or ROOT) / "pitui"), quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        dirs = write_agent_dirs(root, "http://127.0.0.1:9/v1")  # nothing is asked of it
        bare = instructions(
            [str(BENCH / "bare_textual.py")], _program_env(None, dirs["home"], root), size, root
        )
        print(f"{width}x{height}, instructions to the first frame written")
        print(f"  bare Textual                    {bare / 1e6:7.0f} M")
        for name, tree in trees.items():
            env = _program_env(tree, dirs["home"], dirs["pitui-home"])
            stable_until_ready(env, size, dirs["project"])  # writes the start-up snapshot
            frames, cells = stable_until_ready(env, size, dirs["project"])
            configured = instructions(["pitui", *MODEL], env, size, dirs["project"])
            fresh = root / f"first-{name}"
            (fresh / "home").mkdir(parents=True)
            nokey_env = _program_env(tree, fresh / "home", fresh / "state")
            nokey = instructions(["pitui"], nokey_env, size, fresh)
            print(f"  {name} configured model        {configured / 1e6:7.0f} M"
                  f"  {configured / bare:.2f}x bare")  # fmt: skip
            print(f"  {name} first run, no key       {nokey / 1e6:7.0f} M"
                  f"  {nokey / bare:.2f}x bare")  # fmt: skip
            print(f"  {name}: {frames} frames until ready for keys, "
                  f"{cells} cells changed from the first")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
