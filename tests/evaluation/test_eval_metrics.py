from __future__ import annotations

import math

import pytest

from embedstore.evaluation.metrics import rank_metrics


def test_metrics_by_hand() -> None:
    # ranks 1, 2, 11 (outside the cutoff) and not found
    got = rank_metrics([1, 2, 11, None])
    assert got["mrr@10"] == pytest.approx(100 * (1 + 1 / 2) / 4)
    assert got["recall@1"] == pytest.approx(25.0)
    assert got["recall@10"] == pytest.approx(50.0)
    assert got["ndcg@10"] == pytest.approx(100 * (1 + 1 / math.log2(3)) / 4)


def test_no_queries_is_an_error() -> None:
    with pytest.raises(ValueError, match="no queries"):
        rank_metrics([])
