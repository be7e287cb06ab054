"""The dense weight of hybrid fusion, per query, from what the two candidate lists say.

One weight for every query trusts BM25 as much where the query's words are
everywhere in the code as where they name one definition. The two lists
already say which case a query is: a side whose first result stands clear of
the next is sure of it; the lists agreeing at the top make either trustworthy;
BM25 per query term is high when the query's words are rare in the
collection. A logistic function of those signals gives the weight, between
``LOWEST`` and ``HIGHEST``. Its numbers were fitted on training repositories
only (``bench/adaptive_fusion.py fit``: bench/results/adaptive_fusion_fit.md),
never on the validation packages, which confirm it
(bench/results/adaptive_fusion.md).

Only arithmetic on the lists hybrid search fetches anyway: no index is read.
Measured, not yet used by search: it gained on Python but cost Go about a point
against the fixed weight (bench/results/adaptive_fusion.md). The hook would be
``fuse(dense, lexical, fetch, dense_weight(signals(dense, lexical, terms)))``
with ``terms`` the query's distinct ``lexical.query_terms``.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

# The top this many of each list are compared (how far apart, how much they share).
TOP = 10
LOWEST, HIGHEST = 0.5, 1.0
# Per signal (in SIGNALS' order): (mean, standard deviation) on the training queries,
# and the logistic model's coefficient of the signal so standardised.
SIGNALS = ("dense_gap", "dense_spread", "lexical_gap", "lexical_spread", "overlap",
           "bm25_per_term", "terms")
CENTRE = (0.03276, 0.1062, 0.1604, 0.4977, 0.3309, 1.204, 1.843)
SCALE = (0.0341, 0.05758, 0.1566, 0.1957, 0.182, 0.2485, 0.3294)
COEFFICIENTS = (0.1015, 0.3426, -0.4532, 0.1171, 0.02574, -0.04581, -0.1838)
INTERCEPT = 0.7504


def signals(
    dense: Sequence[tuple[Hashable, float]],
    lexical: Sequence[tuple[Hashable, float]],
    terms: int,
) -> tuple[float, ...]:
    """The signals, in :data:`SIGNALS`' order, of two best-first (item, score) lists
    for a query of ``terms`` distinct lexical terms."""
    cosines = [s for _, s in dense[:TOP]]
    bm25 = [s for _, s in lexical[:TOP]]
    best_bm25 = bm25[0] if bm25 and bm25[0] > 0 else 0.0
    relative = [s / best_bm25 for s in bm25] if best_bm25 else []
    shared = {i for i, _ in dense[:TOP]} & {i for i, _ in lexical[:TOP]}
    return (
        _gap(cosines, 1),
        _gap(cosines, TOP - 1),
        _gap(relative, 1),
        _gap(relative, TOP - 1),
        len(shared) / TOP,
        math.log1p(best_bm25 / max(terms, 1)),
        math.log1p(terms),
    )


def _gap(scores: Sequence[float], below: int) -> float:
    """How far the first score stands above the one ``below`` places down (or the
    last; a list with fewer than two scores stands 1 clear of nothing)."""
    if len(scores) < 2:
        return 1.0 if scores else 0.0
    return scores[0] - scores[min(below, len(scores) - 1)]


def dense_weight(values: Sequence[float]) -> float:
    """The dense side's weight for a query with these :func:`signals`."""
    z = INTERCEPT + sum(
        c * (v - m) / s for c, v, m, s in zip(COEFFICIENTS, values, CENTRE, SCALE, strict=True)
    )
    z = max(-30.0, min(30.0, z))  # the weight has flattened long before; exp stays finite
    return LOWEST + (HIGHEST - LOWEST) / (1.0 + math.exp(-z))

