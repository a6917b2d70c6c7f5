"""The SSE parser reads every stream as httpx-sse did, however the bytes are split."""

from __future__ import annotations

from httpx_sse._decoders import SSEDecoder, SSELineDecoder
from hypothesis import given
from hypothesis import strategies as st

from pitui.ai.providers._sse import ServerSentEvent, SSEParser

Seen = list[tuple[str, str, str, int | None]]

LINE_PARTS = st.sampled_from(
    [
        "data",
        "data:",
        "data: x",
        "data:  two",
        "event: ping",
        "event:",
        "id: 7",
        "id: a\0b",
        "retry: 300",
        "retry: soon",
        ": comment",
        "other: 1",
        "",
        "é",
        'data: {"a": 1}',
    ]
)
ENDS = st.sampled_from(["\n", "\r\n", "\r"])


def reference(body: bytes) -> Seen:
    """httpx-sse's decoders over the whole body at once (its behaviour, the reference)."""
    lines = SSELineDecoder()
    decoder = SSEDecoder()
    text = body.decode("utf-8", "replace")
    out: Seen = []
    for line in [*lines.decode(text), *lines.flush()]:
        event = decoder.decode(line.rstrip("\n"))
        if event is not None:
            out.append((event.event, event.data, event.id, event.retry))
    return out


def parsed(chunks: list[bytes]) -> Seen:
    parser = SSEParser()
    events: list[ServerSentEvent] = []
    for chunk in chunks:
        events += parser.feed(chunk)
    return [(e.event, e.data, e.id, e.retry) for e in events]


def split(body: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(body) + 1) for c in cuts})
    return [body[a:b] for a, b in zip([0, *points], [*points, len(body)], strict=True)]


@given(
    st.lists(st.tuples(LINE_PARTS, ENDS), max_size=30),
    st.lists(st.integers(min_value=0), max_size=12),
)
def test_any_stream_split_anywhere_reads_as_httpx_sse_reads_it(
    lines: list[tuple[str, str]], cuts: list[int]
) -> None:
    body = "".join(part + end for part, end in lines).encode()
    assert parsed(split(body, cuts)) == reference(body)


def test_an_unterminated_last_event_is_not_dispatched() -> None:
    assert parsed([b"data: complete\n\ndata: cut"]) == [("message", "complete", "", None)]


def test_a_multibyte_character_split_across_chunks_survives() -> None:
    body = "data: héllo\n\n".encode()
    cut = body.index(b"\xc3") + 1
    assert parsed([body[:cut], body[cut:]]) == [("message", "héllo", "", None)]


def test_invalid_utf8_becomes_a_replacement_character() -> None:
    assert parsed([b"data: \xff\n\n"]) == [("message", "\ufffd", "", None)]


def test_cr_lf_split_between_chunks_is_one_line_end() -> None:
    assert parsed([b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"]) == [("message", "a\nb", "", None)]
