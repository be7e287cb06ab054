"""Cross-loop position offset (CLP): loop r reads loop r-1's state one token late.

Shifting by one is what lets every loop of every token run in parallel at
decoding time: token i's loop r needs only token i-1's loop r-1, which is
already done.
"""

from __future__ import annotations

import torch
from torch.nn import functional as F


def shift_states(states: torch.Tensor, attention_mask: torch.Tensor | None) -> torch.Tensor:
    """shift(h)_i = h_{i-1}; zero at i = 0 and wherever token i-1 is padding.

    Zeroing padding first makes a left-padded text's first real token see
    zero, exactly as at position 0 of the text alone.
    """
    if attention_mask is not None:
        states = states * attention_mask.unsqueeze(-1).to(states.dtype)  # (B, T, D)
    return F.pad(states, (0, 0, 1, 0))[:, :-1]  # (B, T + 1, D) -> (B, T, D)


def loop_input(
    embedded: torch.Tensor,
    previous: torch.Tensor,
    attention_mask: torch.Tensor | None,
    emb_scale: float,
    hidden_scale: float,
) -> torch.Tensor:
    """B^r = a·Embed(x) + b·shift(h^{r-1}), each (B, T, D)."""
    return offset_mix(embedded, shift_states(previous, attention_mask), emb_scale, hidden_scale)


def offset_mix(
    embedded: torch.Tensor, shifted: torch.Tensor, emb_scale: float, hidden_scale: float
) -> torch.Tensor:
    """a·Embed(x) + b·shifted, for a shifted state however it was obtained."""
    return emb_scale * embedded + hidden_scale * shifted
