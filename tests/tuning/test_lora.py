"""LoRA training for the shipped adapter: it resumes exactly, and its factors merge back."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from embedstore.tuning.lora import (
    WEIGHTS,
    LoraSettings,
    add_lora,
    export_lora,
    merge_lora,
    train_lora,
)
from tests.tiny_model import WORDS, build_tiny_model

ROWS = {
    "anchor": [f"{a} {b}" for a in WORDS for b in WORDS[:2]],
    "positive": [f"def {a} {b} return" for a in WORDS for b in WORDS[:2]],
    "negative": [f"class {b} {a}" for a in WORDS for b in WORDS[:2]],
}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny"), pooling="mean")


def run(model_dir: Path, out: Path, *, stop_after: int | None = None) -> list[float]:
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(model_dir), device="cpu")
    settings = LoraSettings(out=out, steps=4, batch_size=4, learning_rate=1e-2, rank=2,
                            alpha=4, save_steps=2)
    add_lora(model, settings)
    losses: list[float] = []

    def step(number: int, loss: float) -> None:
        losses.append(loss)
        if number == stop_after:
            raise KeyboardInterrupt  # a kill right after the step-2 checkpoint

    try:
        train_lora(model, ROWS, settings, on_step=step)
    except KeyboardInterrupt:
        return losses
    export_lora(model, settings, base="tiny")
    return losses


def test_a_killed_run_resumes_where_it_stopped(tiny: Path, tmp_path: Path) -> None:
    whole = run(tiny, tmp_path / "whole")
    first = run(tiny, tmp_path / "killed", stop_after=2)
    rest = run(tiny, tmp_path / "killed")
    assert len(first) == 2 and len(rest) == 2
    np.testing.assert_allclose(first + rest, whole, rtol=1e-5)
    killed, whole_run = ((tmp_path / run / WEIGHTS).read_bytes() for run in ("killed", "whole"))
    assert killed == whole_run


def test_exported_factors_merge_into_the_plain_model(tiny: Path, tmp_path: Path) -> None:
    from sentence_transformers import SentenceTransformer

    run(tiny, tmp_path / "adapter")
    plain = SentenceTransformer(str(tiny), device="cpu")
    before = plain.encode(ROWS["anchor"])
    assert merge_lora(plain[0], tmp_path / "adapter") == 12  # six layers in each of 2 blocks
    after = plain.encode(ROWS["anchor"])
    assert not np.allclose(before, after, atol=1e-3)
