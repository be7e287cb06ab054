"""Low-rank adapters: small files of weight changes, added to a base model as it loads.

A folder holds ``adapter.safetensors`` and ``adapter.json`` (``base``, ``rank``,
``alpha``, ``sha256`` of the weights file). The weights file holds, for each
adapted linear layer, ``<layer>.lora_A`` (r, in) and ``<layer>.lora_B`` (out, r),
whose product times ``alpha / rank`` is added to the layer's weight, and for
any parameter changed whole (biases, LayerNorm), ``<parameter>.delta``. Merged,
the model keeps the base's architecture and speed; loading needs no peft.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import torch

from embedstore.errors import EncoderLoadError

WEIGHTS = "adapter.safetensors"
CONFIG = "adapter.json"


def weights_digest(folder: Path) -> str:
    """sha256 of the folder's weights file, hex."""
    return hashlib.sha256((folder / WEIGHTS).read_bytes()).hexdigest()


def save_adapter(
    tensors: dict[str, torch.Tensor], folder: Path, *, base: str, rank: int, alpha: float
) -> str:
    """Write the adapter's two files; returns the weights' sha256."""
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    save_file({k: v.contiguous() for k, v in tensors.items()}, str(folder / WEIGHTS))
    digest = weights_digest(folder)
    (folder / CONFIG).write_text(json.dumps(
        {"base": base, "rank": rank, "alpha": alpha, "sha256": digest}, indent=2) + "\n")
    return digest


def merge_adapter(module: torch.nn.Module, folder: Path) -> int:
    """Add the folder's changes to ``module``'s parameters; returns the layers adapted.

    Nothing is changed unless every tensor fits a parameter of the model."""
    from safetensors.torch import load_file

    try:
        config = json.loads((folder / CONFIG).read_text())
        tensors = load_file(str(folder / WEIGHTS))
    except (OSError, ValueError) as exc:
        raise EncoderLoadError(f"cannot read the adapter in {folder}: {exc}") from exc
    scale = float(config["alpha"]) / float(config["rank"])
    params = dict(module.named_parameters())
    changes: dict[str, torch.Tensor] = {}
    for key, tensor in tensors.items():
        name, _, part = key.rpartition(".")
        if part == "lora_A":
            b = tensors[f"{name}.lora_B"].float()  # (out, r)
            changes[f"{name}.weight"] = scale * b @ tensor.float()  # (out, r) @ (r, in)
        elif part == "delta":
            changes[name] = tensor.float()
    for name, change in changes.items():
        if name not in params or params[name].shape != change.shape:
            raise EncoderLoadError(f"adapter {folder} changes {name!r}, which the model lacks")
    with torch.no_grad():
        for name, change in changes.items():
            params[name].add_(change.to(params[name].dtype))
    return sum(key.endswith(".lora_A") for key in tensors)
