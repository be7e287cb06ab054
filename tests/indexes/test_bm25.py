"""MaxScore pruning in indexes.bm25 returns exactly the exhaustive ranking, ties included."""

from __future__ import annotations

import random

import numpy as np
import pytest

from embedstore.indexes import bm25

WEIGHTS = (10.0, 2.0, 1.0)


def corpus(seed: int) -> list[tuple[int, tuple[str, str, str]]]:
    """Documents over a Zipf-like vocabulary, every tenth one a copy of another (exact ties)."""
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(300)]
    weights = [1 / (i + 1) for i in range(len(words))]
    docs: list[tuple[str, str, str]] = []
    for i in range(2000):
        if i % 10 == 9:
            docs.append(docs[rng.randrange(len(docs))])
            continue
        name = " ".join(rng.choices(words, weights, k=rng.randint(0, 2)))
        owner = " ".join(rng.choices(words, weights, k=rng.randint(0, 1)))
        text = " ".join(rng.choices(words, weights, k=rng.randint(1, 60)))
        docs.append((name, owner, text))
    return [(3 * i + 1, doc) for i, doc in enumerate(docs)]  # ids ascend, with gaps


def exhaustive(segment: bm25.Segment, idfs: list[tuple[str, float]], stats: bm25.Stats,
               k: int, allowed: np.ndarray | None) -> list[tuple[int, float]]:
    rows = np.arange(segment.unit_ids.size)
    values = bm25._full_scores(segment, idfs, stats, rows)
    keep = values > 0 if allowed is None else (values > 0) & allowed
    order = sorted(np.flatnonzero(keep), key=lambda r: (-values[r], segment.unit_ids[r]))[:k]
    return [(int(segment.unit_ids[r]), float(values[r])) for r in order]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pruned_top_k_equals_the_exhaustive_ranking(seed: int) -> None:
    docs = corpus(seed)
    segment = bm25.build(docs, WEIGHTS)
    stats = bm25.Stats(segment.unit_ids.size, bm25.tokens(segment))
    rng = random.Random(100 + seed)
    allowed = np.array([rng.random() < 0.5 for _ in docs])
    checked = 0
    for _ in range(40):
        terms = list(dict.fromkeys(f"w{rng.choice([0, 1, 2, 5, 40, 120, 299, 999])}"
                                   for _ in range(rng.randint(1, 6))))
        idfs = [(t, stats.idf(bm25.document_frequency(segment, t))) for t in terms]
        for k in (1, 10, 100):
            for mask in (None, allowed):
                assert bm25.top(segment, idfs, stats, k, mask) == exhaustive(
                    segment, idfs, stats, k, mask), (terms, k)
                checked += 1
    assert checked == 240


def test_a_common_term_in_over_half_the_rows_gets_fts5s_floor() -> None:
    stats = bm25.Stats(rows=10, tokens=100)
    assert stats.idf(9) == bm25.MIN_IDF
    assert stats.idf(1) == pytest.approx(np.log(9.5 / 1.5))


def test_unit_ids_must_ascend() -> None:
    with pytest.raises(ValueError, match="ascend"):
        bm25.build([(2, ("a", "", "b")), (1, ("c", "", "d"))], WEIGHTS)
