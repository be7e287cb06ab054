"""Reduced-precision encoding where the hardware runs it natively, checked before use.

bf16 on CPUs with native bf16 matrix instructions (AVX512-BF16, AMX) and fp16
on CUDA roughly double encoding throughput. A path is only taken after it
encodes a probe batch with mean cosine >= PARITY to the exact fp32 vectors.
On a CPU, ``auto`` also times both paths: having the instructions is no promise
that they are fast (on one 2-core Xeon host, bf16 ran at half fp32's speed).
``EMBEDSTORE_PRECISION=fp32`` forces the exact path.
"""

from __future__ import annotations

import os
import time
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
# How often each path encodes the probe for the speed check, alternating; its fastest
# round counts, so that a burst of other load hits both alike (about 0.6 s in all on a
# 2-core CPU, once per model load; queries go through the ONNX export, not through this).
SPEED_ROUNDS = 3
# How much faster the reduced path must be to be kept: within a tenth, the exact path costs
# little, and a choice made on a closer margin would flip from one load to the next.
SPEED_GAIN = 1.1


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
    """The precision to encode with: the reduced one if it passes the parity check (and,
    under ``auto`` on a CPU, encodes SPEED_GAIN times as fast as fp32 here), else fp32.

    ``encode(texts, precision)`` -> unit-length (n, d) vectors.
    """
    wanted = requested or os.environ.get("EMBEDSTORE_PRECISION", "auto")
    if wanted not in PRECISIONS:
        raise ValueError(f"unknown precision {wanted!r}; valid: {', '.join(PRECISIONS)}")
    fast = candidate(device) if wanted == "auto" else wanted
    if fast == "fp32" or parity(encode(PROBE, "fp32"), encode(PROBE, fast)) < PARITY:
        return "fp32"
    # A precision asked for by name is kept; fp16 on a GPU is always the faster.
    if wanted == "auto" and device == "cpu" and not faster(encode, fast):
        return "fp32"
    return fast


def faster(encode: Callable[[list[str], str], np.ndarray], precision: str) -> bool:
    """Whether ``precision`` encodes the probe SPEED_GAIN times as fast as fp32 here."""
    best = {"fp32": float("inf"), precision: float("inf")}
    for _ in range(SPEED_ROUNDS):
        for name in best:
            started = time.perf_counter()
            encode(PROBE, name)
            best[name] = min(best[name], time.perf_counter() - started)
    return best[precision] * SPEED_GAIN < best["fp32"]


def parity(exact: np.ndarray, candidate: np.ndarray) -> float:
    """Mean cosine of unit-length rows: (n, d), (n, d) -> one number, 1.0 when equal."""
    return float(np.mean(np.sum(exact * candidate, axis=1)))
