"""The regex cache (pitui/regex_cache.py): the pattern it hands back is the pattern ``re``
compiles, a second start compiles nothing, and a damaged, foreign or shared file is
ignored (everything is compiled as without it)."""

from __future__ import annotations

import marshal
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pitui import regex_cache
from pitui.lazy_pattern import lazy_pattern
from pitui.regex_cache import RegexCache, _header, read_entries

_compile = regex_cache._compiler.compile
"""``re``'s own compile step (this test process does not install the cache)."""

# Flags as ``re`` hands them to its compiler: plain ints.
PATTERNS: list[tuple[str | bytes, int]] = [
    (r"(?P<key>\w+)=(?P<value>[^;]*)(;|$)", 0),
    (r"straße|ǅ|[a-zäöü]+", int(re.IGNORECASE)),  # case folding with its extra cases
    (rb"\x00[\x80-\xff]+(?P<tail>.)?", 0),
    (r"^ \s* \# \s (?P<word> .+? ) \s* $  # a commented line", int(re.MULTILINE | re.VERBOSE)),
    (r"(a)(b)?(?:c|d){2,5}?\1", int(re.ASCII | re.DOTALL)),
    (r"\d+(?=px)|(?<!-)\b\w\b", 0),
]


def _cache(path: Path | None = None) -> RegexCache:
    """A cache that keeps every new pattern (as if each were compiled by an import)."""
    stored = read_entries(path) if path is not None else {}
    return RegexCache(path, stored, _compile, keep_new=lambda: True)


def test_cached_patterns_are_the_ones_re_compiles(tmp_path: Path) -> None:
    path = tmp_path / "regex.marshal"
    first = _cache(path)
    for pattern, flags in PATTERNS:
        # Pattern objects are equal when their pattern, flags and engine code are.
        assert first.compile(pattern, flags) == _compile(pattern, flags)
    assert first.added == len(PATTERNS)
    first.save()
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    again = _cache(path)
    for pattern, flags in PATTERNS:
        compiled = again.compile(pattern, flags)
        assert compiled == _compile(pattern, flags)
        assert compiled.groupindex == _compile(pattern, flags).groupindex
    assert again.added == 0
    found = again.compile(r"(?P<key>\w+)=(?P<value>[^;]*)(;|$)", 0).search("a=1; b=two")
    assert found is not None and found.groupdict() == {"key": "a", "value": "1"}


def test_a_pattern_error_is_re_s_own() -> None:
    with pytest.raises(re.error, match="missing \\)"):
        _cache().compile("(unclosed", 0)


def test_debug_and_odd_arguments_go_to_re_itself(capsys: pytest.CaptureFixture[str]) -> None:
    cache = _cache()
    assert cache.compile("ab", int(re.DEBUG)) == _compile("ab", int(re.DEBUG))
    assert "LITERAL" in capsys.readouterr().out  # re's own debug listing
    assert cache.added == 0


def test_a_damaged_entry_is_compiled_again(tmp_path: Path) -> None:
    path = tmp_path / "regex.marshal"
    key = ("a+b", 0)
    bad_code = marshal.dumps((32, [99999, 1, 2], 0, {}, (None,)))  # code the engine refuses
    for raw in (bad_code, b"not marshal", marshal.dumps("text")):
        path.write_bytes(marshal.dumps((_header(), {key: raw})))
        path.chmod(0o600)
        cache = _cache(path)
        assert cache.compile(*key) == _compile(*key)
        assert cache.added == 1


@pytest.mark.parametrize("case", ["other interpreter", "damaged", "shared"])
def test_a_foreign_damaged_or_shared_file_is_ignored(tmp_path: Path, case: str) -> None:
    path = tmp_path / "regex.marshal"
    saved = _cache(path)
    saved.compile("x+y", 0)
    saved.save()
    if case == "other interpreter":
        entries = marshal.loads(path.read_bytes())[1]
        path.write_bytes(marshal.dumps(((1, "2.7.18", 1), entries)))
    elif case == "damaged":
        path.write_bytes(path.read_bytes()[:-7])
    else:
        path.chmod(0o622)  # others may write it: its code is not trusted
    assert read_entries(path) == {}
    cache = _cache(path)
    assert cache.compile("x+y", 0) == _compile("x+y", 0)
    assert cache.added == 1


