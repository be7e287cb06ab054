"""Exact re-scoring of approximate candidates, so IVF-PQ recall stays close to exact search."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from embedstore.indexes.arrays import as_vectors, check_positive_int
from embedstore.indexes.vector_index import SearchResult, VectorIndex

# Candidates fetched per wanted result: PQ scores order the true top-k well
# enough that it sits within the first ten times k (see the recall test).
REFINE_FACTOR = 10
MIN_REFINE_CANDIDATES = 100
# One more candidate per this many indexed vectors: at a fixed density of the
# space, the vectors whose PQ score lies within the PQ error of the k-th
# neighbour grow in proportion to the collection. At 1,013,144 units
# (bench/scale_1m.py) 100 candidates kept recall@10 at 0.927 against exact,
# 200 at 0.965 (nprobe 256, 0.8 ms more); below 500,000 units nothing changes.
VECTORS_PER_CANDIDATE = 5_000
# Bounds the (block, candidates, d) float32 gather in ``refine`` to 64 MiB.
_MAX_GATHERED_FLOATS = 1 << 24

Lookup = Callable[[npt.NDArray[np.int64]], npt.ArrayLike]


def refine_candidates(k: int, n: int = 0) -> int:
    """How many IVF-PQ candidates to fetch for ``k`` refined results from ``n`` vectors."""
    check_positive_int("k", k)
    return max(k * REFINE_FACTOR, MIN_REFINE_CANDIDATES, n // VECTORS_PER_CANDIDATE)


def refine(
    queries: npt.ArrayLike, candidate_ids: npt.ArrayLike, lookup: Lookup, k: int
) -> SearchResult:
    """Re-score ``candidate_ids`` (q, c) exactly against ``queries`` (q, d); keep the best ``k``.

    ``lookup(ids)`` receives the sorted unique candidate ids (u,) and must
    return their vectors (u, d) in that order. Ids of -1 are ignored. Returns
    scores (q, k) float32, best first, and ids (q, k) int64, padded with
    id -1 and score -inf where a query has fewer than ``k`` candidates.
    """
    check_positive_int("k", k)
    matrix = as_vectors("queries", queries)  # (q, d)
    candidates = np.asarray(candidate_ids)
    if candidates.ndim != 2 or candidates.shape[0] != matrix.shape[0]:
        raise ValueError(
            f"candidate_ids must have shape ({matrix.shape[0]}, c), got {candidates.shape}"
        )
    if candidates.size and not np.issubdtype(candidates.dtype, np.integer):
        raise ValueError(f"candidate_ids must be integers, got dtype {candidates.dtype}")
    candidates = candidates.astype(np.int64, copy=False)  # (q, c)
    valid = candidates >= 0  # (q, c)
    unique_ids = np.unique(candidates[valid])  # (u,)
    scores = np.full(candidates.shape, -np.inf, dtype=np.float32)  # (q, c)
    if unique_ids.size:
        vectors = as_vectors("lookup(ids) results", lookup(unique_ids), matrix.shape[1])  # (u, d)
        if vectors.shape[0] != unique_ids.size:
            raise ValueError(
                f"lookup returned {vectors.shape[0]} vectors for {unique_ids.size} ids"
            )
        # Rows of -1 candidates point at vector 0; their scores are reset below.
        rows = np.where(valid, np.searchsorted(unique_ids, candidates), 0)  # (q, c)
        _score_blocks(matrix, vectors, rows, scores)
        scores[~valid] = -np.inf
    return _top_k(scores, candidates, k)


def _score_blocks(
    queries: npt.NDArray[np.float32],
    vectors: npt.NDArray[np.float32],
    rows: npt.NDArray[np.intp],
    out: npt.NDArray[np.float32],
) -> None:
    """``out[i, j] = queries[i] · vectors[rows[i, j]]``, a few queries at a time to bound memory."""
    per_query = max(1, rows.shape[1] * vectors.shape[1])
    block = max(1, _MAX_GATHERED_FLOATS // per_query)
    for start in range(0, queries.shape[0], block):
        stop = start + block
        gathered = vectors[rows[start:stop]]  # (b, c, d)
        out[start:stop] = np.einsum("bd,bcd->bc", queries[start:stop], gathered)


def _top_k(scores: npt.NDArray[np.float32], ids: npt.NDArray[np.int64], k: int) -> SearchResult:
    """The ``k`` highest ``scores`` (q, c) per row with their ``ids``, padded to (q, k)."""
    order = np.argsort(-scores, axis=1, kind="stable")[:, :k]  # (q, min(k, c))
    top_scores = np.full((scores.shape[0], k), -np.inf, dtype=np.float32)  # (q, k)
    top_ids = np.full((scores.shape[0], k), -1, dtype=np.int64)  # (q, k)
    top_scores[:, : order.shape[1]] = np.take_along_axis(scores, order, axis=1)
    top_ids[:, : order.shape[1]] = np.take_along_axis(ids, order, axis=1)
    top_ids[top_scores == -np.inf] = -1
    return top_scores, top_ids


def search_refined(
    index: VectorIndex,
    queries: npt.ArrayLike,
    k: int,
    lookup: Lookup,
    *,
    nprobe: int | None = None,
    subset: npt.ArrayLike | None = None,
) -> SearchResult:
    """``index.search`` with exact scores: IVF-PQ candidates are re-scored by ``refine``."""
    if index.exact:
        return index.search(queries, k, subset=subset)
    _, candidates = index.search(
        queries, refine_candidates(k, index.ntotal), nprobe=nprobe, subset=subset
    )  # (q, c)
    return refine(queries, candidates, lookup, k)
