"""parse_streaming_json: pi's streaming tool-argument parser (PI_SPEC §1.6)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pitui.ai.partial_json import parse_partial_json, parse_streaming_json

PI_CASES = Path(__file__).parent / "data" / "partial_json_pi_cases.json"


# --------------------------------------------------------------------------- PI_SPEC §1.6


@pytest.mark.parametrize("text", ["", " ", "\n\t  ", "\u00a0", "\ufeff"])
def test_empty_or_whitespace_is_empty_object(text: str) -> None:
    assert parse_streaming_json(text) == {}


def test_none_is_empty_object() -> None:
    assert parse_streaming_json(None) == {}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"path": "/tmp/foo"}', {"path": "/tmp/foo"}),
        ('  {"a": [1, 2.5, null, true]}  ', {"a": [1, 2.5, None, True]}),
        ("null", None),  # strict JSON is returned as is, even when not an object
        ("[1]", [1]),
        ('"s"', "s"),
        ("3", 3),
    ],
)
def test_complete_json_is_parsed_strictly(text: str, expected: Any) -> None:
    assert parse_streaming_json(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"path": "/tmp/fo', {"path": "/tmp/fo"}),  # unterminated string kept
        ('{"pa', {}),  # incomplete key dropped
        ('{"a": tr', {"a": True}),
        ('{"a": [1, 2', {"a": [1, 2]}),
        ('{"a": -', {}),
        ("[", []),  # non-objects pass through
    ],
)
def test_lenient_results_listed_in_the_spec(text: str, expected: Any) -> None:
    assert parse_streaming_json(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1, "b": ', {"a": 1}),
        ('{"a": "x\\', {"a": "x"}),  # cut right after a backslash
        ('{"a": "x\\u00', {"a": "x"}),  # cut inside a \u escape
        ('{"a": "\\ud83d', {"a": "\ud83d"}),  # lone surrogate escape survives
        ('{"a": {"b": [{"c": "d', {"a": {"b": [{"c": "d"}]}}),
        ('{"a": nu', {"a": None}),
        ('{"a": fals', {"a": False}),
        ('{"n": 1e', {"n": 1}),  # cut exponent retried up to the last "e"
        ('{"a": 1.', {}),  # partial-json's quirk: no "e" to cut at, so the value is lost
        ("1e", 1),
        ("1.", {}),
        ("-", {}),
        ("nul", {}),  # partial null becomes {} (pi's `result ?? {}`)
        ("garbage", {}),
        ('"abc', "abc"),
        ('{"a":1, }', {"a": 1}),
    ],
)
def test_partial_json_quirks(text: str, expected: Any) -> None:
    assert parse_streaming_json(text) == expected


def test_non_finite_literals_follow_partial_json() -> None:
    result = parse_streaming_json("[NaN, Infinity, -Inf")
    assert isinstance(result, list)
    assert math.isnan(result[0])
    assert result[1:] == [math.inf, -math.inf]


def test_parse_partial_json_raises_on_empty_like_the_npm_package() -> None:
    with pytest.raises(ValueError):
        parse_partial_json("   ")


# --------------------------------------------------------------------------- parity with pi


def _decode(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"$"}:
            return float(value["$"])
        return {key: _decode(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_decode(item) for item in value]
    return value


def _same(got: Any, expected: Any) -> bool:
    if isinstance(got, float) and isinstance(expected, float):
        return got == expected or (math.isnan(got) and math.isnan(expected))
    if isinstance(got, dict) and isinstance(expected, dict):
        return got.keys() == expected.keys() and all(_same(got[k], expected[k]) for k in got)
    if isinstance(got, list) and isinstance(expected, list):
        return len(got) == len(expected) and all(map(_same, got, expected))
    if isinstance(got, bool) or isinstance(expected, bool):
        return got is expected
    return bool(got == expected)


def test_matches_pi_on_recorded_cases() -> None:
    """Every recorded input gives what pi's own parser gave (computed with node)."""
    cases = json.loads(PI_CASES.read_text(encoding="utf-8"))["cases"]
    assert len(cases) > 1000
    mismatches = [
        (text, expected)
        for text, expected in cases
        if not _same(parse_streaming_json(text), _decode(expected))
    ]
    assert mismatches == []


# --------------------------------------------------------------------------- properties

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(json_values, st.booleans(), st.sampled_from([None, 2]))
def test_every_prefix_parses_and_the_full_text_round_trips(
    value: Any, ensure_ascii: bool, indent: int | None
) -> None:
    text = json.dumps(value, ensure_ascii=ensure_ascii, indent=indent)
    for end in range(len(text)):
        parse_streaming_json(text[:end])  # never raises
    assert parse_streaming_json(text) == value


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('{}[]",:\\ -+.0123456789eEtrufalsnNIiy\n'))))
def test_never_raises_on_json_like_noise(text: str) -> None:
    parse_streaming_json(text)


@settings(max_examples=100, deadline=None)
@given(st.text())
def test_never_raises_on_any_text(text: str) -> None:
    parse_streaming_json(text)


def test_deep_nesting_does_not_raise() -> None:
    assert parse_streaming_json("[" * 5000) is not None
    assert parse_streaming_json("[" * 5000 + "]" * 5000) is not None


@pytest.mark.parametrize("text", ["-", "nope", "1."])
def test_parse_partial_json_raises_value_error_where_partial_json_throws(text: str) -> None:
    with pytest.raises(ValueError):
        parse_partial_json(text)


def test_final_arguments_must_be_complete_json() -> None:
    from pitui.ai.partial_json import parse_final_json

    assert parse_final_json('{"command": "ls"}') == ({"command": "ls"}, None)
    assert parse_final_json("") == ({}, None)
    value, problem = parse_final_json('{"command": "touch keep_me_not_this_')
    assert problem == "the arguments are not complete JSON"
    assert value == {"command": "touch keep_me_not_this_"}  # shown, never run
    assert parse_final_json("[1]")[1] == "the arguments are not a JSON object"
    assert parse_final_json('{"a": NaN}')[1] is not None
