"""Where to run encoders."""

from __future__ import annotations


def best_device() -> str:
    """cuda when a GPU is visible, else cpu."""
    # Imported here: commands that never encode (list, info, rm, --help) stay torch-free.
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"
