"""The Encoder protocol every encoder family implements."""

from __future__ import annotations

from collections.abc import Callable, Sequence, Sized
from typing import Any, Literal, Protocol

import numpy as np

TextKind = Literal["document", "query"]
# Called after each batch with the number of texts it encoded.
BatchCallback = Callable[[int], None]


class Encoder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed dimension."""

    @property
    def name(self) -> str:
        """The spec that reloads this encoder (stored in collection.json)."""
        ...

    @property
    def revision(self) -> str | None:
        """A version of the weights, when one is known."""
        ...

    @property
    def dim(self) -> int: ...

    @property
    def max_tokens(self) -> int:
        """Longest input, special tokens included, that is encoded whole."""
        ...

    @property
    def pooling(self) -> str: ...

    @property
    def precision(self) -> str:
        """The arithmetic documents are encoded in: fp32, or a checked faster path."""
        ...

    def count_tokens(self, texts: list[str]) -> list[int]: ...

    def encode(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = 32,
        kind: TextKind = "document",
        on_batch: BatchCallback | None = None,
    ) -> np.ndarray:
        """(n,) texts -> float32 (n, dim), rows of unit length."""
        ...


def encode_in_batches(
    items: Sequence[Sized],
    encode_batch: Callable[[list[Any]], np.ndarray],
    *,
    dim: int,
    batch_size: int,
    on_batch: BatchCallback | None = None,
) -> np.ndarray:
    """Run ``encode_batch`` over length-sorted batches of texts or token-id lists.

    Rows come back in input order: (n,) items -> float32 (n, dim).
    """
    out = np.zeros((len(items), dim), dtype=np.float32)  # (n, dim)
    for batch in length_sorted_batches([len(t) for t in items], batch_size):
        out[batch] = encode_batch([items[i] for i in batch])  # (len(batch), dim)
        if on_batch is not None:
            on_batch(len(batch))
    return out


def length_sorted_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices grouped into batches of similar length, longest first.

    Texts of similar length share a batch so little compute goes to padding;
    longest first so that an out-of-memory error shows up on the first batch.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
