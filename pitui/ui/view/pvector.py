"""A small persistent (immutable, structurally shared) vector for the chat view model.

The reducer runs once per streamed token. Replacing one item of a plain tuple copies the
whole tuple; here items live in fixed-size chunks, so a replacement copies one chunk and
the (n / CHUNK) spine. Unchanged chunks are shared between versions, which also lets
:func:`changed_positions` find what changed between two versions without visiting them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Generic, TypeVar, overload

T = TypeVar("T")
CHUNK = 32


class PVector(Sequence[T], Generic[T]):
    """An immutable sequence with cheap ``append`` and ``set``."""

    __slots__ = ("_chunks", "_len")

    def __init__(self, items: Sequence[T] = ()) -> None:
        self._chunks: tuple[tuple[T, ...], ...] = tuple(
            tuple(items[i : i + CHUNK]) for i in range(0, len(items), CHUNK)
        )
        self._len = len(items)

    @classmethod
    def _make(cls, chunks: tuple[tuple[T, ...], ...], length: int) -> PVector[T]:
        vec: PVector[T] = cls.__new__(cls)
        vec._chunks = chunks
        vec._len = length
        return vec

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[T]: ...
    def __getitem__(self, index: int | slice) -> T | Sequence[T]:
        if isinstance(index, slice):
            return list(self)[index]
        if index < 0:
            index += self._len
        if not 0 <= index < self._len:
            raise IndexError("PVector index out of range")
        return self._chunks[index // CHUNK][index % CHUNK]

    def __iter__(self) -> Iterator[T]:
        for chunk in self._chunks:
            yield from chunk

    def __repr__(self) -> str:
        return f"PVector({list(self)!r})"

    def append(self, item: T) -> PVector[T]:
        """A new vector with ``item`` at the end."""
        chunks = self._chunks
        if chunks and len(chunks[-1]) < CHUNK:
            chunks = (*chunks[:-1], (*chunks[-1], item))
        else:
            chunks = (*chunks, (item,))
        return PVector._make(chunks, self._len + 1)

    def set(self, index: int, item: T) -> PVector[T]:
        """A new vector with position ``index`` replaced by ``item``."""
        if not 0 <= index < self._len:
            raise IndexError("PVector index out of range")
        c, i = divmod(index, CHUNK)
        chunk = self._chunks[c]
        new_chunk = (*chunk[:i], item, *chunk[i + 1 :])
        return PVector._make((*self._chunks[:c], new_chunk, *self._chunks[c + 1 :]), self._len)


def changed_positions(old: PVector[T], new: PVector[T]) -> list[int]:
    """Positions whose item differs (by identity) between two versions, plus new ones.

    Chunks shared between the versions are skipped without looking inside.
    """
    changed: list[int] = []
    old_chunks, new_chunks = old._chunks, new._chunks
    for c, chunk in enumerate(new_chunks):
        before = old_chunks[c] if c < len(old_chunks) else ()
        if chunk is before:
            continue
        base = c * CHUNK
        for i, item in enumerate(chunk):
            if i >= len(before) or before[i] is not item:
                changed.append(base + i)
    return changed
