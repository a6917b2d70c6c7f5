"""The compile cache (pitui/compile_cache.py): the code it hands back is the code the
builtins compile, a second start compiles nothing, a first one takes what its first
screen compiles from the shipped seed, and a damaged, foreign, shared or
other-interpreter file or seed is ignored (everything is compiled as without it)."""

from __future__ import annotations

import dataclasses
import marshal
import os
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import pytest

from pitui import compile_cache
from pitui.compile_cache import (
    CompileCache,
    _header,
    read_entries,
    read_seed,
    seed_bytes,
    seed_libraries,
)

INIT = "def __create_fn__(x):\n def f(self, a:x=1):\n  self.a = a\n return f"


def _saved(path: Path) -> CompileCache:
    cache = CompileCache(path)
    cache.code(INIT, "exec")
    cache.code("list[int]", "eval")
    cache.save()
    return cache


def test_cached_code_is_the_builtins_code(tmp_path: Path) -> None:
    cache = _saved(tmp_path / "c.marshal")
    assert cache.code(INIT, "exec") == compile(INIT, "<string>", "exec", dont_inherit=True)
    assert cache.code("list[int]", "eval") == compile(
        "list[int]", "<string>", "eval", dont_inherit=True
    )
    again = CompileCache(tmp_path / "c.marshal", read_entries(tmp_path / "c.marshal"))
    assert again.code(INIT, "exec") == compile(INIT, "<string>", "exec", dont_inherit=True)
    assert again.compiled == 0
    assert oct((tmp_path / "c.marshal").stat().st_mode & 0o777) == "0o600"


def test_no_future_flags_leak_into_the_generated_code(tmp_path: Path) -> None:
    # This test module has ``from __future__ import annotations``; dataclasses' own exec
    # does not: the annotation of the generated method must be the object, not a string.
    cache = CompileCache(None)
    namespace: dict[str, object] = {}
    cache.exec_(INIT, {}, namespace)
    create = namespace["__create_fn__"]
    assert callable(create)
    assert create(int).__annotations__ == {"a": int}


