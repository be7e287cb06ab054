"""Distillation and contrastive losses over (B, d) vectors."""

from __future__ import annotations

import torch
from torch.nn import functional as F

DISTILL_LOSSES = ("cosine", "mse")


def distill_loss(student: torch.Tensor, teacher: torch.Tensor, kind: str) -> torch.Tensor:
    """How far (B, d) student vectors are from the teacher's (B, d) unit vectors.

    ``cosine``: 1 - cos, direction only, which is all retrieval uses;
    ``mse``: squared distance summed over dimensions (not averaged, so that
    its size does not shrink with d), which also pins the length to 1.
    """
    if kind == "cosine":
        return (1 - F.cosine_similarity(student, teacher, dim=-1)).mean()
    if kind == "mse":
        return (student - teacher).pow(2).sum(dim=-1).mean()
    raise ValueError(f"unknown distillation loss {kind!r}; valid: {', '.join(DISTILL_LOSSES)}")


def contrastive_loss(
    queries: torch.Tensor, codes: torch.Tensor, temperature: float
) -> torch.Tensor:
    """Symmetric in-batch InfoNCE: query i's positive is code i, the other codes are negatives."""
    scores = F.normalize(queries, dim=-1) @ F.normalize(codes, dim=-1).T / temperature  # (P, P)
    labels = torch.arange(scores.shape[0], device=scores.device)  # (P,)
    return (F.cross_entropy(scores, labels) + F.cross_entropy(scores.T, labels)) / 2
