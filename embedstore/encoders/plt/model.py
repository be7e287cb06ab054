"""PLTModel: the shared block stack applied R times, full-sequence forward.

Loop 1 is a plain causal transformer whose post-RoPE keys and values are kept
(K_share, V_share). Every later loop r reads a·Embed(x) + b·shift(h^{r-1})
and attends twice per layer: globally over K_share/V_share, locally over its
own keys within a window, mixed by a learned per-head gate (G-SWA).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import cast

import torch
from torch import nn

from embedstore.encoders.plt.attention import KeyValues, attend, gated_mix
from embedstore.encoders.plt.block import Block
from embedstore.encoders.plt.config import PLTConfig
from embedstore.encoders.plt.masks import attention_allowed, attention_bias
from embedstore.encoders.plt.offset import loop_input
from embedstore.encoders.plt.positions import (
    PositionContext,
    PositionEncoding,
    positions_from_mask,
)

INIT_STD = 0.02


@dataclass
class PLTOutput:
    hidden: torch.Tensor  # (B, T, D): h^R, the final-RMSNorm output of the last loop
    loop_states: list[torch.Tensor]  # h^1 .. h^R, each (B, T, D)
    gates: list[torch.Tensor]  # loops 2 .. R, each (B, L, H, T): share of the global branch


def init_weight(weight: torch.Tensor, kind: str) -> None:
    """normal(0, 0.02) as GPT-2 does, or xavier-uniform, as the config's ``init`` says."""
    if kind == "normal":
        nn.init.normal_(weight, mean=0.0, std=INIT_STD)
    else:
        nn.init.xavier_uniform_(weight)


def principal_components(table: torch.Tensor, width: int) -> torch.Tensor:
    """(V, d) rows -> (V, width) coordinates on their top principal directions."""
    centered = table - table.mean(dim=0, keepdim=True)  # (V, d)
    _, _, directions = torch.linalg.svd(centered, full_matrices=False)  # (d, d)
    return centered @ directions[:width].T  # (V, width)


class PLTModel(nn.Module):
    def __init__(self, config: PLTConfig) -> None:
        super().__init__()
        self.config = config
        self.tok_emb = nn.Embedding(config.vocab_size, config.d_model)
        self.positions = PositionEncoding(config)
        self.layers = nn.ModuleList(Block(config) for _ in range(config.n_layers))
        self.norm = nn.RMSNorm(config.d_model, eps=config.norm_eps)
        self.lm_head = (
            nn.Linear(config.d_model, config.vocab_size, bias=False) if config.lm_head else None
        )
        self._init_weights()
        if self.lm_head is not None and config.tie_word_embeddings:
            self.lm_head.weight = self.tok_emb.weight

    @property
    def blocks(self) -> list[Block]:
        # ModuleList forgets its items' type; they are all Blocks.
        return cast(list[Block], list(self.layers))

    def _init_weights(self) -> None:
        for module in self.modules():
            if isinstance(module, nn.Linear | nn.Embedding):
                init_weight(module.weight, self.config.init)
        for block in self.blocks:
            # Zero logits: every gate starts at 0.5, an even mix of both branches.
            nn.init.zeros_(block.attn.gate_proj.weight)

    @torch.no_grad()
    def load_token_embeddings(self, table: torch.Tensor) -> None:
        """Start from another model's (V, d) token embeddings, e.g. the teacher's.

        A wider table is reduced to its top ``d_model`` principal directions;
        either way it is rescaled to the spread of the initialised table, the
        scale the layers were initialised for.
        """
        vocab, width = table.shape
        if vocab != self.config.vocab_size:
            raise ValueError(
                f"token table has {vocab} rows but the vocabulary has {self.config.vocab_size}: "
                "the two models must share a tokenizer"
            )
        if width < self.config.d_model:
            raise ValueError(
                f"token table is {width}-d, narrower than d_model {self.config.d_model}"
            )
        start = table.float()
        if width > self.config.d_model:
            start = principal_components(start, self.config.d_model)
        start = start * (self.tok_emb.weight.std() / start.std())
        self.tok_emb.weight.copy_(start.to(self.tok_emb.weight.dtype))

    def embed(self, input_ids: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        """Embed(x): (B, T) ids at (B, T) positions -> (B, T, D)."""
        x = self.tok_emb(input_ids)  # (B, T, D)
        if self.config.scale_embeddings:
            x = x * math.sqrt(self.config.d_model)
        absolute = self.positions.absolute(positions)
        return x if absolute is None else x + absolute

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None
    ) -> PLTOutput:
        """(B, T) ids, with an optional (B, T) mask of 1 on real tokens (padding on either side)."""
        batch, seq_len = input_ids.shape
        if attention_mask is None:
            positions = torch.arange(seq_len, device=input_ids.device).expand(batch, seq_len)
        else:
            positions = positions_from_mask(attention_mask)  # (B, T)
        pos = self.positions.context(positions)
        embedded = self.embed(input_ids, positions)  # (B, T, D)
        score_bias = pos.score_bias(positions)  # (B, H, T, T) for ALiBi, else None
        device = input_ids.device
        full = attention_bias(attention_allowed(seq_len, attention_mask, device=device), score_bias)
        hidden, shared = self._first_loop(embedded, pos, full)
        states, gates = [hidden], []
        if self.config.loops > 1:
            allowed = attention_allowed(
                seq_len, attention_mask, window=self.config.window, device=device
            )
            local = attention_bias(allowed, score_bias)
            for _ in range(1, self.config.loops):
                x = loop_input(
                    embedded, hidden, attention_mask,
                    self.config.emb_scale, self.config.hidden_scale,
                )
                hidden, gate = self._later_loop(x, pos, shared, full, local)
                states.append(hidden)
                gates.append(gate)
        return PLTOutput(hidden, states, gates)

    def _first_loop(
        self, x: torch.Tensor, pos: PositionContext, full: torch.Tensor
    ) -> tuple[torch.Tensor, list[KeyValues]]:
        """Causal attention over the whole prefix; returns h^1 and each layer's K/V."""
        shared: list[KeyValues] = []
        for block in self.blocks:
            q, k, v = block.project(x, pos)
            shared.append((k, v))
            x = block.finish(x, attend(q, k, v, full))
        return self.norm(x), shared

    def _later_loop(
        self,
        x: torch.Tensor,
        pos: PositionContext,
        shared: list[KeyValues],
        full: torch.Tensor,
        local: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """G-SWA over loop 1's K/V and a window of this loop's; returns h^r and gates."""
        gates = []
        for block, (k_shared, v_shared) in zip(self.blocks, shared, strict=True):
            q, k, v = block.project(x, pos)
            gate = block.attn.gate(x)  # (B, H, T, 1)
            y_global = attend(q, k_shared, v_shared, full)
            y_local = attend(q, k, v, local)
            x = block.finish(x, gated_mix(gate, y_global, y_local))
            gates.append(gate.squeeze(-1))  # (B, H, T)
        return self.norm(x), torch.stack(gates, dim=1)  # (B, T, D), (B, L, H, T)

    def logits(self, hidden: torch.Tensor) -> torch.Tensor:
        """(B, T, D) -> (B, T, V) next-token logits, for a model built with lm_head."""
        if self.lm_head is None:
            raise ValueError("this PLT has no language-model head; build it with lm_head=True")
        return self.lm_head(hidden)
