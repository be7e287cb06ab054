"""The shipped code-tuned default: the stock weights plus this package's adapter (issue 20)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest
import torch

from embedstore.encoders.adapter import merge_adapter, save_adapter
from embedstore.encoders.registry import (
    CODE_ENCODER,
    DEFAULT_ENCODER,
    STOCK_ENCODER,
    load_encoder,
    model_source,
)
from embedstore.errors import EncoderLoadError, EncoderMismatchError
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.store.store import Store

CODE = [
    "def read_config(path):\n    with open(path) as f:\n        return json.load(f)",
    "class LRUCache:\n    def get(self, key): ...",
    "Return the user's home directory.",
]


def test_the_default_is_the_shipped_adapter_named_by_its_weights() -> None:
    files = model_source(DEFAULT_ENCODER)
    assert files.adapter is not None
    digest = hashlib.sha256((files.adapter / "adapter.safetensors").read_bytes()).hexdigest()
    assert f"{CODE_ENCODER}@{digest[:8]}" == DEFAULT_ENCODER
    # At most 5 MB in git, with its model card beside it.
    assert (files.adapter / "adapter.safetensors").stat().st_size <= 5 * 2**20
    assert "## Training data" in (files.adapter / "README.md").read_text()


@pytest.mark.slow
def test_the_default_loads_offline_and_differs_from_the_stock_model() -> None:
    default, stock = load_encoder(None), load_encoder("all-MiniLM-L6-v2")
    assert (default.name, stock.name) == (DEFAULT_ENCODER, STOCK_ENCODER)
    assert default.revision is not None and DEFAULT_ENCODER in default.revision
    assert (default.dim, default.max_tokens, default.pooling) == (stock.dim, stock.max_tokens,
                                                                 stock.pooling)
    ours, theirs = default.encode(CODE), stock.encode(CODE)
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-4)
    cosines = np.sum(ours * theirs, axis=1)
    # A change that matters, to a model that is still the same model.
    assert cosines.max() < 0.995 and cosines.min() > 0.5


@pytest.mark.slow
def test_a_collection_keeps_the_encoder_it_was_built_with(tmp_path: Path) -> None:
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "a.py").write_text("def parse(text):\n    return text.split()\n")
    store = Store(tmp_path / "store")
    index_folder(store, tmp_path / "repo", IndexOptions(name="r", encoder="all-MiniLM-L6-v2"))
    index_folder(store, tmp_path / "repo", IndexOptions(name="r"))  # no --encoder: its own
    assert store.open("r").manifest.encoder == STOCK_ENCODER
    with pytest.raises(EncoderMismatchError, match="--rebuild"):
        index_folder(store, tmp_path / "repo", IndexOptions(name="r", encoder=DEFAULT_ENCODER))


def test_an_adapter_this_install_does_not_ship_is_refused() -> None:
    with pytest.raises(EncoderLoadError, match="--rebuild"):
        load_encoder(f"{CODE_ENCODER}@00000000")


def test_merging_adds_the_low_rank_product_and_the_whole_changes(tmp_path: Path) -> None:
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.LayerNorm(3))
    before = {k: v.clone() for k, v in model.state_dict().items()}
    a, b, shift = torch.randn(2, 4), torch.randn(3, 2), torch.randn(3)
    save_adapter({"0.lora_A": a, "0.lora_B": b, "1.bias.delta": shift}, tmp_path,
                 base="tiny", rank=2, alpha=4)
    assert merge_adapter(model, tmp_path) == 1
    torch.testing.assert_close(model[0].weight, before["0.weight"] + 2 * b @ a)
    torch.testing.assert_close(model[1].bias, before["1.bias"] + shift)
    torch.testing.assert_close(model[0].bias, before["0.bias"])


def test_an_adapter_for_another_model_changes_nothing(tmp_path: Path) -> None:
    model = torch.nn.Sequential(torch.nn.Linear(4, 3))
    before = model[0].weight.clone()
    save_adapter({"0.lora_A": torch.ones(2, 4), "0.lora_B": torch.ones(3, 2),
                  "5.bias.delta": torch.ones(3)}, tmp_path, base="other", rank=2, alpha=2)
    with pytest.raises(EncoderLoadError, match=r"5\.bias"):
        merge_adapter(model, tmp_path)
    torch.testing.assert_close(model[0].weight, before)
