"""Grouped-query attention with the gate of G-SWA, as primitives both forwards share.

The full-sequence forward (model.py) and the token-by-token one (cache.py)
differ only in where keys and values come from; projecting, attending, gating
and the output projection are these same functions.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from embedstore.encoders.plt.config import PLTConfig
from embedstore.encoders.plt.positions import PositionContext

# (keys, values), each (B, KV, T, hd), post-RoPE.
KeyValues = tuple[torch.Tensor, torch.Tensor]


def attend(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None
) -> torch.Tensor:
    """q (B, H, Tq, hd) over k, v (B, KV, Tk, hd) -> (B, H, Tq, hd); H is a multiple of KV."""
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)


def gated_mix(gate: torch.Tensor, y_global: torch.Tensor, y_local: torch.Tensor) -> torch.Tensor:
    """g·y_global + (1 - g)·y_local with gate (B, H, T, 1) and branches (B, H, T, hd)."""
    return gate * y_global + (1 - gate) * y_local


class Attention(nn.Module):
    def __init__(self, config: PLTConfig) -> None:
        super().__init__()
        self.n_heads = config.n_heads
        self.n_kv_heads = config.n_kv_heads
        self.head_dim = config.head_dim
        d, hd = config.d_model, config.head_dim
        self.q_proj = nn.Linear(d, config.n_heads * hd, bias=False)
        self.k_proj = nn.Linear(d, config.n_kv_heads * hd, bias=False)
        self.v_proj = nn.Linear(d, config.n_kv_heads * hd, bias=False)
        self.o_proj = nn.Linear(config.n_heads * hd, d, bias=False)
        # G-SWA's gate reads the layer input through its own norm, not the
        # attention's, so gating and attending can learn different scalings.
        self.gate_norm = nn.RMSNorm(d, eps=config.norm_eps)
        self.gate_proj = nn.Linear(d, config.n_heads, bias=False)

    def _heads(self, x: torch.Tensor, n_heads: int) -> torch.Tensor:
        batch, seq_len, _ = x.shape
        return x.view(batch, seq_len, n_heads, self.head_dim).transpose(1, 2)  # (B, h, T, hd)

    def project(
        self, x: torch.Tensor, pos: PositionContext
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Normed input (B, T, D) -> q (B, H, T, hd), k and v (B, KV, T, hd), q and k rotated."""
        q = self._heads(self.q_proj(x), self.n_heads)
        k = self._heads(self.k_proj(x), self.n_kv_heads)
        v = self._heads(self.v_proj(x), self.n_kv_heads)
        return pos.rotate(q), pos.rotate(k), v

    def gate(self, layer_input: torch.Tensor) -> torch.Tensor:
        """(B, T, D) -> (B, H, T, 1): per head and token, the share of the global branch."""
        logits = self.gate_proj(self.gate_norm(layer_input))  # (B, T, H)
        return torch.sigmoid(logits).transpose(1, 2).unsqueeze(-1)  # (B, H, T, 1)

    def output(self, y: torch.Tensor) -> torch.Tensor:
        """Heads (B, H, T, hd) -> (B, T, D)."""
        batch, _, seq_len, _ = y.shape
        merged = y.transpose(1, 2)  # (B, T, H, hd)
        merged = merged.reshape(batch, seq_len, self.n_heads * self.head_dim)  # (B, T, H·hd)
        return self.o_proj(merged)  # (B, T, D)