def test_only_patterns_compiled_by_an_import_are_kept(tmp_path: Path) -> None:
    cache = RegexCache(tmp_path / "regex.marshal", {}, _compile)
    typed = "what-the-user-searched-(for)"
    assert cache.compile(typed, 0) == _compile(typed, 0)  # a test function: no import
    assert cache.added == 0
    (tmp_path / "pattern_module.py").write_text(
        "import re\nPATTERN = re.compile(r'imported-(\\d+)')\n"
    )
    real = regex_cache._compiler.compile
    regex_cache._compiler.compile = cache.compile
    sys.path.insert(0, str(tmp_path))
    try:
        import pattern_module  # type: ignore[import-not-found]  # written just above
    finally:
        sys.path.remove(str(tmp_path))
        regex_cache._compiler.compile = real
        sys.modules.pop("pattern_module", None)
    assert pattern_module.PATTERN.match("imported-7").group(1) == "7"
    assert cache.added == 1
    # A pitui module's lazy pattern is its own too, compiled on its first use.
    lazy = lazy_pattern(r"lazy-(\w)")
    regex_cache._compiler.compile = cache.compile
    try:
        assert lazy.match("lazy-x") is not None
    finally:
        regex_cache._compiler.compile = real
    assert cache.added == 2
    cache.save()
    stored = [key[0] for key in read_entries(tmp_path / "regex.marshal")]
    assert sorted(stored) == [r"imported-(\d+)", r"lazy-(\w)"]


def test_install_routes_re_through_the_file(tmp_path: Path) -> None:
    """In a fresh process: ``re.compile`` takes the stored code on the second start (the
    pattern is compiled by a module as it is imported)."""
    (tmp_path / "uses_a_pattern.py").write_text(
        "import re\nPATTERN = re.compile(r'pitui-(\\d+)-test')\n"
    )
    script = (
        "import re, sys\n"
        "from pitui import regex_cache\n"
        "cache = regex_cache.install()\n"
        "from uses_a_pattern import PATTERN\n"
        "assert PATTERN.match('pitui-42-test').group(1) == '42'\n"
        "print(cache.added, regex_cache.cache_file().name)\n"
    )
    path = os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PITUI_HOME": str(tmp_path / "home"), "PYTHONPATH": path}
    runs = [
        subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        ).stdout.split()
        for _ in range(2)
    ]
    assert runs[0][0] != "0" and runs[1][0] == "0"
    assert (tmp_path / "home" / "cache" / runs[0][1]).is_file()


