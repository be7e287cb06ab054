"""Reciprocal-rank fusion of ranked lists."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)
RRF_K = 60


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[K]], k: int = RRF_K, weights: Sequence[float] | None = None
) -> list[tuple[K, float]]:
    """Items of several best-first rankings, by sum of weight / (k + rank), best first.

    Ranks start at 1; weights default to 1 per ranking. Ties keep the order in
    which items were first seen, so the result is deterministic.
    """
    if k < 0:
        raise ValueError(f"the RRF constant k must be >= 0, got {k}")
    factors = list(weights) if weights is not None else [1.0] * len(rankings)
    if len(factors) != len(rankings):
        raise ValueError(f"{len(factors)} weights for {len(rankings)} rankings")
    scores: dict[K, float] = {}
    for ranking, weight in zip(rankings, factors, strict=True):
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda kv: -kv[1])


def fuse(
    dense: Sequence[tuple[K, float]], lexical: Sequence[tuple[K, float]]
) -> list[tuple[K, float]]:
    """Hybrid ranking of the two sides' (item, score) lists, best first."""
    return reciprocal_rank_fusion([[i for i, _ in dense], [i for i, _ in lexical]])
