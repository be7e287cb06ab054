"""Fine-tune with sentence-transformers' own trainer and MultipleNegativesRankingLoss."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from embedstore.encoders.device import best_device
from embedstore.errors import UserInputError
from embedstore.progress import NullProgress, Progress

# Our pooling names -> sentence-transformers' Pooling modes.
ST_POOLING = {"mean": "mean", "cls": "cls", "max": "max", "last": "lasttoken",
              "weighted_mean": "weightedmean"}


@dataclass(frozen=True)
class TrainSettings:
    out: Path
    epochs: float = 1.0
    steps: int | None = None  # overrides epochs
    minutes: float | None = None  # stop after this much training time
    batch_size: int = 32
    learning_rate: float = 2e-5
    seed: int = 0
    resume: bool = False
    bf16: bool = False
    save_steps: int = 50


def set_pooling(model: Any, pooling: str) -> None:
    """Replace the model's Pooling module by one of ``pooling`` (our name)."""
    from sentence_transformers.sentence_transformer.modules import Pooling

    if pooling not in ST_POOLING:
        raise ValueError(f"unknown pooling {pooling!r}; valid: {', '.join(ST_POOLING)}")
    for index, module in enumerate(model):
        if type(module).__name__ == "Pooling":
            dim = module.get_sentence_embedding_dimension()
            model[index] = Pooling(dim, pooling_mode=ST_POOLING[pooling])
            return
    raise ValueError("the model has no Pooling module to replace")


def train(
    model: Any, rows: dict[str, list[str]], settings: TrainSettings,
    progress: Progress | None = None,
) -> tuple[int, float]:
    """Train ``model`` in place on anchor/positive/negative rows; returns (steps, seconds).

    Checkpoints go to ``out/checkpoints`` every ``save_steps`` steps, so
    ``resume`` picks up after a kill. The trainer's own progress bar shows the
    loss, steps/s and the time left.
    """
    from datasets import Dataset
    from sentence_transformers import (
        SentenceTransformerTrainer,
        SentenceTransformerTrainingArguments,
    )
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss
    from transformers import TrainerCallback

    if len(rows["anchor"]) < settings.batch_size:
        raise UserInputError(
            f"only {len(rows['anchor'])} training pairs, fewer than one batch of "
            f"{settings.batch_size}: add repositories or lower --batch-size"
        )
    ui = progress or NullProgress()
    began = time.perf_counter()

    class TimeLimit(TrainerCallback):
        """Stop at --minutes; report steps to embedstore's own progress."""

        def on_step_end(self, args: Any, state: Any, control: Any, **_: Any) -> Any:
            ui.advance("train")
            if settings.minutes is not None and (
                time.perf_counter() - began > 60 * settings.minutes
            ):
                control.should_training_stop = True
                control.should_save = True
            return control

    args = SentenceTransformerTrainingArguments(
        output_dir=str(settings.out / "checkpoints"),
        num_train_epochs=settings.epochs,
        max_steps=settings.steps if settings.steps is not None else -1,
        per_device_train_batch_size=settings.batch_size,
        learning_rate=settings.learning_rate,
        warmup_steps=0.1,  # a float: a share of the steps
        seed=settings.seed,
        data_seed=settings.seed,
        bf16=settings.bf16,
        use_cpu=best_device() == "cpu",
        # Duplicate texts in one batch would be false in-batch negatives.
        batch_sampler="no_duplicates",
        save_steps=settings.save_steps,
        save_total_limit=2,
        logging_steps=10,
        report_to="none",
        dataloader_drop_last=True,
    )
    trainer = SentenceTransformerTrainer(
        model=model, args=args, train_dataset=Dataset.from_dict(rows),
        loss=MultipleNegativesRankingLoss(model), callbacks=[TimeLimit()],
    )
    ui.start("train", None)
    resume = settings.resume and any((settings.out / "checkpoints").glob("checkpoint-*"))
    result = trainer.train(resume_from_checkpoint=True if resume else None)
    ui.finish("train")
    return int(result.global_step), time.perf_counter() - began
