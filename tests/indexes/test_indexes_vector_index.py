"""Building, changing and searching a VectorIndex of either kind."""

from __future__ import annotations

import logging

import faiss
import numpy as np
import numpy.typing as npt
import pytest

from embedstore.indexes import VectorIndex, device, set_search_threads

Collection = tuple[npt.NDArray[np.float32], npt.NDArray[np.int64], npt.NDArray[np.float32]]
KINDS = ("flat", "ivfpq")


def _build(kind: str, collection: Collection) -> VectorIndex:
    base, ids, _ = collection
    return VectorIndex.build(kind, base.shape[1], base, ids)


def _everything(index: VectorIndex, query: npt.NDArray[np.float32]) -> set[int]:
    """Every id the index holds, found by one search that scans all of it."""
    nprobe = index.params.get("nlist")
    _, ids = index.search(query[None, :], index.ntotal + 5, nprobe=nprobe)  # (1, ntotal + 5)
    return {int(i) for i in ids[0] if i >= 0}


def test_flat_scores_are_exact_inner_products(small_collection: Collection) -> None:
    base, ids, queries = small_collection
    index = _build("flat", small_collection)
    scores, found = index.search(queries, 5)
    expected = queries @ base.T  # (q, n)
    best = np.argsort(-expected, axis=1)[:, :5]  # (q, 5)
    np.testing.assert_array_equal(found, ids[best])
    np.testing.assert_allclose(scores, np.take_along_axis(expected, best, axis=1), rtol=1e-5)
    assert index.exact
    assert index.params == {}


@pytest.mark.parametrize("kind", KINDS)
def test_remove_hides_ids_and_counts_only_present_ones(
    kind: str, small_collection: Collection
) -> None:
    _, ids, queries = small_collection
    index = _build(kind, small_collection)
    removed = ids[::3]
    assert index.remove(np.concatenate([removed, [1, 2]])) == removed.size
    assert index.ntotal == ids.size - removed.size
    assert _everything(index, queries[0]) == set(ids.tolist()) - set(removed.tolist())
    _, found = index.search(queries, 50)
    assert not np.isin(found, removed).any()
    assert index.remove(removed) == 0


@pytest.mark.parametrize("kind", KINDS)
def test_added_vectors_are_found_under_their_ids(kind: str, small_collection: Collection) -> None:
    _, ids, queries = small_collection
    index = _build(kind, small_collection)
    new_ids = np.array([10**12, 10**12 + 1], dtype=np.int64)
    index.add(new_ids, queries[:2])
    assert index.ntotal == ids.size + 2
    assert _everything(index, queries[0]) == set(ids.tolist()) | set(new_ids.tolist())
    if kind == "flat":
        _, found = index.search(queries[:2], 1)
        np.testing.assert_array_equal(found[:, 0], new_ids)


@pytest.mark.parametrize("kind", KINDS)
def test_missing_results_are_padded_with_minus_one(kind: str, small_collection: Collection) -> None:
    queries = small_collection[2]
    index = _build(kind, small_collection)
    k = index.ntotal + 7
    scores, found = index.search(queries[:2], k, nprobe=index.params.get("nlist"))
    assert found.shape == scores.shape == (2, k)
    assert found.dtype == np.int64 and scores.dtype == np.float32
    assert (found[:, -7:] == -1).all()
    assert np.isneginf(scores[:, -7:]).all()
    assert np.isfinite(scores[found >= 0]).all()


def test_tiny_flat_index_pads_every_query() -> None:
    vectors = np.eye(3, 8, dtype=np.float32)  # (3, 8)
    index = VectorIndex.build("auto", 8, vectors, [30, 10, 20])
    assert index.kind == "flat"
    scores, found = index.search(vectors[:1], 5)
    assert found[0, 0] == 30
    assert set(found[0, 1:3].tolist()) == {10, 20}
    assert found[0, 3:].tolist() == [-1, -1]
    assert np.isneginf(scores[0, 3:]).all()


@pytest.mark.parametrize("kind", KINDS)
def test_no_queries_give_empty_results(kind: str, small_collection: Collection) -> None:
    index = _build(kind, small_collection)
    scores, found = index.search(np.zeros((0, index.dim), dtype=np.float32), 4)
    assert scores.shape == found.shape == (0, 4)


def test_nprobe_is_used_and_clamped_to_nlist(small_collection: Collection) -> None:
    queries = small_collection[2]
    index = _build("ivfpq", small_collection)
    nlist = index.params["nlist"]
    _, one_list = index.search(queries[:1], index.ntotal, nprobe=1)
    _, all_lists = index.search(queries[:1], index.ntotal, nprobe=nlist * 10)
    assert (one_list >= 0).sum() < index.ntotal
    assert (all_lists >= 0).sum() == index.ntotal


