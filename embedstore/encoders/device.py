"""Where to run encoders."""

from __future__ import annotations

import torch


def best_device() -> str:
    """cuda when a GPU is visible, else cpu."""
    return "cuda" if torch.cuda.is_available() else "cpu"
