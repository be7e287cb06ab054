"""The Encoder protocol every encoder family implements."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence, Sized
from typing import Any, Literal, Protocol

import numpy as np

TextKind = Literal["document", "query"]
# Called after each batch with the number of texts it encoded.
BatchCallback = Callable[[int], None]
# Maps a batch encoder over batches, results in order: builtin map, or Streams.map.
BatchRunner = Callable[
    [Callable[[list[Any]], np.ndarray], Sequence[list[Any]]], Iterable[np.ndarray]
]


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
    run: BatchRunner = map,
    same_length: bool = False,
) -> np.ndarray:
    """Run ``encode_batch`` over length-sorted batches of token-id lists (or texts).

    A batch holds ``batch_size`` items of the longest length in the call, or
    as many shorter ones as fit in the same padded size (see budget_batches).
    ``same_length`` (token-id lists): a batch holds rows of one length only.
    ``run`` maps ``encode_batch`` over the batches (Streams.map: several at once).
    Rows come back in input order: (n,) items -> float32 (n, dim).
    """
    out = np.zeros((len(items), dim), dtype=np.float32)  # (n, dim)
    batches = budget_batches([len(t) for t in items], batch_size, same_length=same_length)
    inputs = [[items[i] for i in batch] for batch in batches]
    for batch, vectors in zip(batches, run(encode_batch, inputs), strict=True):
        out[batch] = vectors  # (len(batch), dim)
        if on_batch is not None:
            on_batch(len(batch))
    return out


def budget_batches(
    lengths: Sequence[int], batch_size: int, *, same_length: bool = False
) -> list[list[int]]:
    """Indices in batches of similar length, longest first, each within one token budget.

    The budget is ``batch_size`` rows of the longest length: a batch of long
    texts holds ``batch_size`` of them, one of short texts proportionally more,
    so every batch costs about the same and none is mostly padding. Sorting by
    token count (not characters) keeps padding near zero; longest first makes
    an out-of-memory error show up on the first batch.

    ``same_length`` puts only equal lengths in a batch, so nothing is padded. A
    row's vector then depends on its text alone: the matrix kernels round by the
    padded length (1e-3 apart in bf16, 1e-7 in fp32), so a text encoded beside
    longer ones would score differently than when encoded with others, and an
    index's scores would depend on its history (issue 30 G8).
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    budget = batch_size * max(max(lengths, default=1), 1)
    batches: list[list[int]] = []
    for i in order:
        # Sorted longest first: a batch's first item sets its padded length.
        padded = lengths[batches[-1][0]] if batches else 0
        fits = not same_length or padded == lengths[i]
        if batches and fits and (len(batches[-1]) + 1) * max(padded, 1) <= budget:
            batches[-1].append(i)
        else:
            batches.append([i])
    return batches
