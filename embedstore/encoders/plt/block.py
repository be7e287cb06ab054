"""One pre-norm layer of the shared stack: attention, then SwiGLU, each on a residual."""

from __future__ import annotations

import torch
from torch import nn

from embedstore.encoders.plt.attention import Attention
from embedstore.encoders.plt.config import PLTConfig
from embedstore.encoders.plt.layers import SwiGLU
from embedstore.encoders.plt.positions import PositionContext


class Block(nn.Module):
    """Split at the attention so each forward can choose its keys and values."""

    def __init__(self, config: PLTConfig) -> None:
        super().__init__()
        self.attn_norm = nn.RMSNorm(config.d_model, eps=config.norm_eps)
        self.attn = Attention(config)
        self.mlp_norm = nn.RMSNorm(config.d_model, eps=config.norm_eps)
        self.mlp = SwiGLU(config.d_model, config.ffn_size)

    def project(
        self, x: torch.Tensor, pos: PositionContext
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Layer input (B, T, D) -> q, k, v of its normed self."""
        return self.attn.project(self.attn_norm(x), pos)

    def finish(self, x: torch.Tensor, attended: torch.Tensor) -> torch.Tensor:
        """Layer input (B, T, D) and attention heads (B, H, T, hd) -> layer output (B, T, D)."""
        x = x + self.attn.output(attended)
        return x + self.mlp(self.mlp_norm(x))
