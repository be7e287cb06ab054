"""Rotary position embedding, with NTK-aware and YaRN scaling for longer inputs.

Pairs of dimensions are the two halves of a head (the "rotate half" layout of
GPT-NeoX and Llama), so a Llama checkpoint's q/k weights would fit unchanged.
"""

from __future__ import annotations

import math

import torch

from embedstore.encoders.plt.config import RopeScaling

# YaRN's ramp bounds, in full rotations within the original context: dimensions
# turning fewer than BETA_SLOW times never saw a whole period in training and are
# interpolated; those turning more than BETA_FAST times are local and kept as is.
BETA_SLOW = 1.0
BETA_FAST = 32.0


def _plain_inv_freq(head_dim: int, base: float) -> torch.Tensor:
    exponents = torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim  # (hd/2,)
    return base**-exponents


def rope_frequencies(
    head_dim: int, base: float, scaling: RopeScaling
) -> tuple[torch.Tensor, float]:
    """(inverse frequencies (head_dim/2,) float32, attention scale) for a scaling kind."""
    if scaling.kind == "ntk":
        # Raising the base stretches the lowest frequency by exactly `factor`
        # while the highest (position-sensitive) ones barely move.
        stretched = base * scaling.factor ** (head_dim / (head_dim - 2))
        return _plain_inv_freq(head_dim, stretched).float(), 1.0
    inv_freq = _plain_inv_freq(head_dim, base)
    if scaling.kind == "none":
        return inv_freq.float(), 1.0
    rotations = scaling.original_max_len * inv_freq / (2 * math.pi)  # (hd/2,)
    keep = ((rotations - BETA_SLOW) / (BETA_FAST - BETA_SLOW)).clamp(0.0, 1.0)  # 1: extrapolate
    blended = inv_freq / scaling.factor * (1 - keep) + inv_freq * keep
    # Interpolated positions flatten attention; YaRN sharpens it back by
    # scaling q and k each by this factor (logits by its square).
    return blended.float(), 0.1 * math.log(scaling.factor) + 1.0


def rope_tables(
    positions: torch.Tensor, inv_freq: torch.Tensor, scale: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """(B, T) positions -> cos, sin, each (B, 1, T, head_dim), broadcast over heads."""
    angles = positions.to(inv_freq.dtype).unsqueeze(-1) * inv_freq  # (B, T, hd/2)
    angles = torch.cat((angles, angles), dim=-1).unsqueeze(1)  # (B, 1, T, hd)
    return angles.cos() * scale, angles.sin() * scale


def apply_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate each (i, i + hd/2) pair of x (B, H, T, hd) by its position's angle."""
    first, second = x.chunk(2, dim=-1)  # (B, H, T, hd/2) each
    rotated_half = torch.cat((-second, first), dim=-1)  # (B, H, T, hd)
    return x * cos.to(x.dtype) + rotated_half * sin.to(x.dtype)
