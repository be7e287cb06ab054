from __future__ import annotations

import pytest

from embedstore.fusion import reciprocal_rank_fusion


def test_items_found_by_both_sides_win() -> None:
    dense = ["a", "b", "c"]
    lexical = ["c", "d", "a"]
    fused = reciprocal_rank_fusion([dense, lexical], k=60)
    assert [item for item, _ in fused] == ["a", "c", "b", "d"]
    scores = dict(fused)
    assert scores["a"] == pytest.approx(1 / 61 + 1 / 63)
    assert scores["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert scores["b"] == pytest.approx(1 / 62)


def test_small_k_rewards_top_ranks_more() -> None:
    fused = reciprocal_rank_fusion([["x", "y"], ["y", "z"]], k=0)
    assert fused[0] == ("y", pytest.approx(1 / 2 + 1))


def test_negative_k_is_refused() -> None:
    with pytest.raises(ValueError, match=">= 0"):
        reciprocal_rank_fusion([["a"]], k=-1)


def test_weights_scale_each_ranking() -> None:
    fused = dict(reciprocal_rank_fusion([["a"], ["b"]], k=60, weights=(1.0, 2.0)))
    assert fused["b"] == pytest.approx(2 / 61) and fused["a"] == pytest.approx(1 / 61)
    with pytest.raises(ValueError, match="weights"):
        reciprocal_rank_fusion([["a"]], weights=(1.0, 2.0))
