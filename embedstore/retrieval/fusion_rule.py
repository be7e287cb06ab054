"""The dense weight of hybrid fusion, per query, from what the two candidate lists say.

One weight for every query trusts BM25 as much where the query's words are
everywhere in the code as where they name one definition. The two lists
already say which case a query is: a side whose first result stands clear of
the next is sure of it; the lists agreeing at the top make either trustworthy;
BM25 per query term is high when the query's words are rare in the
collection. A logistic function of those signals gives the weight, between
``LOWEST`` and ``HIGHEST``. Its numbers were fitted on the standard library and
training repositories only, each language weighing the same
(``bench/adaptive_fusion.py fit``: bench/results/adaptive_fusion_fit.md), never on
the validation packages, which confirm it (bench/results/adaptive_fusion.md).

Only arithmetic on the lists hybrid search fetches anyway: no index is read.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

from embedstore.lexical import query_terms
from embedstore.retrieval.fusion import DENSE_WEIGHT
from embedstore.retrieval.tests_last import MIN_WORDS

# The top this many of each list are compared (how far apart, how much they share).
TOP = 10
LOWEST, HIGHEST = 0.5, 1.0
# Per signal (in SIGNALS' order): (mean, standard deviation) on the training queries,
# and the logistic model's coefficient of the signal so standardised.
SIGNALS = ("dense_gap", "dense_spread", "lexical_gap", "lexical_spread", "overlap",
           "bm25_per_term", "terms")
CENTRE = (0.03966, 0.1253, 0.1426, 0.4361, 0.3516, 1.366, 1.946)
SCALE = (0.04446, 0.06969, 0.1366, 0.1658, 0.2102, 0.3242, 0.3534)
COEFFICIENTS = (-0.07524, 0.4197, -0.314, 0.2378, -0.4536, -0.1367, -0.1766)
INTERCEPT = 0.7648


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


def query_weight(values: Sequence[float], query: str) -> float:
    """The dense weight for ``query``, whose lists give these :func:`signals`.

    The rule was learned from sentences (every training query is a doc comment's); a
    query of fewer words is a name or a keyword search, which it never saw: such a query
    keeps the fixed weight (`py_encode_basestring_ascii` got 0.96 from the rule, and its
    definition, first in BM25, fell below its aliases)."""
    return dense_weight(values) if len(query.split()) >= MIN_WORDS else DENSE_WEIGHT


def weight_for(
    dense: Sequence[tuple[Hashable, float]], lexical: Sequence[tuple[Hashable, float]], query: str,
) -> float:
    """The dense weight for fusing ``query``'s two best-first candidate lists."""
    return query_weight(signals(dense, lexical, len(set(query_terms(query)))), query)
