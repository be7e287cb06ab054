"""The shared KV cache and token-by-token decoding through it.

What a PLT keeps while decoding: loop 1's keys and values for the whole
prefix (every later loop attends to them globally), a window of the last w+1
keys and values per later loop and layer, and each loop's last hidden state,
which the next token's next loop reads as its shifted state. Memory is
O(L·S·d) rather than the O(R·L·S·d) of running R loops one after another.

Decoding must give the full-sequence forward's states: that equality is what
shows the cache and the cross-loop offset are right.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from embedstore.encoders.plt.attention import KeyValues, attend, gated_mix
from embedstore.encoders.plt.config import PLTConfig
from embedstore.encoders.plt.model import PLTModel
from embedstore.encoders.plt.offset import offset_mix


@dataclass
class LayerCache:
    """Post-RoPE keys and values of one layer in one loop, (B, KV, T, hd) each."""

    keys: torch.Tensor | None = None
    values: torch.Tensor | None = None

    def append(self, k: torch.Tensor, v: torch.Tensor, keep: int | None = None) -> KeyValues:
        """Add one token's k, v (B, KV, 1, hd); keep the last ``keep`` tokens if given."""
        keys = k if self.keys is None else torch.cat((self.keys, k), dim=2)  # (B, KV, T+1, hd)
        values = v if self.values is None else torch.cat((self.values, v), dim=2)  # same
        if keep is not None:
            keys, values = keys[:, :, -keep:], values[:, :, -keep:]  # (B, KV, <=keep, hd)
        self.keys, self.values = keys, values
        return keys, values

    def nbytes(self) -> int:
        if self.keys is None or self.values is None:
            return 0
        return self.keys.nbytes + self.values.nbytes


@dataclass
class PLTCache:
    config: PLTConfig
    length: int = 0  # tokens decoded so far
    full: list[LayerCache] = field(default_factory=list)  # loop 1, one per layer
    windows: list[list[LayerCache]] = field(default_factory=list)  # loops 2..R, then layers
    # h^r of the previous token for r = 1..R-1: the next token's loop r+1 input.
    previous: list[torch.Tensor | None] = field(default_factory=list)

    def __post_init__(self) -> None:
        layers, later_loops = self.config.n_layers, self.config.loops - 1
        self.full = [LayerCache() for _ in range(layers)]
        self.windows = [[LayerCache() for _ in range(layers)] for _ in range(later_loops)]
        self.previous = [None] * later_loops

    def nbytes(self) -> int:
        """Bytes held in keys and values (the hidden states are B·D per loop, negligible)."""
        held = sum(cache.nbytes() for cache in self.full)
        return held + sum(cache.nbytes() for loop in self.windows for cache in loop)


def kv_cache_bytes(config: PLTConfig, seq_len: int, *, batch: int = 1, itemsize: int = 4) -> int:
    """K/V bytes of the shared cache after ``seq_len`` tokens: loop 1 plus R-1 windows."""
    per_token = config.n_layers * 2 * config.n_kv_heads * config.head_dim * itemsize * batch
    window = min(seq_len, config.window + 1)
    return per_token * (seq_len + (config.loops - 1) * window)


def sequential_kv_bytes(
    config: PLTConfig, seq_len: int, *, batch: int = 1, itemsize: int = 4
) -> int:
    """K/V bytes if the R loops each kept a full cache, as plain looping would."""
    per_token = config.n_layers * 2 * config.n_kv_heads * config.head_dim * itemsize * batch
    return per_token * seq_len * config.loops


@torch.no_grad()
def decode_step(model: PLTModel, token_ids: torch.Tensor, cache: PLTCache) -> list[torch.Tensor]:
    """Run all R loops for the next token of each sequence; returns h^1..h^R, each (B, D).

    ``token_ids`` is (B,), sequences without padding.
    """
    config = model.config
    batch, step = token_ids.shape[0], cache.length
    device = token_ids.device
    positions = torch.full((batch, 1), step, device=device)  # (B, 1)
    pos = model.positions.context(positions)
    embedded = model.embed(token_ids.view(batch, 1), positions)  # (B, 1, D)
    prefix = torch.arange(step + 1, device=device).expand(batch, step + 1)  # (B, S)
    full_bias = pos.score_bias(prefix)

    x = embedded
    shared: list[KeyValues] = []  # loop 1's whole prefix, per layer
    for block, layer_cache in zip(model.blocks, cache.full, strict=True):
        q, k, v = block.project(x, pos)
        shared.append(layer_cache.append(k, v))
        x = block.finish(x, attend(q, *shared[-1], full_bias))
    hidden = model.norm(x)  # (B, 1, D)
    states = [hidden]

    window = min(step + 1, config.window + 1)
    local_bias = pos.score_bias(prefix[:, step + 1 - window :])
    for loop in range(1, config.loops):
        shifted = cache.previous[loop - 1]
        cache.previous[loop - 1] = hidden
        x = offset_mix(
            embedded, torch.zeros_like(hidden) if shifted is None else shifted,
            config.emb_scale, config.hidden_scale,
        )
        layers = zip(model.blocks, shared, cache.windows[loop - 1], strict=True)
        for block, (shared_keys, shared_values), local in layers:
            q, k, v = block.project(x, pos)
            keys, values = local.append(k, v, keep=config.window + 1)
            y_global = attend(q, shared_keys, shared_values, full_bias)
            y_local = attend(q, keys, values, local_bias)
            x = block.finish(x, gated_mix(block.attn.gate(x), y_global, y_local))
        hidden = model.norm(x)
        states.append(hidden)
    cache.length += 1
    return [state.squeeze(1) for state in states]  # each (B, D)

