"""LoRA adapters of a sentence-transformers model: train (peft layers), export, merge.

An adapter folder holds ``adapter.safetensors`` (for each adapted layer,
``<layer>.lora_A`` (r, in) and ``<layer>.lora_B`` (out, r)) and ``adapter.json``
(``rank``, ``alpha``, ``base``). Merging adds ``alpha / rank * B @ A`` to each
weight: the adapted model keeps the base's architecture and speed, and loading
it needs neither peft nor a copy of the full weights.

Training is a plain loop rather than the Hugging Face trainer: its checkpoints of
an injected model do not load back, and this one's do (factors, optimizer, step
and random state), so a killed run resumes exactly where it stopped.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from embedstore.errors import EncoderLoadError

WEIGHTS = "adapter.safetensors"
CONFIG = "adapter.json"

# BERT-style layer names: attention projections and both feed-forward layers (not the pooler).
TARGETS = (r".*encoder\.layer\.\d+\.(attention\.self\.(query|key|value)|attention\.output\.dense"
           r"|intermediate\.dense|output\.dense)")
# MultipleNegativesRankingLoss's usual temperature: cosine similarities times 20.
SCALE = 20.0
WARMUP_SHARE = 0.1


@dataclass(frozen=True)
class LoraSettings:
    out: Path  # checkpoint.pt while training, the adapter at the end
    steps: int
    batch_size: int = 32
    learning_rate: float = 2e-4
    rank: int = 16
    alpha: int = 32
    dropout: float = 0.05
    seed: int = 0
    save_steps: int = 25
    bf16: bool = False


def add_lora(model: Any, settings: LoraSettings) -> None:
    """Freeze ``model`` (a SentenceTransformer) and give its transformer trainable LoRA layers."""
    from peft import LoraConfig, inject_adapter_in_model

    torch.manual_seed(settings.seed)  # the factors' initial values
    config = LoraConfig(r=settings.rank, lora_alpha=settings.alpha,
                        lora_dropout=settings.dropout, target_modules=TARGETS)
    inject_adapter_in_model(config, model[0].model)
    for name, param in model.named_parameters():
        param.requires_grad = "lora_" in name


def train_lora(
    model: Any, rows: dict[str, list[str]], settings: LoraSettings,
    on_step: Callable[[int, float], None] | None = None,
) -> tuple[int, float]:
    """MultipleNegativesRankingLoss over (anchor, positive, hard negative) rows, batch i
    being rows [i*b, (i+1)*b); resumes from ``out/checkpoint.pt``. Returns (steps, seconds)."""
    torch.manual_seed(settings.seed)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=settings.learning_rate)
    warmup = max(1, int(WARMUP_SHARE * settings.steps))
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(
        (s + 1) / warmup, max(0.0, (settings.steps - s) / (settings.steps - warmup + 1))))
    checkpoint = settings.out / "checkpoint.pt"
    step, spent = 0, 0.0
    if checkpoint.exists():
        state = torch.load(checkpoint, weights_only=False)
        model.load_state_dict(state["lora"], strict=False)
        optimizer.load_state_dict(state["optimizer"])
        schedule.load_state_dict(state["schedule"])
        step, spent = state["step"], state["seconds"]
        torch.set_rng_state(state["rng"])  # dropout masks as an unbroken run draws them
    model.train()
    began = time.perf_counter() - spent
    b = settings.batch_size
    while step < settings.steps:
        batch = {k: v[step * b : (step + 1) * b] for k, v in rows.items()}
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=settings.bf16):
            q, p, n = (_embed(model, batch[k]) for k in ("anchor", "positive", "negative"))
        scores = SCALE * q.float() @ torch.cat([p, n]).float().T  # (b, 2b)
        loss = torch.nn.functional.cross_entropy(scores, torch.arange(len(q)))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
        step += 1
        if step % settings.save_steps == 0 or step == settings.steps:
            settings.out.mkdir(parents=True, exist_ok=True)
            lora = {k: v for k, v in model.state_dict().items() if "lora_" in k}
            torch.save({"lora": lora, "optimizer": optimizer.state_dict(),
                        "schedule": schedule.state_dict(), "step": step,
                        "seconds": time.perf_counter() - began,
                        "rng": torch.get_rng_state()}, checkpoint.with_suffix(".tmp"))
            checkpoint.with_suffix(".tmp").replace(checkpoint)
        if on_step:  # after the checkpoint: a run stopped here resumes at the next step
            on_step(step, float(loss))
    model.eval()
    return step, time.perf_counter() - began


def _embed(model: Any, texts: list[str]) -> torch.Tensor:
    features = model.preprocess(texts)  # input_ids etc., (b, t)
    return model(features)["sentence_embedding"]  # (b, d), unit rows


def export_lora(model: Any, settings: LoraSettings, *, base: str) -> int:
    """Write the factors as ``adapter.safetensors`` + ``adapter.json``; returns the layers."""
    from safetensors.torch import save_file

    factors = {}
    for name, layer in model[0].named_modules():
        if hasattr(layer, "lora_A") and "default" in layer.lora_A:
            factors[f"{name}.lora_A"] = layer.lora_A["default"].weight.detach().float().contiguous()
            factors[f"{name}.lora_B"] = layer.lora_B["default"].weight.detach().float().contiguous()
    settings.out.mkdir(parents=True, exist_ok=True)
    save_file(factors, str(settings.out / WEIGHTS))
    (settings.out / CONFIG).write_text(json.dumps(
        {"base": base, "rank": settings.rank, "alpha": settings.alpha}, indent=2))
    return len(factors) // 2


def merge_lora(module: torch.nn.Module, folder: Path) -> int:
    """Add the folder's low-rank updates to ``module``'s layers; returns how many layers."""
    from safetensors.torch import load_file

    config = json.loads((folder / CONFIG).read_text())
    scale = float(config["alpha"]) / float(config["rank"])
    factors = load_file(str(folder / WEIGHTS))
    layers = dict(module.named_modules())
    names = {key.rsplit(".", 1)[0] for key in factors}
    for name in names:
        layer = layers.get(name)
        if not isinstance(layer, torch.nn.Linear):
            raise EncoderLoadError(f"adapter {folder} adapts {name!r}, which the model lacks")
        a = factors[f"{name}.lora_A"].float()  # (r, in)
        b = factors[f"{name}.lora_B"].float()  # (out, r)
        with torch.no_grad():
            layer.weight += (scale * b @ a).to(layer.weight.dtype)  # (out, in)
    return len(names)
