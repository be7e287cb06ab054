"""Training checkpoints: written whole or not at all, refused when they do not fit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from embedstore.errors import UserInputError

CHECKPOINT_FILE = "checkpoint.pt"
# Settings a resumed run may change: they do not alter what was learnt so far.
RESUMABLE_CHANGES = frozenset({"steps", "checkpoint_every"})


def save_checkpoint(path: Path, state: dict[str, Any]) -> None:
    """Atomically replace the checkpoint: a kill mid-write leaves the previous one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    torch.save(state, partial)
    partial.replace(path)


def load_checkpoint(path: Path, train_config: dict[str, Any]) -> dict[str, Any] | None:
    """The checkpoint at ``path`` if there is one, after checking it is this run's."""
    if not path.is_file():
        return None
    state: dict[str, Any] = torch.load(path, map_location="cpu", weights_only=True)
    saved = state["train_config"]
    differing = sorted(
        key for key in set(saved) | set(train_config)
        if key not in RESUMABLE_CHANGES and saved.get(key) != train_config.get(key)
    )
    if differing:
        changes = ", ".join(f"{k}: {saved.get(k)!r} -> {train_config.get(k)!r}" for k in differing)
        raise UserInputError(
            f"the checkpoint in {path.parent} was trained with other settings ({changes}); "
            "resume with the same settings, or start over with --no-resume or another --out"
        )
    return state
