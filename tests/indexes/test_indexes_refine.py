"""The refine step: exact re-scoring of candidates, and the recall it buys IVF-PQ."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from embedstore.indexes import (
    MIN_REFINE_CANDIDATES,
    VectorIndex,
    refine,
    refine_candidates,
    search_refined,
)

Vectors = npt.NDArray[np.float32]
Ids = npt.NDArray[np.int64]


def _recall_at(found: Ids, truth: Ids) -> float:
    """Mean fraction of each query's true neighbours (q, k) present in ``found`` (q, k)."""
    hits = [np.intersect1d(f, t).size for f, t in zip(found, truth, strict=True)]
    return float(np.mean(hits)) / truth.shape[1]


def test_refine_lifts_ivfpq_recall_close_to_exact(
    large_collection: tuple[Vectors, Vectors],
) -> None:
    base, queries = large_collection
    ids = np.arange(base.shape[0], dtype=np.int64) * 7 + 3  # (n,)

    def lookup(wanted: Ids) -> Vectors:
        return base[(wanted - 3) // 7]  # (u, d)

    _, truth = VectorIndex.build("flat", 384, base, ids).search(queries, 10)  # (q, 10)
    index = VectorIndex.build("ivfpq", 384, base, ids)
    assert index.params == {"nlist": 512, "m": 48, "nbits": 8, "nprobe": 128}

    _, plain = index.search(queries, 10)
    _, refined = search_refined(index, queries, 10, lookup)
    plain_recall = _recall_at(plain, truth)
    refined_recall = _recall_at(refined, truth)
    print(f"recall@10 without refine {plain_recall:.3f}, with refine {refined_recall:.3f}")
    assert refined_recall >= 0.9
    assert refined_recall > plain_recall + 0.1


def test_refine_rescores_exactly_and_ignores_missing_candidates() -> None:
    vectors = np.eye(4, dtype=np.float32)  # (4, 4): id i is the unit vector e_i
    queries = np.array([[0.1, 0.9, 0.3, 0.0], [0.0, 0.0, 0.0, 1.0]], np.float32)  # (2, 4)
    candidates = np.array([[0, 1, 2, -1], [-1, -1, 3, 0]])  # (2, 4)
    seen: list[Ids] = []

    def lookup(wanted: Ids) -> Vectors:
        seen.append(wanted)
        return vectors[wanted]

    scores, found = refine(queries, candidates, lookup, 3)
    np.testing.assert_array_equal(seen[0], [0, 1, 2, 3])
    np.testing.assert_array_equal(found, [[1, 2, 0], [3, 0, -1]])
    np.testing.assert_allclose(scores[0], [0.9, 0.3, 0.1], rtol=1e-6)
    np.testing.assert_allclose(scores[1, :2], [1.0, 0.0])
    assert np.isneginf(scores[1, 2])


def test_refine_pads_when_k_exceeds_the_candidates() -> None:
    vectors = np.eye(2, dtype=np.float32)  # (2, 2)
    scores, found = refine(vectors, np.array([[0], [1]]), lambda wanted: vectors[wanted], 3)
    assert found.tolist() == [[0, -1, -1], [1, -1, -1]]
    assert scores.shape == (2, 3)
    assert np.isneginf(scores[:, 1:]).all()


def test_refine_without_any_candidate_asks_for_no_vectors() -> None:
    def lookup(wanted: Ids) -> Vectors:
        raise AssertionError("lookup must not be called without candidates")

    _, found = refine(np.ones((1, 3), np.float32), np.full((1, 4), -1), lookup, 2)
    assert found.tolist() == [[-1, -1]]


def test_refine_checks_its_inputs() -> None:
    queries = np.ones((2, 3), np.float32)  # (2, 3)
    with pytest.raises(ValueError, match="candidate_ids must have shape"):
        refine(queries, np.zeros((3, 5), np.int64), lambda w: np.ones((w.size, 3)), 2)
    with pytest.raises(ValueError, match="returned 1 vectors for 2 ids"):
        refine(queries, np.array([[0, 1], [1, 0]]), lambda w: np.ones((1, 3)), 2)
    with pytest.raises(ValueError, match="dimension 2, expected 3"):
        refine(queries, np.array([[0, 1], [1, 0]]), lambda w: np.ones((w.size, 2)), 2)
    with pytest.raises(ValueError, match="k must be a positive integer"):
        refine(queries, np.array([[0, 1], [1, 0]]), lambda w: np.ones((w.size, 3)), 0)


def test_candidate_count_scales_with_k_and_has_a_floor() -> None:
    assert refine_candidates(1) == MIN_REFINE_CANDIDATES
    assert refine_candidates(50) == 500
    # Large collections fetch more: near-ties within the PQ error grow with n.
    assert refine_candidates(10, 400_000) == MIN_REFINE_CANDIDATES
    assert refine_candidates(10, 1_000_000) == 200
    with pytest.raises(ValueError, match="positive integer"):
        refine_candidates(0)


def test_search_refined_on_an_exact_index_is_a_plain_search() -> None:
    vectors = np.eye(3, dtype=np.float32)  # (3, 3)
    index = VectorIndex.build("flat", 3, vectors, [5, 6, 7])

    def lookup(wanted: Ids) -> Vectors:
        raise AssertionError("an exact index needs no refine")

    _, found = search_refined(index, vectors, 1, lookup)
    assert found[:, 0].tolist() == [5, 6, 7]
