"""Paired bootstrap confidence intervals for a difference in a per-query metric."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

RESAMPLES = 2000


def paired_bootstrap_ci(
    a: Sequence[float], b: Sequence[float], *, seed: int = 0, level: float = 0.95,
    resamples: int = RESAMPLES,
) -> tuple[float, float, float]:
    """(mean(a - b), low, high): the difference and its percentile CI.

    ``a`` and ``b`` hold one value per query (e.g. reciprocal rank) of two
    systems on the same queries; queries are resampled with replacement, the
    pair kept together, so the CI reflects how much the difference depends on
    which queries happened to be drawn.
    """
    if len(a) != len(b) or not len(a):
        raise ValueError(f"need two equally long non-empty lists, got {len(a)} and {len(b)}")
    diff = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)  # (n,)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(diff), size=(resamples, len(diff)))  # (resamples, n)
    means = diff[picks].mean(axis=1)  # (resamples,)
    tail = (1 - level) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return float(diff.mean()), float(low), float(high)


def reciprocal_ranks(ranks: Sequence[int | None], cutoff: int) -> list[float]:
    """Per query 1/rank when the answer is within ``cutoff``, else 0 (MRR@cutoff's terms)."""
    return [1.0 / r if r is not None and r <= cutoff else 0.0 for r in ranks]
