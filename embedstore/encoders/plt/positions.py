"""The four ways a PLT can know where a token is: RoPE, ALiBi, sinusoidal, learned.

RoPE and ALiBi act inside attention (on q/k, or as a score bias); sinusoidal
and learned tables are added to the token embedding, so that every loop's
input ``a·Embed(x) + b·shift(h)`` carries them unshifted, as RoPE positions
are.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

from embedstore.encoders.plt.config import PLTConfig
from embedstore.encoders.plt.rope import apply_rope, rope_frequencies, rope_tables


def positions_from_mask(attention_mask: torch.Tensor) -> torch.Tensor:
    """(B, T) mask -> (B, T) positions counted over real tokens only.

    A left-padded text then gets the same positions, hence the same states,
    as the text alone; padding sits at position 0.
    """
    return (attention_mask.long().cumsum(dim=1) - 1).clamp(min=0)


def alibi_slopes(n_heads: int) -> torch.Tensor:
    """(H,) the geometric slopes 2^(-8h/H) of ALiBi, one per head."""
    heads = torch.arange(1, n_heads + 1, dtype=torch.float32)
    return 2.0 ** (-8.0 * heads / n_heads)


def sinusoidal_table(positions: torch.Tensor, d_model: int) -> torch.Tensor:
    """(B, T) positions -> (B, T, d_model) sin/cos features of Vaswani et al."""
    half = (d_model + 1) // 2
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half, dtype=torch.float32) * 2 / d_model)
    angles = positions.float().unsqueeze(-1) * freqs.to(positions.device)  # (B, T, half)
    table = torch.stack((angles.sin(), angles.cos()), dim=-1)  # (B, T, half, 2)
    return table.flatten(-2)[..., :d_model]  # (B, T, d_model): sin, cos interleaved


@dataclass(frozen=True)
class PositionContext:
    """Positions of one forward's query tokens, with what attention needs of them."""

    positions: torch.Tensor  # (B, T)
    cos: torch.Tensor | None  # (B, 1, T, hd) for RoPE, else None
    sin: torch.Tensor | None
    slopes: torch.Tensor | None  # (H,) for ALiBi, else None

    def rotate(self, x: torch.Tensor) -> torch.Tensor:
        """Apply RoPE to q or k (B, H, T, hd) computed at these positions."""
        if self.cos is None or self.sin is None:
            return x
        return apply_rope(x, self.cos, self.sin)

    def score_bias(self, key_positions: torch.Tensor) -> torch.Tensor | None:
        """ALiBi's (B, H, Tq, Tk) penalty on attention scores, linear in distance."""
        if self.slopes is None:
            return None
        distance = self.positions.unsqueeze(-1) - key_positions.unsqueeze(-2)  # (B, Tq, Tk)
        return -self.slopes.view(1, -1, 1, 1) * distance.unsqueeze(1).float()  # (B, H, Tq, Tk)


class PositionEncoding(nn.Module):
    """The configured position scheme; only ``learned`` holds parameters."""

    inv_freq: torch.Tensor  # (hd/2,) RoPE inverse frequencies
    slopes: torch.Tensor  # (H,) ALiBi slopes

    def __init__(self, config: PLTConfig) -> None:
        super().__init__()
        self.kind = config.position
        self.d_model = config.d_model
        self.max_len = config.max_seq_len
        self.table = (
            nn.Embedding(config.max_seq_len, config.d_model) if self.kind == "learned" else None
        )
        inv_freq, self.rope_scale = rope_frequencies(
            config.head_dim, config.rope_base, config.rope_scaling
        )
        # Buffers follow .to(device) but are not weights: they are rebuilt from the config.
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.register_buffer("slopes", alibi_slopes(config.n_heads), persistent=False)

    def context(self, positions: torch.Tensor) -> PositionContext:
        if self.kind == "rope":
            cos, sin = rope_tables(positions, self.inv_freq, self.rope_scale)
            return PositionContext(positions, cos, sin, None)
        slopes = self.slopes if self.kind == "alibi" else None
        return PositionContext(positions, None, None, slopes)

    def absolute(self, positions: torch.Tensor) -> torch.Tensor | None:
        """(B, T, D) to add to token embeddings, or None for RoPE/ALiBi."""
        if self.kind == "sinusoidal":
            return sinusoidal_table(positions, self.d_model)
        if self.table is None:
            return None
        if positions.numel() and int(positions.max()) >= self.max_len:
            raise ValueError(
                f"this PLT learned a position table of {self.max_len} tokens and cannot "
                f"place token {int(positions.max()) + 1}; give shorter input, or train a "
                "model with position rope, alibi or sinusoidal, which extrapolate"
            )
        return self.table(positions)
