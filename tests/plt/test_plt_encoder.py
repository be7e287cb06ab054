"""A PLT folder as an embedstore Encoder: round trip, padding, overrides, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from embedstore.encoders.plt.embedder import PLTEmbedder
from embedstore.encoders.plt.encoder import PLTEncoder
from embedstore.encoders.plt.folder import load_folder, save_folder
from embedstore.encoders.registry import load_encoder
from embedstore.errors import EncoderLoadError
from tests.plt.tiny import tiny_config

TEXTS = ["def parse config", "close the file cache", "return", "open file", "class cache def"]


def test_save_then_load_gives_identical_embeddings(tmp_path: Path, tokenizer: Any) -> None:
    torch.manual_seed(0)
    config = tiny_config(vocab_size=len(tokenizer), proj_dim=24, lm_head=True,
                         tie_word_embeddings=True)
    embedder = PLTEmbedder(config).eval()
    before = PLTEncoder(embedder, tokenizer, name="in-memory", device="cpu").encode(TEXTS)
    save_folder(embedder, tokenizer, tmp_path / "plt")
    after = PLTEncoder.from_folder(tmp_path / "plt", device="cpu")
    np.testing.assert_array_equal(after.encode(TEXTS), before)
    assert (after.dim, after.max_tokens, after.pooling, after.loops) == (24, 32, "last", 2)
    assert after.revision is not None and after.revision.startswith("sha256:")
    reloaded, _ = load_folder(tmp_path / "plt")
    assert reloaded.backbone.lm_head is not None
    assert reloaded.backbone.lm_head.weight is reloaded.backbone.tok_emb.weight


def test_batches_with_left_padding_equal_one_text_at_a_time(plt_folder: Path) -> None:
    encoder = PLTEncoder.from_folder(plt_folder, device="cpu")
    together = encoder.encode(TEXTS, batch_size=5)
    alone = np.vstack([encoder.encode([text]) for text in TEXTS])
    np.testing.assert_allclose(together, alone, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)


def test_counted_tokens_include_the_end_token(plt_folder: Path) -> None:
    encoder = PLTEncoder.from_folder(plt_folder, device="cpu")
    assert encoder.count_tokens(["open file"]) == [4]  # [CLS] open file [SEP]


@pytest.mark.parametrize("pooling", ["weighted_mean", "mean"])
def test_other_pooling_is_allowed_with_a_warning(plt_folder: Path, pooling: str) -> None:
    with pytest.warns(UserWarning, match="recommended 'last'"):
        encoder = PLTEncoder.from_folder(plt_folder, pooling=pooling, device="cpu")
    assert encoder.pooling == pooling
    default = PLTEncoder.from_folder(plt_folder, device="cpu")
    assert not np.allclose(encoder.encode(TEXTS), default.encode(TEXTS), atol=1e-4)


def test_other_loops_than_trained_are_warned_about(plt_folder: Path) -> None:
    with pytest.warns(UserWarning, match="trained with 2 loops; running 3"):
        encoder = PLTEncoder.from_folder(plt_folder, loops=3, device="cpu")
    assert encoder.loops == 3
    PLTEncoder.from_folder(plt_folder, loops=2, device="cpu")  # the trained loops: no warning


def test_plt_specs_load_through_the_registry(plt_folder: Path, plt_family: None) -> None:
    encoder = load_encoder(f"plt:{plt_folder}")
    assert encoder.name == f"plt:{plt_folder}" and encoder.dim == 24
    with pytest.warns(UserWarning, match="recommended .last."):
        assert load_encoder(f"plt:{plt_folder}", "mean").pooling == "mean"


def test_a_folder_that_is_not_a_plt_is_a_load_error(plt_folder: Path, tmp_path: Path) -> None:
    with pytest.raises(EncoderLoadError, match="does not exist"):
        PLTEncoder.from_folder(tmp_path / "nowhere")
    (plt_folder / "model.safetensors").rename(tmp_path / "weights")
    with pytest.raises(EncoderLoadError, match=r"model\.safetensors missing"):
        PLTEncoder.from_folder(plt_folder)
    (tmp_path / "weights").rename(plt_folder / "model.safetensors")
    config = json.loads((plt_folder / "config.json").read_text())
    (plt_folder / "config.json").write_text(json.dumps({**config, "position": "xpos"}))
    with pytest.raises(EncoderLoadError, match=r"not a valid PLT config.*valid: rope"):
        PLTEncoder.from_folder(plt_folder)
    (plt_folder / "config.json").write_text(json.dumps({**config, "d_model": 64}))
    with pytest.raises(EncoderLoadError, match=r"does not fit its config\.json"):
        PLTEncoder.from_folder(plt_folder)


@pytest.mark.slow
def test_the_family_module_does_not_import_the_model() -> None:
    code = (
        "import sys, embedstore.encoders.plt.family; "
        "print('embedstore.encoders.plt.model' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "False", result.stderr
