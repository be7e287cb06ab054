"""A fine-tune's change kept as an adapter: what a rank keeps, and that it merges back."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from embedstore.encoders.adapter import merge_adapter, save_adapter
from embedstore.tuning.low_rank import low_rank_delta
from tests.tiny_model import build_tiny_model


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, torch.nn.Module]:
    """A tiny model's folder, and the same model moved as a fine-tune moves it."""
    from sentence_transformers import SentenceTransformer

    folder = build_tiny_model(tmp_path_factory.mktemp("tiny"), pooling="mean")
    tuned = SentenceTransformer(str(folder), device="cpu")
    torch.manual_seed(1)
    with torch.no_grad():
        for param in tuned.parameters():
            param += 0.01 * torch.randn_like(param)
    return folder, tuned


def merged(folder: Path, adapter: Path) -> torch.nn.Module:
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(folder), device="cpu")
    merge_adapter(model[0], adapter)
    return model


def gap(a: torch.nn.Module, b: torch.nn.Module, name: str) -> float:
    with torch.no_grad():
        return float((dict(a.named_parameters())[name] - dict(b.named_parameters())[name]).norm())


def test_full_rank_gives_the_fine_tune_back_and_a_low_rank_comes_near(
    pair: tuple[Path, torch.nn.Module], tmp_path: Path
) -> None:
    from sentence_transformers import SentenceTransformer

    folder, tuned = pair
    base = SentenceTransformer(str(folder), device="cpu")
    layer = "model.encoder.layer.0.intermediate.dense.weight"  # (64, 32): full rank is 32
    for rank in (32, 4):
        save_adapter(low_rank_delta(base[0], tuned[0], rank), tmp_path / str(rank),
                     base="tiny", rank=rank, alpha=rank)
    full, low = merged(folder, tmp_path / "32"), merged(folder, tmp_path / "4")
    # fp16 storage rounds, nothing else is lost at full rank.
    assert gap(full[0], tuned[0], layer) < 1e-3
    assert 1e-3 < gap(low[0], tuned[0], layer) < gap(base[0], tuned[0], layer)
    # Vectors (biases, LayerNorm) come whole at any rank; the token table stays the base's.
    assert gap(low[0], tuned[0], "model.encoder.layer.1.output.LayerNorm.weight") < 1e-3
    assert gap(low[0], base[0], "model.embeddings.word_embeddings.weight") == 0.0
