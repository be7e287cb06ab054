"""SQLite FTS5's BM25, computed over postings held as numpy arrays.

FTS5 pays about a microsecond per matching row to score it (its ``bm25()``
reads each row's position lists), so an OR query whose common terms match a
quarter of a million-unit collection takes 150-500 ms. The same scores from
arrays cost a gather and a few vector operations per posting.

The formula is FTS5's own (``fts5_aux.c``), so a segment answers exactly what
``bm25(units_fts, w...)`` would: per query term t and row d,

    f    = sum over columns c of weight_c * (occurrences of t in column c of d)
    idf  = log((N - df + 0.5) / (df + 0.5)), or 1e-6 where that is <= 0
    part = idf * ((f * (K1 + 1)) / (f + K1 * ((1 - B) + B * D / avgdl)))

summed over the query's terms in their order; D is the row's tokens in all
columns, avgdl the mean D, N the rows and df the rows holding t.

A segment covers fixed rows; the caller says which of them are still alive
and may add a second, live segment: ``idf`` and ``avgdl`` then come from the
union (``Stats``), as FTS5 would compute them over the table as it is now.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

K1 = 1.2
B = 0.75
# FTS5 floors a non-positive idf (a term in over half the rows) at this.
MIN_IDF = 1e-6
# Slack on a term's bound, far above double rounding, far below any score gap.
BOUND_SLACK = 1e-9
# Rows tokenised per step of a build: bounds the temporary arrays.
BUILD_BATCH_ROWS = 65_536


@dataclass(frozen=True)
class Segment:
    """Postings of the rows of one build, term by term.

    The postings of term ``terms[t]`` are ``rows[offsets[t]:offsets[t + 1]]``
    (ascending) with their weighted frequencies in ``freqs`` at the same places.
    """

    terms: dict[str, int]
    offsets: npt.NDArray[np.int64]  # (V + 1,)
    rows: npt.NDArray[np.int32]  # (nnz,)
    freqs: npt.NDArray[np.float32]  # (nnz,)
    unit_ids: npt.NDArray[np.int64]  # (n,) the unit id of each row, ascending
    lengths: npt.NDArray[np.int32]  # (n,) tokens in all columns: FTS5's D

    def postings(self, term: str) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float32]]:
        """(rows, weighted frequencies) of ``term``; empty when no row holds it."""
        t = self.terms.get(term)
        if t is None:
            return np.empty(0, np.int32), np.empty(0, np.float32)
        begin, end = int(self.offsets[t]), int(self.offsets[t + 1])
        return self.rows[begin:end], self.freqs[begin:end]


@dataclass(frozen=True)
class Stats:
    """What BM25 needs of the whole table: rows and tokens (for avgdl)."""

    rows: int
    tokens: int

    @property
    def avgdl(self) -> float:
        return self.tokens / self.rows if self.rows else 1.0

    def idf(self, df: int) -> float:
        value = math.log((self.rows - df + 0.5) / (df + 0.5))
        return value if value > 0.0 else MIN_IDF


def build(
    docs: Iterable[tuple[int, Sequence[str]]], weights: Sequence[float]
) -> Segment:
    """A segment of ``docs``: (unit id, one space-separated term string per column).

    Unit ids must ascend. Terms split at whitespace, as FTS5's tokenizer splits
    the term strings embedstore stores (lowercase letters, digits and ``_``).
    """
    vocabulary: defaultdict[str, int] = defaultdict()
    vocabulary.default_factory = vocabulary.__len__  # each new term gets the next id
    unit_ids: list[int] = []
    lengths: list[int] = []
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    batch: list[tuple[int, Sequence[str]]] = []
    for doc in docs:
        batch.append(doc)
        if len(batch) == BUILD_BATCH_ROWS:
            parts.append(_batch_postings(batch, len(unit_ids), weights, vocabulary,
                                         unit_ids, lengths))
            batch = []
    if batch:
        parts.append(_batch_postings(batch, len(unit_ids), weights, vocabulary,
                                     unit_ids, lengths))
    ids = np.array(unit_ids, dtype=np.int64)
    if ids.size > 1 and not (np.diff(ids) > 0).all():
        raise ValueError("unit ids of a BM25 segment must ascend")
    term_of = np.concatenate([p[0] for p in parts]) if parts else np.empty(0, np.int32)
    # A stable sort by term keeps each term's rows ascending: batches come in row order.
    order = np.argsort(term_of, kind="stable")
    counts = np.bincount(term_of, minlength=len(vocabulary))  # (V,)
    offsets = np.zeros(len(vocabulary) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    rows = np.concatenate([p[1] for p in parts])[order] if parts else np.empty(0, np.int32)
    freqs = np.concatenate([p[2] for p in parts])[order] if parts else np.empty(0, np.float32)
    return Segment(dict(vocabulary), offsets, rows.astype(np.int32), freqs.astype(np.float32),
                   ids, np.array(lengths, dtype=np.int32))


def _batch_postings(
    batch: list[tuple[int, Sequence[str]]],
    first_row: int,
    weights: Sequence[float],
    vocabulary: defaultdict[str, int],
    unit_ids: list[int],
    lengths: list[int],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(term, row, weighted frequency) of every distinct (term, row) pair of one batch."""
    tokens: list[str] = []
    token_weights: list[np.ndarray] = []
    token_rows: list[np.ndarray] = []
    for row, (unit_id, columns) in enumerate(batch, start=first_row):
        if len(columns) != len(weights):
            raise ValueError(f"unit {unit_id} has {len(columns)} columns, weights {len(weights)}")
        length = 0
        for column, weight in zip(columns, weights, strict=True):
            words = column.split()
            tokens.extend(words)
            token_weights.append(np.full(len(words), weight, dtype=np.float64))
            length += len(words)
        token_rows.append(np.full(length, row, dtype=np.int64))
        unit_ids.append(unit_id)
        lengths.append(length)
    term_ids = np.fromiter(map(vocabulary.__getitem__, tokens), dtype=np.int64,
                           count=len(tokens))  # (tokens,)
    key = term_ids << 32 | np.concatenate(token_rows)  # (tokens,) term-major, then row
    pairs, inverse = np.unique(key, return_inverse=True)  # (pairs,)
    freqs = np.bincount(inverse, weights=np.concatenate(token_weights), minlength=len(pairs))
    return (pairs >> 32).astype(np.int32), (pairs & 0xFFFFFFFF).astype(np.int32), freqs


