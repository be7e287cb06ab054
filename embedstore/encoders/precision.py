"""Reduced-precision encoding where the hardware runs it natively, checked before use.

bf16 on CPUs with native bf16 matrix instructions (AVX512-BF16, AMX) and fp16
on CUDA roughly double encoding throughput. A path is only taken after it
encodes a probe batch with mean cosine >= PARITY to the exact fp32 vectors;
``EMBEDSTORE_PRECISION=fp32`` forces the exact path.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

import numpy as np

PRECISIONS = ("auto", "fp32", "bf16", "fp16")
PARITY = 0.999
# Code and prose of typical lengths, so the check sees long and short sequences.
PROBE = [
    "def read_config(path):\n    with open(path) as fh:\n        return json.load(fh)",
    "Return the number of seconds until the cache entry expires.",
    "class LRUCache:\n    def __init__(self, size):\n        self.size = size\n" * 6,
    "parse an HTTP date header into a datetime",
    "for (let i = 0; i < items.length; i++) { total += items[i].price * items[i].qty; }",
]


def candidate(device: str) -> str:
    """The reduced precision this device runs natively, or fp32."""
    if device.startswith("cuda"):
        return "fp16"
    import torch  # here, not at the top: commands that never encode stay torch-free

    if device == "cpu" and torch.ops.mkldnn._is_mkldnn_bf16_supported():
        return "bf16"
    return "fp32"


def autocast(device: str, precision: str) -> AbstractContextManager[object]:
    if precision == "fp32":
        return nullcontext()
    import torch

    dtype = torch.bfloat16 if precision == "bf16" else torch.float16
    return torch.autocast("cuda" if device.startswith("cuda") else "cpu", dtype=dtype)


def choose_precision(
    device: str, encode: Callable[[list[str], str], np.ndarray], requested: str | None = None
) -> str:
    """The precision to encode with: the fast one if it passes the parity check, else fp32.

    ``encode(texts, precision)`` -> unit-length (n, d) vectors.
    """
    wanted = requested or os.environ.get("EMBEDSTORE_PRECISION", "auto")
    if wanted not in PRECISIONS:
        raise ValueError(f"unknown precision {wanted!r}; valid: {', '.join(PRECISIONS)}")
    fast = candidate(device) if wanted == "auto" else wanted
    if fast == "fp32":
        return "fp32"
    return fast if parity(encode(PROBE, "fp32"), encode(PROBE, fast)) >= PARITY else "fp32"


def parity(exact: np.ndarray, candidate: np.ndarray) -> float:
    """Mean cosine of unit-length rows: (n, d), (n, d) -> one number, 1.0 when equal."""
    return float(np.mean(np.sum(exact * candidate, axis=1)))
