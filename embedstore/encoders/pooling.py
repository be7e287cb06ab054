"""Pooling: turn token states into one vector per text.

Every strategy takes ``token_states`` (B, T, D) and ``attention_mask`` (B, T)
with 1 on real tokens and 0 on padding, on either side.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import torch

PoolingFn = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


def mean_pool(token_states: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """Average of the real tokens only: padding must not pull the mean."""
    mask = attention_mask.unsqueeze(-1).to(token_states.dtype)  # (B, T, 1)
    summed = (token_states * mask).sum(dim=1)  # (B, D)
    counts = mask.sum(dim=1).clamp(min=1e-9)  # (B, 1)
    return summed / counts


def cls_pool(token_states: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """The first real token (the [CLS] of BERT-style models), wherever padding sits."""
    first = first_real_index(attention_mask)  # (B,)
    return token_states[torch.arange(token_states.shape[0]), first]  # (B, D)


def max_pool(token_states: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """Element-wise maximum over real tokens."""
    mask = attention_mask.unsqueeze(-1).bool()  # (B, T, 1)
    masked = token_states.masked_fill(~mask, torch.finfo(token_states.dtype).min)
    return masked.max(dim=1).values  # (B, D)


def last_pool(token_states: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """The last real token: a causal model's only token that has seen the whole text."""
    last = last_real_index(attention_mask)  # (B,)
    return token_states[torch.arange(token_states.shape[0]), last]  # (B, D)


def weighted_mean_pool(token_states: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """Mean with weight 1, 2, 3... over real tokens in order.

    In a causal model later tokens have seen more of the text, so they count more.
    """
    mask = attention_mask.to(token_states.dtype)  # (B, T)
    positions = mask.cumsum(dim=1) * mask  # (B, T): 1..n on real tokens, 0 on padding
    weights = positions.unsqueeze(-1)  # (B, T, 1)
    summed = (token_states * weights).sum(dim=1)  # (B, D)
    return summed / weights.sum(dim=1).clamp(min=1e-9)  # (B, D)


def first_real_index(attention_mask: torch.Tensor) -> torch.Tensor:
    """Index of the first 1 in each row of the mask: (B, T) -> (B,)."""
    return attention_mask.long().argmax(dim=1)


def last_real_index(attention_mask: torch.Tensor) -> torch.Tensor:
    """Index of the last 1 in each row of the mask: (B, T) -> (B,)."""
    seq_len = attention_mask.shape[1]
    flipped = attention_mask.long().flip(dims=[1])  # (B, T)
    return seq_len - 1 - flipped.argmax(dim=1)


POOLINGS: dict[str, PoolingFn] = {
    "mean": mean_pool,
    "cls": cls_pool,
    "max": max_pool,
    "last": last_pool,
    "weighted_mean": weighted_mean_pool,
}


def get_pooling(name: str) -> PoolingFn:
    """Look a pooling strategy up by name; ValueError lists the valid names."""
    try:
        return POOLINGS[name]
    except KeyError:
        valid = ", ".join(POOLINGS)
        raise ValueError(f"unknown pooling {name!r}; valid poolings: {valid}") from None


def resolve_pooling(requested: str | None, recommended: str, model_name: str) -> str:
    """The pooling to use: the model's own unless the user asked for another.

    Another pooling is allowed but warned about, because a mismatch silently
    degrades quality rather than failing.
    """
    if requested is None:
        return recommended
    get_pooling(requested)
    if requested != recommended:
        warnings.warn(
            f"pooling {requested!r} differs from {model_name}'s recommended {recommended!r}; "
            "retrieval quality may drop",
            stacklevel=2,
        )
    return requested


class Pooling(torch.nn.Module):
    """Pipeline stage: (token states, mask) -> one vector per text."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.fn = get_pooling(name)

    def forward(self, token_states: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return self.fn(token_states, attention_mask)


class Normalize(torch.nn.Module):
    """Pipeline stage: L2-normalise so that inner product equals cosine."""

    def forward(self, vectors: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.normalize(vectors, p=2, dim=-1)
