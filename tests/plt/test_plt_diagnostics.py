"""Per-loop diagnostics: what each statistic must be on cases whose answer is known."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from embedstore.encoders.plt.diagnostics import SAMPLE_TEXTS, diagnose, effective_rank
from embedstore.encoders.plt.embedder import PLTEmbedder
from tests.plt.tiny import tiny_config


def test_effective_rank_counts_the_directions_used() -> None:
    assert effective_rank(torch.eye(5)) == pytest.approx(5.0)
    assert effective_rank(torch.ones(7, 3)) == pytest.approx(1.0)


def test_diagnose_reports_every_loop_and_the_cache_sizes(tokenizer: Any) -> None:
    torch.manual_seed(0)
    embedder = PLTEmbedder(tiny_config(vocab_size=len(tokenizer), loops=3, window=3))
    report = diagnose(embedder.eval(), tokenizer, SAMPLE_TEXTS, seq_len=100, batch_size=3)
    assert [loop.loop for loop in report.loops] == [1, 2, 3]
    first, *later = report.loops
    assert (first.offset_cost, first.step_size, first.gate_mean) == (None, None, None)
    for loop in later:
        assert loop.gate_mean == pytest.approx(0.5)  # zero-initialised gates
        assert loop.offset_cost is not None and loop.offset_cost > 0
        assert loop.step_size is not None and loop.step_size > 0
    assert all(1 <= loop.effective_rank <= len(SAMPLE_TEXTS) for loop in report.loops)
    per_token = 2 * 2 * 2 * 8 * 4  # layers, K and V, kv heads, head dim, fp32 bytes
    assert report.kv_cache_bytes == per_token * (100 + 2 * 4)
    assert report.sequential_kv_bytes == per_token * 100 * 3
