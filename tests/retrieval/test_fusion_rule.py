from __future__ import annotations

import math

import pytest

from embedstore.retrieval import fusion_rule
from embedstore.retrieval.fusion import DENSE_WEIGHT
from embedstore.retrieval.fusion_rule import dense_weight, query_weight, signals


def test_signals_read_gaps_overlap_and_bm25_per_term_off_the_two_lists() -> None:
    dense = [(i, 0.9 - 0.05 * i) for i in range(12)]  # 0.9, 0.85, ... 0.35
    lexical = [(i + 8, 10.0 - i) for i in range(12)]  # 10, 9, ... ; shares ids 8..9 of top 10
    got = dict(zip(fusion_rule.SIGNALS, signals(dense, lexical, terms=4), strict=True))
    assert got["dense_gap"] == pytest.approx(0.05)
    assert got["dense_spread"] == pytest.approx(0.45)
    assert got["lexical_gap"] == pytest.approx(0.1)
    assert got["lexical_spread"] == pytest.approx(0.9)
    assert got["overlap"] == pytest.approx(0.2)
    assert got["bm25_per_term"] == pytest.approx(math.log1p(10.0 / 4))
    assert got["terms"] == pytest.approx(math.log1p(4))


def test_a_side_with_one_result_or_none_gives_finite_signals_and_a_weight_in_range() -> None:
    for dense, lexical in [([], []), ([("a", 0.3)], []), ([], [("a", 2.0)])]:
        values = signals(dense, lexical, terms=0)
        assert all(math.isfinite(v) for v in values)
        assert fusion_rule.LOWEST <= dense_weight(values) <= fusion_rule.HIGHEST


def test_the_weight_stays_in_range_for_extreme_signals() -> None:
    for value in (-1e6, 0.0, 1e6):
        weight = dense_weight([value] * len(fusion_rule.SIGNALS))
        assert fusion_rule.LOWEST <= weight <= fusion_rule.HIGHEST


def _weight(dense_scores: list[float], bm25_scores: list[float]) -> float:
    dense = [(f"d{i}", s) for i, s in enumerate(dense_scores)]
    lexical = [(f"l{i}", s) for i, s in enumerate(bm25_scores)]
    return dense_weight(signals(dense, lexical, terms=5))


def test_a_peaked_dense_list_is_trusted_more_and_a_peaked_bm25_list_less() -> None:
    flat_bm25 = [10.0 - 0.1 * i for i in range(12)]
    peaked_dense = [0.8] + [0.5 - 0.01 * i for i in range(11)]
    flat_dense = [0.6 - 0.002 * i for i in range(12)]
    assert _weight(peaked_dense, flat_bm25) > _weight(flat_dense, flat_bm25)
    peaked_bm25 = [20.0] + [8.0 - 0.1 * i for i in range(11)]
    assert _weight(flat_dense, peaked_bm25) < _weight(flat_dense, flat_bm25)


def test_a_name_query_keeps_the_fixed_weight_and_a_sentence_gets_the_rules() -> None:
    dense = [(i, 0.9 - 0.05 * i) for i in range(12)]
    lexical = [(i, 20.0 - i) for i in range(12)]
    values = signals(dense, lexical, terms=4)
    assert dense_weight(values) != pytest.approx(DENSE_WEIGHT)
    assert query_weight(values, "py_encode_basestring_ascii") == DENSE_WEIGHT
    assert query_weight(values, "encode a string as ascii") == dense_weight(values)