def test_an_re_of_another_shape_is_left_to_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Python whose ``re`` internals differ (no ``_code``): every pattern is compiled by
    ``re`` itself, nothing is kept."""

    def changed(pattern: str | bytes, flags: int) -> None:
        raise AttributeError("module 're._compiler' has no attribute '_code'")

    monkeypatch.setattr(regex_cache, "_engine_args", changed)
    cache = _cache()
    assert cache.compile("a(b)c", 0) == _compile("a(b)c", 0)
    assert cache.added == 0


def _seed(tmp_path: Path, patterns: list[tuple[str | bytes, int]]) -> Path:
    """A seed as ``pitui.ui.css_seed_build`` writes it, holding ``patterns``."""
    builder = _cache(tmp_path / "built.marshal")
    for pattern, flags in patterns:
        builder.compile(pattern, flags)
    builder.save()
    path = tmp_path / "seed.marshal"
    path.write_bytes(regex_cache.seed_bytes(read_entries(tmp_path / "built.marshal")))
    path.chmod(0o644)  # as installed: readable by all, written by its owner
    return path


def test_what_the_file_lacks_comes_from_the_seed_and_is_saved(tmp_path: Path) -> None:
    seed = _seed(tmp_path, PATTERNS)
    path = tmp_path / "regex.marshal"
    cache = RegexCache(path, {}, _compile, keep_new=lambda: True, seed=seed)
    for pattern, flags in PATTERNS:
        assert cache.compile(pattern, flags) == _compile(pattern, flags)
    assert cache.compiled == 0 and cache.added == len(PATTERNS)
    assert cache.compile("not-(in)-the-seed", 0) == _compile("not-(in)-the-seed", 0)
    assert cache.compiled == 1  # a pattern the seed lacks (another library) is compiled
    cache.save()  # the user's own file has them now: a later start reads no seed
    assert set(read_entries(path)) == {*PATTERNS, ("not-(in)-the-seed", 0)}
    typed = RegexCache(path, {}, _compile, seed=seed)  # keeps only an import's patterns
    assert typed.compile(*PATTERNS[0]) == _compile(*PATTERNS[0])  # the package's own: kept
    assert typed.compiled == 0 and typed.added == 1


@pytest.mark.parametrize("damage", ["other interpreter", "damaged", "writable by all", "bad code"])
def test_a_bad_seed_is_ignored(tmp_path: Path, damage: str) -> None:
    """A seed for another interpreter, damaged, that anyone may write, or whose code the
    engine rejects: the pattern is compiled as without it."""
    path = _seed(tmp_path, PATTERNS[:1])
    entries = marshal.loads(path.read_bytes())[1]
    if damage == "other interpreter":
        path.write_bytes(marshal.dumps(((1, "3.11.0 (other build)", 20221023), entries)))
    elif damage == "damaged":
        path.write_bytes(path.read_bytes()[:-9])
    elif damage == "writable by all":
        path.chmod(0o646)
    else:
        bad = {key: marshal.dumps((32, [99999, 1, 2], 0, {}, (None,))) for key in entries}
        path.write_bytes(marshal.dumps((_header(), bad)))
    if damage != "bad code":
        assert regex_cache.read_seed(path) == {}
    cache = RegexCache(None, {}, _compile, keep_new=lambda: True, seed=path)
    assert cache.compile(*PATTERNS[0]) == _compile(*PATTERNS[0])
    assert cache.compiled == 1


def test_a_stale_regex_seed_is_named() -> None:
    """The seed check (``python -m pitui.ui.css_seed_build --check``) compares patterns and
    the engine's code for each."""
    from pitui.ui.css_seed_build import FOREIGN_INTERPRETER, _regex_seed_stale

    def stored(pattern: str) -> bytes:
        flags, code, groups, groupindex, indexgroup = regex_cache._engine_args(pattern, 0)
        ints = list(map(int, code))  # as the file keeps it
        return marshal.dumps((flags, ints, groups, groupindex, indexgroup))

    key = ("a(b)c", 0)
    code = stored("a(b)c")
    assert _regex_seed_stale({key: code}, {key: code}) is None
    assert _regex_seed_stale({}, {key: code}) == FOREIGN_INTERPRETER
    assert "lacks 1 patterns" in str(_regex_seed_stale({("x", 0): code}, {key: code}))
    other = stored("a(b)d")
    assert "other code for 1" in str(_regex_seed_stale({key: other}, {key: code}))


def test_a_first_start_compiles_no_pattern_for_its_first_screen(tmp_path: Path) -> None:
    """A fresh home: the patterns the first screen's modules compile as they load come from
    the shipped seed (~90 M instructions of a first start with no key)."""
    if not regex_cache.read_seed():
        pytest.skip("the regex seed was built by another interpreter")
    probe = (
        "from pitui import regex_cache\n"
        "cache = regex_cache.install()\n"
        "from pitui.compile_cache import install\n"
        "install()\n"
        "import pitui.ui.launch, textual.app\n"
        "from pitui.ui.view.chat_state import ChatState\n"
        "from pitui.ui.view.items import notice\n"
        "notice(ChatState(), 'No API key found', 'warning')\n"  # the demo notice's modules
        "print(cache.compiled, cache.added)\n"
    )
    env = {**os.environ, "PITUI_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    compiled, added = map(int, done.stdout.split())
    assert compiled == 0
    assert added > 40
    assert regex_cache.SEED_FILE.name == "regex_seed.marshal"
