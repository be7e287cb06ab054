"""Sharded IVF-PQ builds: trained once, filled per shard in parallel, merged by FAISS."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from embedstore.indexes import VectorIndex, ivfpq_params
from embedstore.indexes.shards import (
    add_shard,
    build_ivfpq_sharded,
    merge_shards,
    train_ivfpq,
)

Vectors = npt.NDArray[np.float32]
Collection = tuple[Vectors, npt.NDArray[np.int64], Vectors]


@pytest.fixture(scope="module")
def collection(large_collection: tuple[Vectors, Vectors]) -> Collection:
    """The 20,000 clustered vectors under shuffled sparse ids, so renumbering would show."""
    base, queries = large_collection
    ids = np.random.default_rng(1).permutation(base.shape[0]).astype(np.int64) * 7 + 3  # (n,)
    return base, ids, queries


@pytest.fixture(scope="module")
def trained(collection: Collection) -> VectorIndex:
    base, _, _ = collection
    # Half the collection trains the index the whole one would get, with fewer, coarser
    # lists and codes than its default (nlist 512, m 48): sharding must not change the
    # result whatever the parameters, and these train several times faster.
    return train_ivfpq(base[::2], n=base.shape[0], params={"nlist": 64, "m": 16})


def _assert_same_search(a: VectorIndex, b: VectorIndex, queries: Vectors) -> None:
    for nprobe in (None, 4, a.params["nlist"]):
        scores_a, ids_a = a.search(queries, 50, nprobe=nprobe)
        scores_b, ids_b = b.search(queries, 50, nprobe=nprobe)
        np.testing.assert_array_equal(ids_a, ids_b)
        np.testing.assert_array_equal(scores_a, scores_b)


def test_three_shards_merged_search_like_one_add(
    collection: Collection, trained: VectorIndex
) -> None:
    base, ids, queries = collection
    single = add_shard(trained, ids, base)
    sharded = build_ivfpq_sharded(ids, base, shards=3, trained=trained)
    assert sharded.ntotal == single.ntotal == base.shape[0]
    assert sharded.params == single.params == trained.params
    _assert_same_search(single, sharded, queries)
    # The shared trained index was cloned, never filled.
    assert trained.ntotal == 0


def test_untrained_sharded_build_is_the_index_build_gives(small_collection: Collection) -> None:
    base, ids, queries = small_collection
    sharded = build_ivfpq_sharded(ids, base, shards=3, seed=5)
    built = VectorIndex.build("ivfpq", base.shape[1], base, ids, seed=5)
    assert sharded.params == built.params
    _assert_same_search(built, sharded, queries)


def test_thread_count_does_not_change_the_index(
    collection: Collection, trained: VectorIndex
) -> None:
    base, ids, queries = collection
    one_thread = build_ivfpq_sharded(ids, base, shards=4, trained=trained, workers=1)
    four_threads = build_ivfpq_sharded(ids, base, shards=4, trained=trained, workers=4)
    _assert_same_search(one_thread, four_threads, queries)


def test_sample_trains_with_the_parameters_of_the_full_collection(
    small_collection: Collection,
) -> None:
    base, _, _ = small_collection
    index = train_ivfpq(base, n=20_000)
    assert index.params == ivfpq_params(20_000, base.shape[1]) != ivfpq_params(2_000, base.shape[1])
    assert index.ntotal == 0
    # 1M vectors want 4,096 lists: k-means cannot place them with 2,000 points.
    with pytest.raises(ValueError, match="training sample of at least 4096"):
        train_ivfpq(base, n=1_000_000, params={"nlist": 4096})
    with pytest.raises(ValueError, match="below the sample size"):
        train_ivfpq(base, n=10)


def test_more_shards_than_vectors_leaves_some_empty(small_collection: Collection) -> None:
    base, ids, queries = small_collection
    trained = train_ivfpq(base)
    few = slice(0, 5)
    index = build_ivfpq_sharded(ids[few], base[few], shards=8, trained=trained)
    assert index.ntotal == 5
    _, found = index.search(queries[:1], 10, nprobe=index.params["nlist"])
    assert set(found[0][found[0] >= 0].tolist()) == set(ids[few].tolist())


def test_shards_trained_apart_are_refused(small_collection: Collection) -> None:
    base, ids, _ = small_collection
    half = base.shape[0] // 2
    first = add_shard(train_ivfpq(base, seed=0), ids[:half], base[:half])
    second = add_shard(train_ivfpq(base, seed=1), ids[half:], base[half:])
    with pytest.raises(ValueError, match="not trained together"):
        merge_shards([first, second])


def test_an_id_in_two_shards_is_refused(small_collection: Collection) -> None:
    base, ids, _ = small_collection
    trained = train_ivfpq(base)
    first = add_shard(trained, ids[:100], base[:100])
    second = add_shard(trained, ids[99:200], base[99:200])
    with pytest.raises(ValueError, match="duplicates"):
        merge_shards([first, second])


def test_only_empty_ivfpq_indexes_serve_as_trained(small_collection: Collection) -> None:
    base, ids, _ = small_collection
    flat = VectorIndex.build("flat", base.shape[1], base, ids)
    with pytest.raises(ValueError, match="for ivfpq indexes"):
        build_ivfpq_sharded(ids, base, trained=flat)
    with pytest.raises(ValueError, match="only ivfpq shards"):
        merge_shards([flat])
    filled = add_shard(train_ivfpq(base), ids, base)
    with pytest.raises(ValueError, match="must be empty"):
        build_ivfpq_sharded(ids, base, trained=filled)
    with pytest.raises(ValueError, match="shards must be a positive integer"):
        build_ivfpq_sharded(ids, base, shards=0)
    with pytest.raises(ValueError, match="at least one shard"):
        merge_shards([])