def test_a_dataclass_built_through_the_cache_is_the_same(tmp_path: Path) -> None:
    cache = CompileCache(tmp_path / "c.marshal")
    real = dataclasses.__dict__.get("exec")
    dataclasses.exec = cache.exec_  # type: ignore[attr-defined]
    try:

        @dataclasses.dataclass(frozen=True, order=True)
        class Point:
            x: int
            y: int = 2

    finally:
        if real is None:
            del dataclasses.exec  # type: ignore[attr-defined]
        else:
            dataclasses.exec = real  # type: ignore[attr-defined]
    assert cache.compiled > 0
    assert Point(1) == Point(1, 2) < Point(2)
    assert (
        repr(Point(1))
        == "test_a_dataclass_built_through_the_cache_is_the_same.<locals>.Point(x=1, y=2)"
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        Point(1).x = 3  # type: ignore[misc]


def test_typing_compiles_annotations_through_it() -> None:
    cache = CompileCache(None)
    real = typing.__dict__.get("compile")
    typing.compile = cache.compile_  # type: ignore[attr-defined]
    try:
        first = typing.ForwardRef("dict[str, int]")
        second = typing.ForwardRef("dict[str, int]")
    finally:
        if real is None:
            del typing.compile  # type: ignore[attr-defined]
        else:
            typing.compile = real  # type: ignore[attr-defined]
    assert cache.compiled == 1  # the second is the same text: compiled once
    assert first.__forward_code__ is second.__forward_code__
    assert eval(first.__forward_code__) == dict[str, int]
    with pytest.raises(SyntaxError):  # ForwardRef's own error for a non-expression
        CompileCache(None).compile_("x = 1", "<string>", "eval")


@pytest.mark.parametrize("damage", ["garbage", "shared", "other-interpreter", "not-a-dict"])
def test_a_bad_file_is_ignored(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "c.marshal"
    _saved(path)
    if damage == "garbage":
        path.write_bytes(b"\x00not marshal")
    elif damage == "shared":
        path.chmod(0o666)
    elif damage == "other-interpreter":
        entries = marshal.loads(path.read_bytes())[1]
        path.write_bytes(marshal.dumps(((1, "3.0.0", "cpython-30"), entries)))
    else:
        path.write_bytes(marshal.dumps((_header(), [1, 2])))
    path.chmod(0o666 if damage == "shared" else 0o600)
    assert read_entries(path) == {}


def test_entries_of_the_wrong_shape_are_compiled_and_dropped(tmp_path: Path) -> None:
    path = tmp_path / "c.marshal"
    code = marshal.dumps(compile("1", "<string>", "eval", dont_inherit=True))
    entries: dict[Any, Any] = {
        ("eval", "1"): code,
        ("eval", "2"): "x",
        ("run", "3"): code,
        ("eval", "4"): b"\x00not marshal",
        ("eval", "5"): marshal.dumps(5),
        "6": code,
    }
    path.write_bytes(marshal.dumps((_header(), entries)))
    path.chmod(0o600)
    cache = CompileCache(path, read_entries(path))
    assert eval(cache.code("1", "eval")) == 1
    assert cache.compiled == 0
    assert [eval(cache.code(text, "eval")) for text in "245"] == [2, 4, 5]
    assert cache.compiled == 3
    cache.save()  # the bad ones are replaced by what was compiled, the foreign ones dropped
    assert set(read_entries(path)) == {("eval", "1"), ("eval", "2"), ("eval", "4"), ("eval", "5")}


def test_nothing_compiled_means_nothing_written(tmp_path: Path) -> None:
    path = tmp_path / "c.marshal"
    _saved(path)
    before = path.stat().st_mtime_ns
    os.utime(path, ns=(before - 10**9, before - 10**9))
    again = CompileCache(path, read_entries(path))
    again.code(INIT, "exec")
    again.save()
    assert path.stat().st_mtime_ns == before - 10**9


def test_a_second_process_compiles_nothing(tmp_path: Path) -> None:
    """The process-wide install: pydantic's dataclasses and annotations come from the file."""
    probe = (
        "from pitui.compile_cache import install\n"
        "cache = install(seed=None)\n"  # the file alone (the seed holds some of pydantic's)
        "import pydantic\n"
        "class M(pydantic.BaseModel):\n"
        "    x: 'int'\n"
        "print(cache.compiled)\n"
    )
    env = {**os.environ, "PITUI_HOME": str(tmp_path / "home")}
    runs = [
        subprocess.run(
            [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
        ).stdout.strip()
        for _ in range(2)
    ]
    assert int(runs[0]) > 50
    assert runs[1] == "0"
    cache_dir = tmp_path / "home" / "cache"
    (stored,) = cache_dir.iterdir()
    assert oct(stored.stat().st_mode & 0o777) == "0o600"


@pytest.mark.parametrize(
    ("argv", "module"),
    [
        (["session", "context", "x.jsonl"], "pitui.modes.session_cli"),
        ([], "pitui.ui.launch"),
        (["-p", "hi"], "pitui.modes.print_mode"),
    ],
)
def test_every_mode_installs_it_before_its_module_loads(
    tmp_path: Path, argv: list[str], module: str
) -> None:
    """The TUI, print mode and the session commands all read their code from the cache:
    pitui.cli installs it before the mode (and pydantic, Textual) is imported."""
    probe = (
        "import sys, importlib, pitui.cli as cli\n"
        "real = importlib.import_module\n"
        f"def stop(name, *a):\n"
        f"    if name == {module!r}:\n"
        "        from pitui import compile_cache\n"
        "        assert compile_cache.installed() is not None, 'not installed'\n"
        "        raise SystemExit(0)\n"
        "    return real(name, *a)\n"
        "importlib.import_module = stop\n"
        "cli._mode_module = lambda args: " + repr(module) + "\n"
        f"cli.main({argv!r})\n"
    )
    env = {**os.environ, "PITUI_HOME": str(tmp_path)}
    subprocess.run([sys.executable, "-c", probe], check=True, timeout=60, env=env)


def _seed(tmp_path: Path) -> Path:
    path = tmp_path / "seed.marshal"
    code = compile(INIT, "<string>", "exec", dont_inherit=True)
    path.write_bytes(seed_bytes({("exec", INIT): marshal.dumps(code)}, (("textual", "9.9"),)))
    path.chmod(0o644)
    return path


def test_what_the_file_lacks_comes_from_the_seed_and_is_saved(tmp_path: Path) -> None:
    path = tmp_path / "c.marshal"
    cache = CompileCache(path, {}, _seed(tmp_path))
    assert cache.code(INIT, "exec") == compile(INIT, "<string>", "exec", dont_inherit=True)
    assert (cache.compiled, cache.added) == (0, 1)
    assert seed_libraries(tmp_path / "seed.marshal") == (("textual", "9.9"),)  # its builders'
    cache.save()  # the user's own file has it now: the next start reads no seed
    assert list(read_entries(path)) == [("exec", INIT)]
    cache.code("list[int]", "eval")  # not in the seed: compiled
    assert (cache.compiled, cache.added) == (1, 1)


@pytest.mark.parametrize("damage", ["garbage", "shared", "other-interpreter", "missing"])
def test_a_bad_seed_is_ignored(tmp_path: Path, damage: str) -> None:
    path = _seed(tmp_path)
    if damage == "garbage":
        path.write_bytes(b"\x00not marshal")
    elif damage == "shared":
        path.chmod(0o666)
    elif damage == "other-interpreter":
        entries = marshal.loads(path.read_bytes())[1]
        path.write_bytes(marshal.dumps(((1, b"\x00\x00\r\n", "cpython-30", 0), entries)))
    else:
        path.unlink()
    assert read_seed(path) == {}
    cache = CompileCache(tmp_path / "c.marshal", {}, path)
    assert cache.code(INIT, "exec") == compile(INIT, "<string>", "exec", dont_inherit=True)
    assert cache.compiled == 1


def test_a_first_start_compiles_nothing_for_its_first_screen(tmp_path: Path) -> None:
    """A fresh home: the first screen's modules (Textual's dataclasses, the annotations
    they resolve) take their code from the shipped seed, compiling none of it (~75 M
    instructions)."""
    from pitui.ui.css_cache import read_seed as read_css_seed

    if not read_seed() or not read_css_seed():
        pytest.skip("the seeds were built for another Python or Textual")
    probe = (
        "from pitui.compile_cache import install\n"
        "cache = install()\n"
        "import pitui.ui.launch, textual.app\n"
        "from pitui.ui.view.chat_state import ChatState\n"
        "from pitui.ui.view.items import notice\n"
        "notice(ChatState(), 'No API key found', 'warning')\n"  # the demo notice's records
        "print(cache.compiled, cache.added)\n"
    )
    env = {**os.environ, "PITUI_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    compiled, added = map(int, done.stdout.split())
    assert compiled == 0
    assert added > 100
    assert compile_cache.SEED_FILE.name == "compile_seed.marshal"


def test_the_code_pitui_generates_goes_through_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """A record's ``__init__`` and the view model's copiers are compiled once per machine
    too (a first start's notice makes three of them before its first frame)."""
    from pitui.records import Record
    from pitui.ui.view.evolve import replace

    cache = CompileCache(None)
    monkeypatch.setattr(compile_cache, "_installed", cache)

    class Point(Record):
        x: int
        y: int = 0

    moved = replace(Point(1), y=2)
    assert moved == Point(1, 2)
    sources = [source for mode, source in cache._used if mode == "exec"]
    assert any(source.startswith("def __init__(__record_self__, x, y=") for source in sources)
    assert any(source.startswith("def copy(obj, changes):") for source in sources)
    assert cache.compiled == 2
    monkeypatch.setattr(compile_cache, "_installed", None)  # no cache: compiled as exec would
    assert compile_cache.generated_code("a = 1") == compile(
        "a = 1", "<string>", "exec", dont_inherit=True
    )


def test_named_tuples_take_their_code_from_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """``collections.namedtuple`` ``eval``s each ``__new__``'s source: through the cache it
    is the code ``eval`` compiles, and a second named tuple of the same fields compiles
    nothing; what ``eval`` treats otherwise goes to it unchanged."""
    import collections

    cache = CompileCache(None)
    monkeypatch.setattr(collections, "eval", cache.eval_, raising=False)
    Point = collections.namedtuple("Point", "x y")

    class Size(typing.NamedTuple):
        x: int
        y: int

    monkeypatch.undo()
    Plain = collections.namedtuple("Plain", "x y")
    assert Point.__new__.__code__ == Plain.__new__.__code__
    assert Point(1, y=2) == (1, 2) and Size(3, 4).y == 4 and Point._make([5, 6]).x == 5
    assert cache.compiled == 1 and cache._used  # one text for both
    assert cache.eval_("INIT[:3]") == "def"  # no globals: the caller's, as eval reads them
    assert cache.eval_("  x + 2", {"x": 1}) == 3  # leading blanks: eval strips them
    assert cache.compiled == 1
