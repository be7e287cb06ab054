"""Distillation: the loss falls on a tiny corpus; checkpoints resume; schedule and losses."""

from __future__ import annotations

import dataclasses
import itertools
import json
from pathlib import Path

import pytest
import torch

from embedstore.encoders.plt.checkpoint import CHECKPOINT_FILE
from embedstore.encoders.plt.encoder import PLTEncoder
from embedstore.encoders.plt.losses import contrastive_loss, distill_loss
from embedstore.errors import UserInputError
from embedstore.ingest.indexer import embedding_text
from embedstore.tuning.plt_data import build_training_corpus
from embedstore.tuning.plt_train import TRAIN_DIR, TrainConfig, lr_factor, train

FUNCTIONS = [
    ("open_file", "Open the file at the given path for reading", "return open(path)"),
    ("close_cache", "Close the cache and release every file handle", "cache.close()"),
    ("parse_config", "Parse the config text into a dictionary of options", "return dict(x)"),
    ("class_name", "Return the name of the class of the given object", "return type(o)"),
    ("def_line", "Find the line where the function definition starts", "return lines[0]"),
    ("the_return", "Return the value that the call returned to the caller", "return value"),
]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    root.mkdir()
    for index, (name, doc, body) in enumerate(FUNCTIONS):
        (root / f"m{index}.py").write_text(
            f'def {name}(path, cache, x, o, lines, value):\n    """{doc}."""\n    {body}\n'
        )
    (root / "README.md").write_text("# Tiny\n\nOpen, parse and close config files.\n")
    return root


def tiny_train_config(teacher: Path, **overrides: object) -> TrainConfig:
    values: dict[str, object] = {
        "teacher": str(teacher), "loops": 2, "d_model": 32, "n_layers": 1, "n_heads": 4,
        "n_kv_heads": 2, "window": 4, "max_tokens": 48, "steps": 30, "batch_size": 4,
        "pair_batch_size": 4, "lr": 3e-3, "warmup_steps": 3, "checkpoint_every": 10,
        "contrastive_weight": 0.5,
    }
    return TrainConfig(**{**values, **overrides})  # type: ignore[arg-type]


@pytest.mark.slow  # seconds of importing sentence-transformers for the teacher; training takes ~1 s
def test_thirty_steps_on_a_tiny_corpus_lower_the_loss(
    corpus: Path, tiny_teacher: Path, tmp_path: Path
) -> None:
    out = tmp_path / "model"
    result = train(corpus, out, tiny_train_config(tiny_teacher), text_of=embedding_text)
    losses = [step.loss for step in result.history]
    assert len(losses) == 30 and result.resumed_from == 0
    assert sum(losses[-5:]) / 5 < 0.7 * sum(losses[:5]) / 5, losses
    assert all(step.contrastive > 0 for step in result.history)  # pairs were mined
    encoder = PLTEncoder.from_folder(out, device="cpu")
    assert encoder.dim == 32 and encoder.loops == 2  # the teacher's dimension, trained loops
    assert json.loads((out / "training.json").read_text())["pairs"] == len(FUNCTIONS)

    # A longer run resumes from the checkpoint instead of starting over.
    longer = train(corpus, out, tiny_train_config(tiny_teacher, steps=35), text_of=embedding_text)
    assert longer.resumed_from == 30 and len(longer.history) == 35
    assert longer.history[:30] == result.history
    with pytest.raises(UserInputError, match="loops: 2 -> 3"):
        train(corpus, out, tiny_train_config(tiny_teacher, loops=3), text_of=embedding_text)
    assert (out / TRAIN_DIR / CHECKPOINT_FILE).is_file()


def test_the_corpus_has_chunks_and_docstring_code_pairs(corpus: Path) -> None:
    def count_tokens(texts: list[str]) -> list[int]:
        return [len(t.split()) + 2 for t in texts]

    data = build_training_corpus(
        corpus, count_tokens=count_tokens, max_tokens=64, text_of=embedding_text
    )
    assert len(data.pairs) == len(FUNCTIONS) and data.chunk_count >= len(FUNCTIONS)
    query, code = data.pairs[0]
    assert data.texts[query] == "Open the file at the given path for reading"
    assert data.texts[code].startswith("m0.py\ndef open_file(")
    assert "Open the file" not in data.texts[code]  # the answer's own words are removed


def test_learning_rate_warms_up_then_decays_to_the_floor() -> None:
    factors = [lr_factor(step, 10, 100, 0.1) for step in range(101)]
    assert factors[0] == pytest.approx(0.1) and factors[9] == pytest.approx(1.0)
    assert all(a >= b for a, b in itertools.pairwise(factors[9:]))
    assert factors[100] == pytest.approx(0.1)


def test_losses_are_zero_where_they_should_be() -> None:
    vectors = torch.nn.functional.normalize(torch.randn(6, 8), dim=-1)
    assert distill_loss(vectors, vectors, "cosine").item() == pytest.approx(0.0, abs=1e-6)
    assert distill_loss(vectors, vectors, "mse").item() == pytest.approx(0.0, abs=1e-6)
    with pytest.raises(ValueError, match="valid: cosine, mse"):
        distill_loss(vectors, vectors, "kl")
    matched = contrastive_loss(vectors * 10, vectors, temperature=0.05)
    shuffled = contrastive_loss(vectors.roll(1, 0), vectors, temperature=0.05)
    assert matched < shuffled


def test_bad_training_options_fail_before_any_work() -> None:
    with pytest.raises(ValueError, match="valid: rope, alibi"):
        TrainConfig(position="relative")
    with pytest.raises(ValueError, match="steps must be positive"):
        TrainConfig(steps=0)
    assert dataclasses.replace(TrainConfig(), loops=3).model_config(
        vocab_size=10, proj_dim=None
    ).ffn_size == 256 * 8 // 3
