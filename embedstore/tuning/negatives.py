"""Hard negatives: what the base model confuses with each positive, or a sibling."""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from embedstore.encoders.base import Encoder
from embedstore.tuning.pairs import Pair


def hard_negatives(pairs: Sequence[Pair], encoder: Encoder, *, seed: int) -> list[str]:
    """One negative per pair: the other pair's positive the base model ranks highest
    for this query, unless that is not a different text; else a sibling of the same file.

    Confusions are what the base model gets wrong, so they teach the most;
    siblings share the file's vocabulary, so lexical overlap alone cannot
    tell them apart.
    """
    rng = random.Random(seed)
    positives = encoder.encode([p.positive for p in pairs])  # (n, d)
    queries = encoder.encode([p.query for p in pairs], kind="query")  # (n, d)
    scores = queries @ positives.T  # (n, n)
    np.fill_diagonal(scores, -np.inf)
    negatives = []
    for row, pair in zip(scores, pairs, strict=True):
        best = pairs[int(np.argmax(row))].positive if len(pairs) > 1 else ""
        if best and best != pair.positive:
            negatives.append(best)
        elif pair.siblings:
            negatives.append(rng.choice(pair.siblings))
        else:
            negatives.append(best)
    return negatives
