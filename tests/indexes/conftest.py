"""Synthetic vector collections for the index tests."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

Vectors = npt.NDArray[np.float32]


def _normalised(x: Vectors) -> Vectors:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def clustered(n: int, d: int, centres: int, queries: int, seed: int = 0) -> tuple[Vectors, Vectors]:
    """``n`` base and ``queries`` query vectors (d), unit length, around ``centres`` directions.

    The noise has the same norm as a centre, so neighbours share a cluster but
    are not near-duplicates: PQ codes alone rank them poorly.
    """
    rng = np.random.default_rng(seed)
    centre_vectors = _normalised(rng.standard_normal((centres, d)).astype(np.float32))  # (c, d)
    labels = rng.integers(0, centres, n + queries)  # (n + q,)
    noise = rng.standard_normal((n + queries, d)).astype(np.float32) / np.sqrt(d)  # (n + q, d)
    points = _normalised(centre_vectors[labels] + noise)  # (n + q, d)
    return points[:n], points[n:]


@pytest.fixture(scope="module")
def large_collection() -> tuple[Vectors, Vectors]:
    """20,000 vectors of dimension 384 around 200 centres, and 200 queries."""
    return clustered(20_000, 384, 200, 200)


@pytest.fixture(scope="module")
def small_collection() -> tuple[Vectors, npt.NDArray[np.int64], Vectors]:
    """2,000 vectors of dimension 32 under sparse ids (7·i + 3), and 20 queries."""
    base, queries = clustered(2_000, 32, 20, 20)
    ids = np.arange(base.shape[0], dtype=np.int64) * 7 + 3  # (n,)
    return base, ids, queries
