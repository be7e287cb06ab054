"""The feed-forward half of a block: SwiGLU, without biases."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F


class SwiGLU(nn.Module):
    """down(silu(gate(x)) * up(x)): the gated MLP of PaLM and Llama."""

    def __init__(self, d_model: int, ffn_size: int) -> None:
        super().__init__()
        self.gate_proj = nn.Linear(d_model, ffn_size, bias=False)
        self.up_proj = nn.Linear(d_model, ffn_size, bias=False)
        self.down_proj = nn.Linear(ffn_size, d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))  # (B, T, D)