def document_frequency(
    segment: Segment, term: str, alive: npt.NDArray[np.bool_] | None = None
) -> int:
    """Rows of ``segment`` holding ``term``, counting only ``alive`` rows when given."""
    rows, _ = segment.postings(term)
    return int(rows.size if alive is None else np.count_nonzero(alive[rows]))


def tokens(segment: Segment, alive: npt.NDArray[np.bool_] | None = None) -> int:
    """Tokens in the (alive) rows of ``segment``."""
    lengths = segment.lengths if alive is None else segment.lengths[alive]
    return int(lengths.sum(dtype=np.int64))


def top(
    segment: Segment,
    idfs: Sequence[tuple[str, float]],
    stats: Stats,
    k: int,
    allowed: npt.NDArray[np.bool_] | None = None,
) -> list[tuple[int, float]]:
    """The ``k`` best (unit id, BM25) of the ``allowed`` rows matching any (term, idf).

    Exact, but without scoring every posting of the common terms (MaxScore):
    a term adds less than ``idf * (K1 + 1)`` to any row, so once some rows are
    known to score ``theta``, a row holding only terms whose bounds sum below
    ``theta`` cannot be among the best. The rare terms' rows give ``theta``;
    only the rows of the terms that could still matter are then scored.
    """
    if k <= 0 or not idfs:
        return []
    by_rarity = sorted(idfs, key=lambda ti: segment.postings(ti[0])[0].size)
    first: list[str] = []
    postings = 0
    for term, _ in by_rarity:
        first.append(term)
        postings += segment.postings(term)[0].size
        if postings >= k:
            break
    rows = _rows_of(segment, first, allowed)
    values = _full_scores(segment, idfs, stats, rows)
    edge = values.size - k
    theta = float(np.partition(values, edge)[edge]) if edge >= 0 else 0.0
    # The commonest terms whose bounds together stay below theta cannot lift a row to theta.
    bounds = np.cumsum([idf * (K1 + 1.0) * (1 + BOUND_SLACK) for _, idf in reversed(by_rarity)])
    needed = [term for term, _ in by_rarity[: len(by_rarity) - int((bounds < theta).sum())]]
    if not set(needed) <= set(first):
        rows = _rows_of(segment, needed, allowed)
        values = _full_scores(segment, idfs, stats, rows)
    return best(segment.unit_ids[rows], values, k)


def _rows_of(
    segment: Segment, terms: Sequence[str], allowed: npt.NDArray[np.bool_] | None
) -> npt.NDArray[np.int64]:
    """The allowed rows holding any of ``terms``, ascending."""
    marked = np.zeros(segment.unit_ids.size, dtype=np.bool_)  # (n,)
    for term in terms:
        marked[segment.postings(term)[0]] = True
    if allowed is not None:
        marked &= allowed
    return np.flatnonzero(marked)


def _full_scores(
    segment: Segment,
    idfs: Sequence[tuple[str, float]],
    stats: Stats,
    rows: npt.NDArray[np.int64],
) -> npt.NDArray[np.float64]:
    """BM25 of ``rows`` (ascending) over every query term, summed in the query's order."""
    total = np.zeros(rows.size, dtype=np.float64)  # (c,)
    norms = K1 * ((1 - B) + B * segment.lengths[rows] / stats.avgdl)  # (c,)
    for term, idf in idfs:
        term_rows, freqs = segment.postings(term)
        if term_rows.size == 0 or rows.size == 0:
            continue
        # Where each candidate would sit in the term's sorted rows; a hit if it is there.
        at = np.minimum(np.searchsorted(term_rows, rows), term_rows.size - 1)  # (c,)
        hit = np.flatnonzero(term_rows[at] == rows)  # (h,) positions in rows
        f = freqs[at[hit]].astype(np.float64)  # (h,)
        # Operation for operation FTS5's expression, so the doubles come out equal.
        total[hit] += idf * ((f * (K1 + 1.0)) / (f + norms[hit]))
    return total


def best(
    unit_ids: npt.NDArray[np.int64], values: npt.NDArray[np.float64], k: int
) -> list[tuple[int, float]]:
    """The ``k`` highest (unit id, score), ties broken by the smaller id (FTS5's ORDER BY)."""
    if unit_ids.size > k:
        # Everything scoring at least the k-th best value, ties at the edge included.
        edge = np.partition(values, unit_ids.size - k)[unit_ids.size - k]
        keep = values >= edge
        unit_ids, values = unit_ids[keep], values[keep]
    order = np.lexsort((unit_ids, -values))[:k]
    return [(int(unit_ids[i]), float(values[i])) for i in order]
