"""Distil a teacher sentence-transformer into a small PLT on the user's own corpus.

Each step encodes a sample of chunks plus a sample of (docstring, code) pairs;
the loss pulls every vector towards the teacher's (cosine or MSE) and,
weighted by ``contrastive_weight``, each docstring towards its own code and
away from the others in the batch. AdamW, linear warm-up then cosine decay, gradient clipping,
periodic checkpoints that a re-run resumes from.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import torch

from embedstore.encoders.device import best_device
from embedstore.encoders.plt.checkpoint import CHECKPOINT_FILE, load_checkpoint, save_checkpoint
from embedstore.encoders.plt.config import PLTConfig
from embedstore.encoders.plt.embedder import PLTEmbedder, pad_left, token_counter, token_ids
from embedstore.encoders.plt.folder import save_folder
from embedstore.encoders.plt.losses import DISTILL_LOSSES, contrastive_loss, distill_loss
from embedstore.encoders.registry import load_encoder
from embedstore.progress import NullProgress, Progress
from embedstore.tuning.plt_data import EmbeddingText, TrainingCorpus, build_training_corpus
from embedstore.tuning.plt_teacher import (
    load_tokenizer,
    teacher_source,
    teacher_targets,
    teacher_token_table,
)

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

TRAIN_DIR = "train"  # under the output folder: checkpoint and teacher cache
TRAINING_FILE = "training.json"


@dataclass(frozen=True)
class TrainConfig:
    teacher: str = "all-MiniLM-L6-v2"
    # The student; its loops at training are its loops at inference.
    loops: int = 2
    d_model: int = 256
    n_layers: int = 2
    n_heads: int = 4
    n_kv_heads: int = 2
    ffn_size: int | None = None  # SwiGLU hidden size; None: 8/3 of d_model
    window: int = 64
    max_tokens: int = 256
    position: str = "rope"
    pooling: str = "last"
    init: str = "normal"
    init_from_teacher: bool = True  # start from the teacher's token embeddings
    # The optimisation.
    steps: int = 2000
    batch_size: int = 32  # chunks per step
    pair_batch_size: int = 16  # (docstring, code) pairs per step, the contrastive batch
    lr: float = 1e-3
    min_lr_ratio: float = 0.1  # the cosine decays to lr * this
    warmup_steps: int = 100
    weight_decay: float = 0.01
    clip_norm: float = 1.0
    loss: str = "cosine"
    # Off by default: on the standard library it lowered held-out retrieval
    # (bench/plt_loops.py, --contrastive-weight); the pairs still serve as
    # distillation texts, and the term is still logged.
    contrastive_weight: float = 0.0
    temperature: float = 0.05
    # The data.
    max_chunks: int | None = 20_000
    max_pairs: int | None = 5_000
    checkpoint_every: int = 200
    seed: int = 0

    def __post_init__(self) -> None:
        if self.loss not in DISTILL_LOSSES:
            raise ValueError(f"unknown loss {self.loss!r}; valid: {', '.join(DISTILL_LOSSES)}")
        for name in ("steps", "batch_size", "lr", "temperature", "checkpoint_every"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        for name in ("pair_batch_size", "warmup_steps", "weight_decay", "contrastive_weight"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative, got {getattr(self, name)}")
        # The student's own fields fail now, not after minutes of preparation.
        self.model_config(vocab_size=1, proj_dim=None)

    def model_config(self, *, vocab_size: int, proj_dim: int | None) -> PLTConfig:
        # 8/3 of the width gives SwiGLU's three matrices the cost of a plain 4x MLP's two.
        ffn_size = self.ffn_size or self.d_model * 8 // 3
        return PLTConfig(
            vocab_size=vocab_size, d_model=self.d_model, n_layers=self.n_layers,
            n_heads=self.n_heads, n_kv_heads=self.n_kv_heads, ffn_size=ffn_size,
            loops=self.loops, window=self.window, max_seq_len=self.max_tokens,
            position=self.position, pooling=self.pooling, init=self.init, proj_dim=proj_dim,
        )


@dataclass
class StepLog:
    step: int  # 1-based
    loss: float
    distill: float
    contrastive: float
    lr: float
    seconds: float


@dataclass
class Prepared:
    """Everything a run needs before its first step; shared by runs of other sizes."""

    tokenizer: PreTrainedTokenizerBase
    corpus: TrainingCorpus
    ids: list[list[int]]  # token ids of corpus.texts
    targets: np.ndarray  # (n, teacher dim) teacher unit vectors of corpus.texts
    token_table: torch.Tensor | None  # the teacher's (V, d) token embeddings


@dataclass
class TrainResult:
    folder: Path
    history: list[StepLog]
    resumed_from: int  # 0 for a fresh run

    @property
    def seconds_per_step(self) -> float:
        return sum(s.seconds for s in self.history) / max(1, len(self.history))


def lr_factor(step: int, warmup: int, total: int, floor: float) -> float:
    """Linear warm-up to 1 over ``warmup`` steps, then cosine down to ``floor`` at ``total``."""
    if step < warmup:
        return (step + 1) / warmup
    done = min(1.0, (step - warmup) / max(1, total - warmup))
    return floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * done))


def prepare(
    corpus_root: Path,
    config: TrainConfig,
    *,
    text_of: EmbeddingText,
    cache_dir: Path | None = None,
    progress: Progress | None = None,
) -> Prepared:
    """Chunk the corpus, mine pairs, and have the teacher embed every text."""
    source = teacher_source(config.teacher)
    tokenizer = load_tokenizer(source)
    teacher = load_encoder(config.teacher)

    corpus = build_training_corpus(
        corpus_root, count_tokens=token_counter(tokenizer), max_tokens=config.max_tokens,
        text_of=text_of, max_chunks=config.max_chunks, max_pairs=config.max_pairs,
        seed=config.seed, progress=progress,
    )
    if not corpus.texts:
        raise ValueError(f"no text to train on under {corpus_root}")
    targets = teacher_targets(teacher, corpus.texts, cache_dir=cache_dir, progress=progress)
    table = teacher_token_table(source, len(tokenizer)) if config.init_from_teacher else None
    ids = token_ids(tokenizer, corpus.texts, config.max_tokens)
    return Prepared(tokenizer, corpus, ids, targets, table)


def train(
    corpus_root: Path,
    out_dir: Path,
    config: TrainConfig,
    *,
    text_of: EmbeddingText,
    resume: bool = True,
    progress: Progress | None = None,
    on_step: Callable[[StepLog], None] | None = None,
) -> TrainResult:
    """Prepare the data, then fit; the model lands in ``out_dir`` (config, weights, tokenizer)."""
    prepared = prepare(
        corpus_root, config, text_of=text_of, cache_dir=out_dir / TRAIN_DIR, progress=progress
    )
    return fit(prepared, config, out_dir, resume=resume, progress=progress, on_step=on_step)


def fit(
    prepared: Prepared,
    config: TrainConfig,
    out_dir: Path,
    *,
    resume: bool = True,
    progress: Progress | None = None,
    on_step: Callable[[StepLog], None] | None = None,
) -> TrainResult:
    ui = progress or NullProgress()
    device = best_device()
    torch.manual_seed(config.seed)
    model_config = config.model_config(
        vocab_size=len(prepared.tokenizer), proj_dim=prepared.targets.shape[1]
    )
    embedder = PLTEmbedder(model_config)
    if prepared.token_table is not None:
        embedder.backbone.load_token_embeddings(prepared.token_table)
    embedder.to(device).train()
    optimizer = _optimizer(embedder, config)
    checkpoint_path = out_dir / TRAIN_DIR / CHECKPOINT_FILE
    history: list[StepLog] = []
    state = load_checkpoint(checkpoint_path, asdict(config)) if resume else None
    if state is not None:
        embedder.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        history = [StepLog(**entry) for entry in state["history"]]
    start = len(history)
    batches = _Batches(prepared, config, device)
    targets = torch.from_numpy(prepared.targets).to(device)  # (n, teacher dim)

    ui.start("train", config.steps)
    ui.advance("train", start)
    for step in range(start, config.steps):
        began = time.perf_counter()
        for group in optimizer.param_groups:
            group["lr"] = config.lr * lr_factor(
                step, config.warmup_steps, config.steps, config.min_lr_ratio
            )
        rows, pairs, (input_ids, mask) = batches.at(step)
        vectors = embedder(input_ids, mask)  # (B + 2P, teacher dim)
        distill = distill_loss(vectors, targets[rows], config.loss)
        contrastive = (
            contrastive_loss(vectors[pairs[0]], vectors[pairs[1]], config.temperature)
            if len(pairs[0]) > 1 else torch.zeros((), device=device)
        )
        loss = distill + config.contrastive_weight * contrastive
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(embedder.parameters(), config.clip_norm)
        optimizer.step()
        log = StepLog(
            step + 1, loss.item(), distill.item(), contrastive.item(),
            optimizer.param_groups[0]["lr"], time.perf_counter() - began,
        )
        history.append(log)
        ui.advance("train")
        if on_step is not None:
            on_step(log)
        if log.step % config.checkpoint_every == 0 or log.step == config.steps:
            save_checkpoint(checkpoint_path, {
                "model": embedder.state_dict(), "optimizer": optimizer.state_dict(),
                "history": [asdict(entry) for entry in history],
                "train_config": asdict(config),
            })
    ui.finish("train")
    embedder.eval()
    save_folder(embedder.cpu(), prepared.tokenizer, out_dir)
    (out_dir / TRAINING_FILE).write_text(json.dumps({
        "train_config": asdict(config),
        "texts": len(prepared.corpus.texts), "pairs": len(prepared.corpus.pairs),
        "history": [asdict(entry) for entry in history],
    }, indent=1) + "\n")
    return TrainResult(out_dir, history, start)


def _optimizer(embedder: PLTEmbedder, config: TrainConfig) -> torch.optim.AdamW:
    # Weight decay on matrices only: decaying norm gains pulls them towards 0, not towards 1.
    params = [p for p in embedder.parameters() if p.requires_grad]
    return torch.optim.AdamW(
        [
            {"params": [p for p in params if p.ndim >= 2], "weight_decay": config.weight_decay},
            {"params": [p for p in params if p.ndim < 2], "weight_decay": 0.0},
        ],
        lr=config.lr, betas=(0.9, 0.95),
    )


class _Batches:
    """Step -> its batch, drawn from a seed of (run seed, step): a resumed run draws the same."""

    def __init__(self, prepared: Prepared, config: TrainConfig, device: str) -> None:
        self.ids = prepared.ids
        self.pairs = prepared.corpus.pairs
        self.chunks = min(config.batch_size, len(self.ids))
        self.pair_count = min(config.pair_batch_size, len(self.pairs))
        self.seed = config.seed
        self.pad_id = prepared.tokenizer.pad_token_id or 0
        self.device = device

    def at(
        self, step: int
    ) -> tuple[list[int], tuple[list[int], list[int]], tuple[torch.Tensor, torch.Tensor]]:
        """(text rows, (query positions, code positions) in the batch, (ids, mask))."""
        rng = np.random.default_rng([self.seed, step])
        chosen = rng.choice(len(self.ids), size=self.chunks, replace=False).tolist()
        picked = rng.choice(len(self.pairs), size=self.pair_count, replace=False).tolist()
        rows = chosen + [self.pairs[i][0] for i in picked] + [self.pairs[i][1] for i in picked]
        queries = list(range(self.chunks, self.chunks + self.pair_count))
        codes = [q + self.pair_count for q in queries]
        batch = pad_left([self.ids[r] for r in rows], self.pad_id, self.device)
        return rows, (queries, codes), batch
