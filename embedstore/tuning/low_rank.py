"""A fine-tune's weight changes as a small adapter (``embedstore.encoders.adapter``).

A full fine-tune of all-MiniLM-L6-v2 moves 22M weights; shipping them would
take 90 MB. Most of the change of each linear layer lies in a few directions, so
its truncated SVD keeps the gain in a few MB: ``B = U_r S_r`` (out, r) and
``A = V_r^T`` (r, in), the best rank-r approximation of the change. Vectors
(biases, LayerNorm) are kept whole: they are small. The token and position
tables are left as the base has them.
"""

from __future__ import annotations

import re

import torch

# BERT-style layer names: attention projections and both feed-forward layers (not the pooler).
TARGETS = re.compile(r".*encoder\.layer\.\d+\.(attention\.self\.(query|key|value)"
                     r"|attention\.output\.dense|intermediate\.dense|output\.dense)")


def low_rank_delta(
    base: torch.nn.Module, tuned: torch.nn.Module, rank: int
) -> dict[str, torch.Tensor]:
    """``tuned`` - ``base`` as adapter tensors (fp16): rank-``rank`` factors of each targeted
    linear layer's weight change, and the whole change of each vector parameter."""
    after = dict(tuned.named_parameters())
    out: dict[str, torch.Tensor] = {}
    with torch.no_grad():
        for name, layer in base.named_modules():
            if isinstance(layer, torch.nn.Linear) and TARGETS.fullmatch(name):
                change = after[f"{name}.weight"].float() - layer.weight.float()  # (out, in)
                u, s, vh = torch.linalg.svd(change, full_matrices=False)
                out[f"{name}.lora_A"] = vh[:rank].half()  # (r, in)
                out[f"{name}.lora_B"] = (u[:, :rank] * s[:rank]).half()  # (out, r)
        for name, param in base.named_parameters():
            if param.ndim == 1:
                out[f"{name}.delta"] = (after[name].float() - param.float()).half()  # (n,)
    return out
