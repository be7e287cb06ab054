"""Which keys each query may attend: causal, optionally within a sliding window."""

from __future__ import annotations

import torch


def attention_allowed(
    seq_len: int,
    key_mask: torch.Tensor | None = None,
    *,
    window: int | None = None,
    device: torch.device | None = None,
) -> torch.Tensor:
    """(B or 1, 1, T, T) bool: may query i attend key j?

    Causal (j <= i); with ``window`` w, also i - j <= w, so each query sees the
    w previous tokens and itself. ``key_mask`` (B, T) keeps padding out of every
    real token's view, on whichever side the padding is.
    """
    query = torch.arange(seq_len, device=device).unsqueeze(1)  # (T, 1)
    key = torch.arange(seq_len, device=device).unsqueeze(0)  # (1, T)
    allowed = key <= query  # (T, T)
    if window is not None:
        allowed = allowed & (query - key <= window)
    allowed = allowed.view(1, 1, seq_len, seq_len)  # (1, 1, T, T)
    if key_mask is None:
        return allowed
    allowed = allowed & key_mask.bool().view(-1, 1, 1, seq_len)  # (B, 1, T, T)
    # A left-padding query has no real key at or before it; letting every
    # token see itself keeps its softmax finite, and real tokens still never
    # see padding.
    return allowed | (query == key).view(1, 1, seq_len, seq_len)  # (B, 1, T, T)


def attention_bias(allowed: torch.Tensor, score_bias: torch.Tensor | None) -> torch.Tensor:
    """The mask scaled_dot_product_attention takes: bool, or float with -inf where barred."""
    if score_bias is None:
        return allowed
    return score_bias.masked_fill(~allowed, float("-inf"))  # (B, H, T, T)
