"""Tiny PLTs and a tiny tokenizer, so that PLT tests run in milliseconds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from embedstore.encoders.plt.config import PLTConfig
from embedstore.encoders.plt.model import PLTModel
from tests.tiny_model import WORDS


def tiny_config(**overrides: Any) -> PLTConfig:
    values: dict[str, Any] = {
        "vocab_size": 64, "d_model": 32, "n_layers": 2, "n_heads": 4, "n_kv_heads": 2,
        "ffn_size": 64, "loops": 2, "window": 3, "max_seq_len": 32,
    }
    return PLTConfig(**{**values, **overrides})


def tiny_model(seed: int = 0, **overrides: Any) -> PLTModel:
    """A random PLT in eval mode whose gates are not all 0.5, so that they matter."""
    torch.manual_seed(seed)
    model = PLTModel(tiny_config(**overrides)).eval()
    for block in model.blocks:
        torch.nn.init.normal_(block.attn.gate_proj.weight, std=0.5)
    return model


def tiny_tokenizer(folder: Path) -> Any:
    """A WordPiece tokenizer over a few code words and the letters: [CLS] ... [SEP]."""
    from transformers import BertTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS, *"abcdefghijklmnopqrstuvwxyz"]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n")
    return BertTokenizerFast(vocab_file=str(folder / "vocab.txt"))
