"""The parsed-CSS cache: a second start reads the first screen's rules instead of parsing
them, gets exactly the rules a parse gives, and a damaged, foreign or hostile file only
means a parse (pitui/ui/css_cache.py)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from textual.css.stylesheet import Stylesheet

from pitui.ui.css_cache import CachedStylesheet, CssCache, css_cache_file

CSS = """
#panes { layout: horizontal; height: 1fr; }
.box > Static:focus { border: round $primary; padding: 0 1; color: red 50%; }
Label.-warning { text-style: bold italic; width: 50%; offset: 1 2; }
"""
VARIABLES = {"primary": "#0178d4", "secondary": "#004578"}


def _parsed(sheet: Stylesheet) -> list[str]:
    sheet.add_source(CSS, read_from=("test.tcss", ""))
    sheet.parse()
    return [rule.css for rule in sheet.rules]


def _cached_sheet(path: Path, variables: dict[str, str] = VARIABLES) -> CachedStylesheet:
    return CachedStylesheet(CssCache.load(path), variables=variables)


def test_rules_read_back_are_the_rules_a_parse_gives(tmp_path: Path) -> None:
    path = tmp_path / "css.pickle"
    first = _cached_sheet(path)
    expected = _parsed(Stylesheet(variables=VARIABLES))
    assert _parsed(first) == expected
    assert first.cache.dirty
    first.cache.save()
    assert oct(path.stat().st_mode & 0o777) == "0o600"

    second = _cached_sheet(path)
    assert _parsed(second) == expected
    assert not second.cache.dirty, "everything came from the file"
    rule = second.rules[1]
    assert rule.selector_names and rule.styles.get_rule("border_top", None) is not None


def test_other_variables_are_another_entry(tmp_path: Path) -> None:
    path = tmp_path / "css.pickle"
    first = _cached_sheet(path)
    _parsed(first)
    first.cache.save()
    other = {**VARIABLES, "primary": "#ff0000"}
    second = _cached_sheet(path, other)
    assert _parsed(second) == _parsed(Stylesheet(variables=other))
    assert second.cache.dirty, "parsed: the theme changed"


def test_no_parse_on_a_second_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "css.pickle"
    first = _cached_sheet(path)
    _parsed(first)
    first.cache.save()
    expected = _parsed(Stylesheet(variables=VARIABLES))

    import textual.css.stylesheet as stylesheet_module

    def no_parse(*_args: object, **_kwargs: object) -> object:
        raise AssertionError("parsed although cached")

    monkeypatch.setattr(stylesheet_module, "parse", no_parse)
    assert _parsed(_cached_sheet(path)) == expected


def _saved(path: Path) -> dict[str, tuple[int, bytes, bytes]]:
    sheet = _cached_sheet(path)
    _parsed(sheet)
    sheet.cache.save()
    return pickle.loads(path.read_bytes())["entries"]  # type: ignore[no-any-return]


class Boom:
    """What a hostile entry would make the unpickler call."""

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, ("touch pwned",))


def test_a_hostile_entry_runs_nothing_and_is_parsed(tmp_path: Path) -> None:
    import hashlib

    path = tmp_path / "css.pickle"
    entries = _saved(path)
    payload = pickle.dumps([Boom()])
    digest = hashlib.sha256(payload).digest()  # a digest that matches: the allow-list holds
    hostile = {key: (0, digest, payload) for key in entries}
    path.write_bytes(pickle.dumps({"format": 1, "entries": hostile}))
    path.chmod(0o600)
    sheet = _cached_sheet(path)
    os.chdir(tmp_path)
    assert _parsed(sheet) == _parsed(Stylesheet(variables=VARIABLES))
    assert not (tmp_path / "pwned").exists()
    assert sheet.cache.dirty


def test_a_hostile_index_runs_nothing(tmp_path: Path) -> None:
    path = tmp_path / "css.pickle"
    path.write_bytes(pickle.dumps(Boom()))
    path.chmod(0o600)
    os.chdir(tmp_path)
    assert _parsed(_cached_sheet(path)) == _parsed(Stylesheet(variables=VARIABLES))
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("damage", ["garbage", "truncated", "flipped", "shared"])
def test_a_damaged_or_shared_file_means_a_parse(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "css.pickle"
    _saved(path)
    data = path.read_bytes()
    if damage == "garbage":
        path.write_bytes(b"\x80\x05not a pickle at all")
    elif damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "flipped":  # a byte inside an entry's payload: its digest no longer holds
        middle = len(data) // 2
        path.write_bytes(data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1 :])
    else:  # others may write it: not trusted
        path.chmod(0o666)
    sheet = _cached_sheet(path)
    assert _parsed(sheet) == _parsed(Stylesheet(variables=VARIABLES))
    assert sheet.cache.dirty


def test_unused_entries_age_out(tmp_path: Path) -> None:
    path = tmp_path / "css.pickle"
    _saved(path)
    for index in range(10):  # ten saves, each of another theme's rules
        sheet = _cached_sheet(path, {**VARIABLES, "primary": f"#00000{index}"})
        _parsed(sheet)
        sheet.cache.save()
    sheet = _cached_sheet(path)
    _parsed(sheet)
    assert sheet.cache.dirty, "the first entry was not used for more than MAX_AGE saves"


FIRST_FRAME = """
import sys
import textual.css.stylesheet as stylesheet_module
from pitui.cli import build_parser
from pitui.ui.app import PituiApp
from pitui.ui.launch import create_app

parsed = []
real_parse = stylesheet_module.parse

def counting_parse(*args, **kwargs):
    parsed.append(args[2])
    return real_parse(*args, **kwargs)

stylesheet_module.parse = counting_parse

async def done(self):
    self.stylesheet.cache.save()
    self.exit()

PituiApp._after_first_frame = done
app = create_app(build_parser().parse_args([]))
if "--no-seed" in sys.argv:
    app.stylesheet.cache.seed_path = None
app.run(headless=True, size=(140, 40))
print(len(parsed))
"""


def test_the_second_start_parses_no_css(tmp_path: Path) -> None:
    """The first start parses the first screen's CSS and stores it; the next one parses
    none (the same screen: the demo notice and all)."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    env = {**os.environ, "HOME": str(home), "PITUI_HOME": str(home / ".pitui")}

    def start(*flags: str) -> int:
        done = subprocess.run(
            [sys.executable, "-c", FIRST_FRAME, *flags],
            cwd=project,
            env=env,
            timeout=60,
            check=True,
            capture_output=True,
            text=True,
        )
        return int(done.stdout.strip().splitlines()[-1])

    assert start("--no-seed") > 10
    env_home = Path(env["PITUI_HOME"])
    assert (env_home / "cache" / css_cache_file().name).is_file()
    assert start() == 0


def test_a_first_start_parses_no_css(tmp_path: Path) -> None:
    """The very first start (no cache of its own yet) reads the package's seed: no CSS is
    parsed for the first screen, and the user's cache is written from it."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    env = {**os.environ, "HOME": str(home), "PITUI_HOME": str(home / ".pitui")}
    done = subprocess.run(
        [sys.executable, "-c", FIRST_FRAME],
        cwd=project,
        env=env,
        timeout=60,
        check=True,
        capture_output=True,
        text=True,
    )
    assert int(done.stdout.strip().splitlines()[-1]) == 0
    assert (home / ".pitui" / "cache" / css_cache_file().name).is_file()
