"""Writes (or checks) the parsed-CSS seed shipped with the package (pitui/ui/css_cache.py),
and the compile and regex seeds beside it (pitui/compile_cache.py, pitui/regex_cache.py).

A first start has no CSS cache of its own: without a seed it parses every stylesheet of
the first screen (~45 M instructions, ~5 % of it). This runs pitui's first start with no
key (the demo model and its notice, the default theme) headless in a fresh home, until
the app is ready for keys, and keeps what it parsed by seed key: the seed holds exactly
the sources such a start reads. The same start runs with an empty compile cache: the code
it compiled (Textual's dataclasses, string annotations) is the compile seed
(``pitui/compile_seed.marshal``, ~75 M instructions of a first start), and so with an empty
regex cache: the patterns the modules compiled as they loaded are the regex seed
(``pitui/regex_seed.marshal``, ~90 M).

Run ``python -m pitui.ui.css_seed_build`` after changing a ``.tcss`` file, a widget's
``DEFAULT_CSS``, the default theme or the Textual version (``--check`` only says whether
the committed seeds are stale; tests/ui/test_css_seed.py runs it). The compile seed
also follows the Python version (its bytecode) and the libraries' dataclasses, the regex
seed the exact interpreter and the libraries' patterns.
"""

from __future__ import annotations

import argparse
import marshal
import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

from pitui import compile_cache, regex_cache
from pitui.ui.css_cache import SEED_FILE, seed_bytes, textual_sources_digest

COLLECT = """
import sys
from pitui import regex_cache
from pathlib import Path
regex_cache.install(Path(sys.argv[3]), seed=None)  # first, as pitui.cli installs it
from pitui.compile_cache import install
install(Path(sys.argv[2]), seed=None)  # compile everything: what is compiled is kept
from pitui.cli import build_parser
from pitui.ui.css_seed_build import collect
collect(Path(sys.argv[1]), build_parser().parse_args([]))
"""
"""The child's program (the UI never imports the command line's parser itself)."""


def collect(out: Path, args: argparse.Namespace) -> None:
    """Run the first start for ``args`` here (the caller set up a fresh home and folder)
    and write what it parsed as a seed to ``out``."""
    from pitui.ui.app import PituiApp
    from pitui.ui.css_cache import CachedStylesheet
    from pitui.ui.launch import create_app

    app = create_app(args)
    app.startup = None  # no session: the screen as the first frame and the composer draw it
    stylesheet = app.stylesheet
    assert isinstance(stylesheet, CachedStylesheet)
    stylesheet.cache.seed_path = None  # parse everything: what is parsed is what is kept
    after_first_frame = PituiApp._after_first_frame

    async def ready_then_exit(self: PituiApp) -> None:
        await after_first_frame(self)
        self.call_after_refresh(self.exit)

    PituiApp._after_first_frame = ready_then_exit  # type: ignore[method-assign]
    app.run(headless=True, size=(140, 40))
    out.write_bytes(seed_bytes(stylesheet.cache.parsed_for_seed))


def fresh_seed() -> bytes:
    """The CSS seed a first start gives now (see :func:`fresh_seeds`)."""
    return fresh_seeds()[0]