def test_the_same_seed_builds_the_same_ivfpq(small_collection: Collection) -> None:
    base, ids, queries = small_collection
    first = VectorIndex.build("ivfpq", 32, base, ids, seed=7).search(queries, 10)
    second = VectorIndex.build("ivfpq", 32, base, ids, seed=7).search(queries, 10)
    np.testing.assert_array_equal(first[1], second[1])
    np.testing.assert_array_equal(first[0], second[0])


def test_ivfpq_params_can_be_overridden(small_collection: Collection) -> None:
    base, ids, _ = small_collection
    index = VectorIndex.build("ivfpq", 32, base, ids, params={"nlist": 8, "nprobe": 2})
    assert index.params == {"nlist": 8, "m": 4, "nbits": 5, "nprobe": 2}


@pytest.mark.parametrize(
    ("vectors", "ids", "message"),
    [
        (np.zeros((4, 16), np.float32), np.arange(4), "dimension 16, expected 32"),
        (np.zeros(32, np.float32), np.arange(1), "2-D"),
        (np.zeros((4, 32), np.float32), np.arange(3), "3 ids for 4 vectors"),
        (np.zeros((2, 32), np.float32), np.array([1, 1]), "duplicates"),
        (np.zeros((2, 32), np.float32), np.array([-1, 1]), "non-negative"),
        (np.zeros((2, 32), np.float32), np.array([0.0, 1.0]), "integers"),
        (np.zeros((2, 32), np.int64), np.arange(2), "floating point"),
        (np.full((2, 32), np.nan, np.float32), np.arange(2), "NaN"),
    ],
)
def test_bad_arrays_are_refused_with_a_clear_message(
    vectors: npt.NDArray[np.generic], ids: npt.NDArray[np.generic], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        VectorIndex.build("flat", 32, vectors, ids)
    index = VectorIndex.build("flat", 32, np.eye(2, 32, dtype=np.float32), [100, 101])
    with pytest.raises(ValueError, match=message):
        index.add(ids, vectors)


def test_bad_build_options_are_refused(small_collection: Collection) -> None:
    base, ids, _ = small_collection
    with pytest.raises(ValueError, match="no parameters"):
        VectorIndex.build("flat", 32, base, ids, params={"nlist": 4})
    with pytest.raises(ValueError, match="flat"):
        VectorIndex.build("ivfpq", 32, base[:50], ids[:50])
    with pytest.raises(ValueError, match="auto, flat, ivfpq"):
        VectorIndex.build("hnsw", 32, base, ids)
    with pytest.raises(ValueError, match="dimension must be a positive integer"):
        VectorIndex.build("flat", 0, base, ids)


@pytest.mark.parametrize(
    ("queries_shape", "k", "nprobe", "message"),
    [
        ((2, 31), 5, None, "dimension 31, expected 32"),
        ((32,), 5, None, "2-D"),
        ((2, 32), 0, None, "k must be a positive integer"),
        ((2, 32), 5, 0, "nprobe must be a positive integer"),
    ],
)
def test_bad_search_arguments_are_refused(
    queries_shape: tuple[int, ...], k: int, nprobe: int | None, message: str
) -> None:
    index = VectorIndex.build("flat", 32, np.eye(2, 32, dtype=np.float32), [1, 2])
    with pytest.raises(ValueError, match=message):
        index.search(np.ones(queries_shape, np.float32), k, nprobe=nprobe)


@pytest.mark.skipif(device.gpu_count() > 0, reason="checks the fallback of CPU-only FAISS")
def test_a_missing_gpu_build_falls_back_to_cpu(
    small_collection: Collection, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    queries = small_collection[2]
    index = _build("ivfpq", small_collection)
    expected = index.search(queries, 10)
    monkeypatch.setattr(device, "gpu_count", lambda: 1)
    with caplog.at_level(logging.WARNING, logger=device.__name__):
        first = index.search(queries, 10)
        second = index.search(queries, 10)
    np.testing.assert_array_equal(first[1], expected[1])
    np.testing.assert_array_equal(second[1], expected[1])
    assert len([r for r in caplog.records if "searching on CPU" in r.getMessage()]) == 1


def test_search_threads_are_set_and_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive integer"):
        set_search_threads(0)
    original = faiss.omp_get_max_threads()
    try:
        set_search_threads(1)
        assert faiss.omp_get_max_threads() == 1
    finally:
        set_search_threads(original)


@pytest.mark.parametrize("kind", KINDS)
def test_subset_search_returns_only_allowed_ids(kind: str, small_collection: Collection) -> None:
    base, ids, queries = small_collection
    index = _build(kind, small_collection)
    allowed = ids[::50]  # (40,)
    _, found = index.search(queries, 10, nprobe=index.params.get("nlist"), subset=allowed)
    assert set(found[found >= 0].tolist()) <= set(allowed.tolist())
    assert (found >= 0).sum(axis=1).min() == 10  # enough allowed ids exist for every query
    if kind == "flat":
        expected = allowed[np.argsort(-(queries @ base[::50].T), axis=1)[:, :10]]  # (q, 10)
        np.testing.assert_array_equal(found, expected)
