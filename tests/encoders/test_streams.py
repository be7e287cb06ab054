"""Encoding several batches at once on a CPU (embedstore.encoders.streams)."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest
import torch

import embedstore.encoders
from embedstore.encoders.registry import load_encoder
from embedstore.encoders.streams import ENV, Streams, stream_count


def where_and_threads(batch: int) -> tuple[int, str, int]:
    return batch, threading.current_thread().name, torch.get_num_threads()


def test_stream_count_is_one_per_core_unless_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    assert stream_count(16) == 16
    assert stream_count(0) == 1
    monkeypatch.setenv(ENV, "3")
    assert stream_count(16) == 3
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv(ENV, bad)
        with pytest.raises(ValueError, match="whole number of at least 1"):
            stream_count(2)


def test_batches_run_on_worker_threads_each_with_its_share_of_cores(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ENV, "2")
    before = torch.get_num_threads()
    torch.set_num_threads(4)
    try:
        got = list(Streams("cpu").map(where_and_threads, list(range(8))))
        assert torch.get_num_threads() == 4  # the caller's setting is its own
    finally:
        torch.set_num_threads(before)
    assert [batch for batch, _, _ in got] == list(range(8))  # results in order
    assert {name.split("_")[0] for _, name, _ in got} == {"embedstore-encode"}
    assert {threads for _, _, threads in got} == {2}  # 4 cores / 2 streams


@pytest.mark.parametrize(("device", "streams", "batches"), [
    ("cuda", "2", 8),  # a GPU runs one batch at a time
    ("cpu", "1", 8),
    ("cpu", "2", 1),  # one batch: no hop to a worker
])
def test_these_run_in_the_callers_thread(
    monkeypatch: pytest.MonkeyPatch, device: str, streams: str, batches: int
) -> None:
    monkeypatch.setenv(ENV, streams)
    got = list(Streams(device).map(where_and_threads, list(range(batches))))
    assert {name for _, name, _ in got} == {threading.current_thread().name}


def test_real_model_vectors_agree_with_and_without_streams(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    encoder = load_encoder(None)
    source = Path(embedstore.encoders.__file__).parent / "sentence_transformer.py"
    texts = sorted({block for block in source.read_text().split("\n\n") if block.strip()})
    monkeypatch.setenv(ENV, "1")
    alone = encoder.encode(texts, batch_size=2)
    monkeypatch.setenv(ENV, "2")
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        side_by_side = encoder.encode(texts, batch_size=2)
    finally:
        torch.set_num_threads(before)
    assert len(texts) > 20  # several batches, so the workers took part
    # One thread per op instead of two sums in another order: equal to bf16 rounding.
    assert np.sum(alone * side_by_side, axis=1).min() >= 0.9999
    queries = encoder.encode(["parse a configuration file", "start a worker thread"])
    top = np.argsort(-(queries @ alone.T), axis=1)[:, :5]  # (2, 5)
    assert np.array_equal(top, np.argsort(-(queries @ side_by_side.T), axis=1)[:, :5])