def fresh_seeds() -> tuple[bytes, bytes, bytes]:
    """The CSS, compile and regex seeds a first start gives now (in a child process with
    a fresh home and no provider keys, as a newcomer's first run)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name in ("home", "project"):
            (root / name).mkdir()
        env = {
            name: value
            for name, value in os.environ.items()
            if "API_KEY" not in name and "TOKEN" not in name and not name.startswith("PITUI")
        }
        env.update(HOME=str(root / "home"), PITUI_HOME=str(root / "home" / ".pitui"))
        env["PYTHONHASHSEED"] = "0"  # the same bytes for the same rules (sets inside)
        out, compiled = root / "seed", root / "compiled.marshal"
        patterns = root / "home" / "regex.marshal"  # in the home: written 0600, read back
        subprocess.run(
            [sys.executable, "-c", COLLECT, str(out), str(compiled), str(patterns)],
            cwd=root / "project",
            env=env,
            check=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        code = compile_cache.read_entries(compiled)
        regexes = regex_cache.seed_bytes(regex_cache.read_entries(patterns))
        return out.read_bytes(), compile_cache.seed_bytes(code, library_versions()), regexes


COMPILED_FROM = ("textual", "rich", "typing-extensions", "pydantic", "pydantic-core")
"""The distributions whose generated source a first start compiles (their dataclasses
and string annotations): the compile seed is built for their versions."""


def library_versions() -> tuple[tuple[str, str], ...]:
    """(name, installed version) of each of :data:`COMPILED_FROM` ("" if not installed)."""
    from importlib import metadata

    found: list[tuple[str, str]] = []
    for name in COMPILED_FROM:
        try:
            found.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            found.append((name, ""))
    return tuple(found)


FOREIGN_TEXTUAL = "it was built for another Textual"
FOREIGN_PYTHON = "the compile seed was built for another Python"
FOREIGN_LIBRARIES = "the compile seed was built for other versions of its libraries"
FOREIGN_INTERPRETER = "the regex seed was built by another interpreter"


def stale_reason(
    committed: Path = SEED_FILE,
    compiled: Path = compile_cache.SEED_FILE,
    patterns: Path = regex_cache.SEED_FILE,
) -> str | None:
    """Why the committed seeds do not match what a first start parses and compiles
    (None: they do)."""
    css, code, regexes = fresh_seeds()
    fresh = pickle.loads(css)  # our own child's output
    try:
        stored = pickle.loads(committed.read_bytes())  # the committed file: ours too
    except (OSError, pickle.UnpicklingError):
        return f"{committed} is missing or unreadable"
    if stored.get("textual") != textual_sources_digest():
        return FOREIGN_TEXTUAL
    missing = set(fresh["entries"]) - set(stored["entries"])
    unused = set(stored["entries"]) - set(fresh["entries"])
    if missing or unused:
        return f"{len(missing)} sources changed or are new, {len(unused)} are unused"
    stored_code = compile_cache.read_seed(compiled)
    if not stored_code:
        return FOREIGN_PYTHON if compiled.exists() else f"{compiled} is missing"
    fresh_code = set(marshal.loads(code)[1])
    if compile_cache.seed_libraries(compiled) != library_versions():
        return FOREIGN_LIBRARIES
    if fresh_code != set(stored_code):
        new, old = len(fresh_code - set(stored_code)), len(set(stored_code) - fresh_code)
        return f"the compile seed lacks {new} texts a first start compiles, {old} are unused"
    if not patterns.exists():
        return f"{patterns} is missing"
    return _regex_seed_stale(regex_cache.read_seed(patterns), marshal.loads(regexes)[1])


def _regex_seed_stale(stored: regex_cache.Entries, fresh: regex_cache.Entries) -> str | None:
    """Why the committed regex seed is not what a first start compiles: its patterns, and
    for each the engine's code (decoded: marshal's bytes may differ for equal values)."""
    if not stored:
        return FOREIGN_INTERPRETER
    new, old = len(set(fresh) - set(stored)), len(set(stored) - set(fresh))
    if new or old:
        return f"the regex seed lacks {new} patterns a first start compiles, {old} are unused"
    differ = sum(marshal.loads(stored[key]) != marshal.loads(raw) for key, raw in fresh.items())
    if differ:
        return f"the regex seed holds other code for {differ} patterns"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="only say whether it is stale")
    options = parser.parse_args(argv)
    if options.check:
        reason = stale_reason()
        if reason is not None:
            print(f"the seeds are stale: {reason}; run python -m pitui.ui.css_seed_build")
            return 1
        print("the CSS, compile and regex seeds are up to date")
        return 0
    files = (SEED_FILE, compile_cache.SEED_FILE, regex_cache.SEED_FILE)
    for path, data in zip(files, fresh_seeds(), strict=True):
        path.write_bytes(data)
        os.chmod(path, 0o644)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
