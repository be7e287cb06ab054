"""The PLT as a text embedder: tokens -> model -> pooling -> projection.

Normalisation is left to the caller: training compares raw vectors with the
teacher's (MSE) as well as directions (cosine).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch
from torch import nn

from embedstore.chunking.types import TokenCounter
from embedstore.encoders.plt.config import PLTConfig
from embedstore.encoders.plt.model import PLTModel, init_weight
from embedstore.encoders.pooling import Pooling

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase


def token_counter(tokenizer: PreTrainedTokenizerBase) -> TokenCounter:
    """Counts of tokens per text, specials included, as the chunker budgets them."""

    def count_tokens(texts: list[str]) -> list[int]:
        if not texts:
            return []
        encoded = tokenizer(texts, add_special_tokens=True, verbose=False)
        return [len(ids) for ids in encoded["input_ids"]]

    return count_tokens


def token_ids(
    tokenizer: PreTrainedTokenizerBase, texts: Sequence[str], max_tokens: int
) -> list[list[int]]:
    """Each text's ids with the tokenizer's specials ([CLS] ... [SEP]), cut to ``max_tokens``.

    Truncation keeps the end token, which ``last`` pooling reads.
    """
    if not texts:
        return []
    encoded = tokenizer(
        list(texts), add_special_tokens=True, truncation=True, max_length=max_tokens, verbose=False
    )
    return [list(ids) for ids in encoded["input_ids"]]


def pad_left(
    ids: Sequence[Sequence[int]], pad_id: int, device: torch.device | str = "cpu"
) -> tuple[torch.Tensor, torch.Tensor]:
    """Id lists -> (B, T) ids and (B, T) mask, padded on the left.

    Left, because a causal model's last real token then sits at the same
    index in every row.
    """
    longest = max(len(row) for row in ids)
    padded = [[pad_id] * (longest - len(row)) + list(row) for row in ids]
    mask = [[0] * (longest - len(row)) + [1] * len(row) for row in ids]
    return (
        torch.tensor(padded, dtype=torch.long, device=device),  # (B, T)
        torch.tensor(mask, dtype=torch.long, device=device),  # (B, T)
    )


class PLTEmbedder(nn.Module):
    def __init__(self, config: PLTConfig, pooling: str | None = None) -> None:
        super().__init__()
        self.config = config
        self.backbone = PLTModel(config)
        self.pool = Pooling(pooling or config.pooling)
        self.projection = (
            nn.Linear(config.d_model, config.proj_dim, bias=False) if config.proj_dim else None
        )
        if self.projection is not None:
            init_weight(self.projection.weight, config.init)

    def head(self, pooled: torch.Tensor) -> torch.Tensor:
        """(B, d_model) pooled states -> (B, out_dim) vectors."""
        return pooled if self.projection is None else self.projection(pooled)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """(B, T) ids and mask -> (B, out_dim) vectors, not normalised."""
        hidden = self.backbone(input_ids, attention_mask).hidden  # (B, T, D)
        return self.head(self.pool(hidden, attention_mask))
