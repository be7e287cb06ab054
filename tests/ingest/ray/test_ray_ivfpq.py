"""build_ivfpq_on_ray: the sharded IVF-PQ build, each shard added by a Ray task."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from embedstore.indexes.shards import build_ivfpq_sharded, train_ivfpq
from embedstore.ingest.ray_index import build_ivfpq_on_ray

N, DIM = 5000, 32


def unit_rows(rng: np.random.Generator, n: int) -> npt.NDArray[np.float32]:
    rows = rng.standard_normal((n, DIM)).astype(np.float32)  # (n, DIM)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_the_ray_build_searches_like_the_local_one(two_cpu_cluster: None) -> None:
    rng = np.random.default_rng(12)
    vectors = unit_rows(rng, N)  # (N, DIM)
    ids = rng.choice(10**9, size=N, replace=False)  # (N,): ids are not positions
    trained = train_ivfpq(vectors[:2000], n=N)
    on_ray = build_ivfpq_on_ray(trained, ids, vectors, shards=3)
    here = build_ivfpq_sharded(ids, vectors, shards=3, trained=trained)
    assert on_ray.ntotal == here.ntotal == N and trained.ntotal == 0
    queries = unit_rows(rng, 40)  # (40, DIM)
    ray_scores, ray_ids = on_ray.search(queries, 10)
    scores, found = here.search(queries, 10)
    np.testing.assert_array_equal(ray_ids, found)
    np.testing.assert_array_equal(ray_scores, scores)
    assert np.isin(found, ids).all()


def test_bad_arguments_fail_before_any_task(two_cpu_cluster: None) -> None:
    rng = np.random.default_rng(3)
    vectors = unit_rows(rng, 1000)  # (1000, DIM)
    trained = train_ivfpq(vectors)
    with pytest.raises(ValueError, match="dimension 16, expected 32"):
        build_ivfpq_on_ray(trained, np.arange(1000), vectors[:, :16])
    with pytest.raises(ValueError, match="shards must be a positive integer"):
        build_ivfpq_on_ray(trained, np.arange(1000), vectors, shards=0)
    filled = build_ivfpq_on_ray(trained, np.arange(1000), vectors, shards=2)
    with pytest.raises(ValueError, match="must be empty"):
        build_ivfpq_on_ray(filled, np.arange(1000, 2000), vectors)
