"""Ranking metrics for queries with one relevant item each."""

from __future__ import annotations

import math
from collections.abc import Sequence

CUTOFF = 10


def rank_metrics(ranks: Sequence[int | None], cutoff: int = CUTOFF) -> dict[str, float]:
    """MRR@cutoff, Recall@1, Recall@cutoff and nDCG@cutoff, as percentages.

    ``ranks`` holds, per query, the 1-based rank of its relevant item, or None
    when it was not retrieved. With a single relevant item the ideal DCG is 1,
    so nDCG is 1 / log2(rank + 1).
    """
    if not ranks:
        raise ValueError("no queries to score")
    n = len(ranks)
    hits = [r for r in ranks if r is not None and r <= cutoff]
    return {
        f"mrr@{cutoff}": 100 * sum(1 / r for r in hits) / n,
        "recall@1": 100 * sum(1 for r in hits if r == 1) / n,
        f"recall@{cutoff}": 100 * len(hits) / n,
        f"ndcg@{cutoff}": 100 * sum(1 / math.log2(r + 1) for r in hits) / n,
    }
