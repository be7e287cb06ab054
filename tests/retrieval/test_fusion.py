from __future__ import annotations

import pytest

from embedstore.retrieval.fusion import fuse


def test_scores_are_a_convex_combination_of_cosine_and_relative_bm25() -> None:
    dense = [("a", 0.9), ("b", 0.5)]
    lexical = [("b", 8.0), ("c", 2.0)]
    fused = dict(fuse(dense, lexical, depth=10, dense_weight=0.8))
    assert fused["a"] == pytest.approx(0.8 * 0.9 + 0.2 * 0.0)  # lexical list not full: no match
    assert fused["b"] == pytest.approx(0.8 * 0.5 + 0.2 * 1.0)
    assert fused["c"] == pytest.approx(0.8 * 0.0 + 0.2 * 0.25)  # dense list not full


def test_a_full_list_lends_its_lowest_score_to_what_it_missed() -> None:
    dense = [("a", 0.9), ("b", 0.6)]
    lexical = [("c", 4.0), ("a", 2.0)]
    fused = dict(fuse(dense, lexical, depth=2, dense_weight=0.5))
    assert fused["c"] == pytest.approx(0.5 * 0.6 + 0.5 * 1.0)
    assert fused["b"] == pytest.approx(0.5 * 0.6 + 0.5 * 0.5)


def test_one_side_ranking_first_by_a_margin_is_not_buried_by_middling_agreement() -> None:
    # RRF would put "both" (ranked 3rd by each side) above "clear" (1st by dense only).
    dense = [("clear", 0.80), ("x", 0.55), ("both", 0.54)]
    lexical = [("y", 10.0), ("z", 9.0), ("both", 5.0)]
    assert fuse(dense, lexical, depth=3)[0][0] == "clear"


def test_ties_keep_first_seen_order_and_the_weight_is_checked() -> None:
    assert [i for i, _ in fuse([("a", 0.5), ("b", 0.5)], [], depth=5)] == ["a", "b"]
    with pytest.raises(ValueError, match="between 0 and 1"):
        fuse([], [], depth=1, dense_weight=1.5)
