"""Hybrid ranking: a convex combination of normalised dense and lexical scores.

Chosen by measurement (bench/retrieval_study.py, results in
bench/results/retrieval_study.json): tuned on the standard library, then
confirmed untouched on twelve validation packages. Reciprocal-rank fusion
ignores how far apart scores are, so an item both sides rank in the middle
beats one that a side ranks first; on code it was not tuned on it gained
+1.8 MRR@10 over dense alone, this rule +4.7.

The cosine is used as it is (both sides' scales are then fixed: cosine in
[-1, 1]); BM25, which has no fixed scale, is divided by the query's best BM25.
An item one side did not return gets that side's lowest returned score when
the side returned a full list (it may have scored just below it), else 0 (it
did not match at all).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

# Weight of the dense side when none is given; the lexical side gets 1 - DENSE_WEIGHT.
# Tuned on the standard library only (0.5 ... 0.9 in steps of 0.1; 0.8 was best). Search
# itself weighs each query as its two candidate lists say (embedstore.retrieval.fusion_rule),
# starting from this weight: bench/results/adaptive_fusion.md.
DENSE_WEIGHT = 0.8


def fuse(
    dense: Sequence[tuple[K, float]],
    lexical: Sequence[tuple[K, float]],
    depth: int,
    dense_weight: float = DENSE_WEIGHT,
) -> list[tuple[K, float]]:
    """Items of both best-first (item, score) lists by the combined score, best first.

    ``depth`` is how many items each side was asked for: a side that returned
    fewer has no item below its last. Ties keep the order in which items were
    first seen (dense first), so the result is deterministic.
    """
    if not 0.0 <= dense_weight <= 1.0:
        raise ValueError(f"dense_weight must be between 0 and 1, got {dense_weight}")
    best_bm25 = lexical[0][1] if lexical else 1.0
    cosine = dict(dense)
    bm25 = {item: score / best_bm25 for item, score in lexical}
    cosine_floor = dense[-1][1] if len(dense) >= depth else 0.0
    bm25_floor = lexical[-1][1] / best_bm25 if len(lexical) >= depth else 0.0
    items = list(dict.fromkeys([i for i, _ in dense] + [i for i, _ in lexical]))
    scores = {
        item: dense_weight * cosine.get(item, cosine_floor)
        + (1 - dense_weight) * bm25.get(item, bm25_floor)
        for item in items
    }
    return sorted(scores.items(), key=lambda kv: -kv[1])
