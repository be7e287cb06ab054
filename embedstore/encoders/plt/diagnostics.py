"""What each loop does: offset cost, step size, gate, effective rank; and cache bytes.

- offset cost Ω^r = mean_i ‖h_i^{r-1} - h_{i-1}^{r-1}‖: what CLP costs loop r
  for reading the previous token's state instead of this token's;
- step size ‖h^r - h^{r-1}‖ per token: how much loop r still changes;
- gate: the mean share of the global branch (loop 1's K/V) in G-SWA;
- effective rank of the pooled states: exp of the entropy of the normalised
  singular values, how many directions the texts' vectors really use.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from embedstore.encoders.base import budget_batches
from embedstore.encoders.plt.cache import kv_cache_bytes, sequential_kv_bytes
from embedstore.encoders.plt.embedder import PLTEmbedder, pad_left, token_ids

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

# Used when no text is given: a little code and prose, enough for an effective rank.
SAMPLE_TEXTS = (
    "def read_config(path):\n    with open(path) as f:\n        return json.load(f)",
    "class LRUCache:\n    def __init__(self, size):\n        self.size = size",
    "for i, line in enumerate(lines):\n    if line.startswith('#'):\n        continue",
    "Return the number of seconds since the epoch as a floating point number.",
    "Parse command line arguments and merge them with the defaults from the file.",
    "async def fetch(session, url):\n    async with session.get(url) as response:\n"
    "        return await response.text()",
    "Split the string using shell-like syntax, honouring quotes and escapes.",
    "SELECT name, count(*) FROM users GROUP BY name ORDER BY 2 DESC LIMIT 10;",
)


@dataclass
class LoopStats:
    loop: int  # 1-based
    offset_cost: float | None  # Ω^r; None for loop 1, which reads no shifted state
    step_size: float | None  # mean ‖h^r - h^{r-1}‖ per token; None for loop 1
    gate_mean: float | None  # None for loop 1, which has no G-SWA
    effective_rank: float


@dataclass
class Diagnostics:
    loops: list[LoopStats]
    texts: int
    tokens: int
    seq_len: int
    kv_cache_bytes: int  # shared cache: loop 1 plus R-1 windows
    sequential_kv_bytes: int  # R full caches


def effective_rank(vectors: torch.Tensor) -> float:
    """(N, D) -> exp(entropy of the normalised singular values), between 1 and min(N, D)."""
    singular = torch.linalg.svdvals(vectors.double())  # (min(N, D),)
    weights = singular / singular.sum().clamp(min=1e-12)
    entropy = -(weights * weights.clamp(min=1e-12).log()).sum()
    return float(entropy.exp())


class _Sums:
    """Running sums of one loop's per-token statistics over batches."""

    def __init__(self) -> None:
        self.offset = self.offset_count = 0.0
        self.step = self.gate = self.tokens = 0.0
        self.pooled: list[torch.Tensor] = []


@torch.no_grad()
def diagnose(
    embedder: PLTEmbedder,
    tokenizer: PreTrainedTokenizerBase,
    texts: Sequence[str],
    *,
    seq_len: int | None = None,
    batch_size: int = 16,
) -> Diagnostics:
    """Per-loop statistics of ``texts``, and cache bytes at ``seq_len`` tokens
    (default: the model's max_seq_len)."""
    config = embedder.config
    device = next(embedder.parameters()).device
    ids = token_ids(tokenizer, texts, config.max_seq_len)
    sums = [_Sums() for _ in range(config.loops)]
    for batch in budget_batches([len(row) for row in ids], batch_size):
        input_ids, mask = pad_left([ids[i] for i in batch], tokenizer.pad_token_id or 0, device)
        out = embedder.backbone(input_ids, mask)
        real = mask.to(out.hidden.dtype)  # (B, T)
        # Pairs (i-1, i) of real tokens: where Ω compares neighbours.
        both = real[:, 1:] * real[:, :-1]  # (B, T-1)
        for loop, state in enumerate(out.loop_states):
            sums[loop].pooled.append(embedder.pool(state, mask))  # (B, D)
            sums[loop].tokens += float(real.sum())
            if loop == 0:
                continue
            previous = out.loop_states[loop - 1]
            neighbours = (previous[:, 1:] - previous[:, :-1]).norm(dim=-1)  # (B, T-1)
            sums[loop].offset += float((neighbours * both).sum())
            sums[loop].offset_count += float(both.sum())
            sums[loop].step += float(((state - previous).norm(dim=-1) * real).sum())
            gate = out.gates[loop - 1]  # (B, L, H, T)
            sums[loop].gate += float((gate * real[:, None, None, :]).mean(dim=(1, 2)).sum())
    tokens = int(sums[0].tokens)
    length = seq_len or config.max_seq_len
    return Diagnostics(
        loops=[_stats(loop, s) for loop, s in enumerate(sums)],
        texts=len(texts),
        tokens=tokens,
        seq_len=length,
        kv_cache_bytes=kv_cache_bytes(config, length),
        sequential_kv_bytes=sequential_kv_bytes(config, length),
    )


def _stats(loop: int, sums: _Sums) -> LoopStats:
    rank = effective_rank(torch.cat(sums.pooled))  # (N, D)
    if loop == 0:
        return LoopStats(1, None, None, None, rank)
    return LoopStats(
        loop + 1,
        sums.offset / max(sums.offset_count, 1.0),
        sums.step / max(sums.tokens, 1.0),
        sums.gate / max(sums.tokens, 1.0),
        rank,
    )
