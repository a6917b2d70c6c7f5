"""Server-sent events from a response's bytes: the one SSE parser of every provider adapter.

The rules are the HTML standard's event-stream interpretation, as ``httpx_sse`` applies
them (the parser pitui used before): lines end at ``\\r\\n``, ``\\r`` or ``\\n`` (and
nothing else), a blank line dispatches the event, ``:`` starts a comment, one space after
the field's colon is dropped, ``data`` lines join with ``\\n``, an event without a name is
a ``message``, the last event id carries over and an ``id`` holding NUL is ignored. The
bytes are UTF-8; an invalid sequence becomes U+FFFD rather than failing the stream.

It needs no HTTP library: the small asyncio client (:mod:`pitui.ai.providers._wire`) and
the httpx path used behind a proxy both feed it raw body chunks.
"""

from __future__ import annotations

import codecs
import contextlib
from collections.abc import AsyncIterator


class ServerSentEvent:
    """One dispatched event: its name (``message`` if unnamed), data, last id and retry."""

    __slots__ = ("data", "event", "id", "retry")

    def __init__(
        self, event: str = "", data: str = "", id: str = "", retry: int | None = None
    ) -> None:
        self.event = event or "message"
        self.data = data
        self.id = id
        self.retry = retry

    def __repr__(self) -> str:
        pieces = [f"event={self.event!r}"]
        if self.data:
            pieces.append(f"data={self.data!r}")
        if self.id:
            pieces.append(f"id={self.id!r}")
        if self.retry is not None:
            pieces.append(f"retry={self.retry!r}")
        return f"ServerSentEvent({', '.join(pieces)})"


class SSEParser:
    """Incremental: :meth:`feed` it the body's chunks as they arrive."""

    def __init__(self) -> None:
        self._text = codecs.getincrementaldecoder("utf-8")("replace")
        self._pending = ""
        """The unterminated start of the next line."""
        self._cr = False
        """The last chunk ended in ``\\r``: it ended a line, and a ``\\n`` next belongs to it."""
        self._event = ""
        self._data: list[str] = []
        self._last_id = ""
        self._retry: int | None = None

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        """The events that ``chunk`` completes (usually none or a few).

        There is no ``close``: a last line without its line end never dispatches anything.
        """
        text = self._text.decode(chunk)
        if self._cr and text:
            self._cr = False  # the line it ended is already read
            if text[0] == "\n":
                text = text[1:]
        if not text:
            return []
        if text[-1] == "\r":
            self._cr = True
            text = text[:-1]
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.split("\n")
        lines[0] = self._pending + lines[0]
        # After a final \r the last part is a whole line; else it waits for its end.
        self._pending = "" if self._cr else lines.pop()
        return self._interpret(lines) if lines else []

    def _interpret(self, lines: list[str]) -> list[ServerSentEvent]:
        events: list[ServerSentEvent] = []
        for line in lines:
            if not line:
                if self._event or self._data or self._last_id or self._retry is not None:
                    events.append(
                        ServerSentEvent(
                            self._event, "\n".join(self._data), self._last_id, self._retry
                        )
                    )
                    self._event, self._data, self._retry = "", [], None
                continue
            if line[0] == ":":
                continue
            name, _, value = line.partition(":")
            if value[:1] == " ":
                value = value[1:]
            if name == "data":
                self._data.append(value)
            elif name == "event":
                self._event = value
            elif name == "id":
                if "\0" not in value:
                    self._last_id = value
            elif name == "retry":
                with contextlib.suppress(ValueError):
                    self._retry = int(value)
        return events


async def aiter_sse(chunks: AsyncIterator[bytes]) -> AsyncIterator[ServerSentEvent]:
    """The events of a body that arrives as ``chunks``."""
    parser = SSEParser()
    async for chunk in chunks:
        for event in parser.feed(chunk):
            yield event
