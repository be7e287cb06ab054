"""A PLT on disk: config.json, model.safetensors and the tokenizer's files in one folder."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

from safetensors.torch import load_model, save_model

from embedstore.encoders.plt.config import PLTConfig
from embedstore.encoders.plt.embedder import PLTEmbedder
from embedstore.errors import EncoderLoadError

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

CONFIG_FILE = "config.json"
WEIGHTS_FILE = "model.safetensors"


def save_folder(
    embedder: PLTEmbedder, tokenizer: PreTrainedTokenizerBase, folder: Path
) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    embedder.config.save(folder / CONFIG_FILE)
    # save_model, not save_file: it stores a tied head's shared tensor once.
    save_model(embedder, str(folder / WEIGHTS_FILE))
    tokenizer.save_pretrained(str(folder))


def read_config(folder: Path) -> PLTConfig:
    """The folder's PLTConfig; EncoderLoadError if the folder is not a PLT."""
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise EncoderLoadError(
            f"PLT folder {str(folder)!r} {what}: give the folder `embedstore plt train "
            f"--out DIR` wrote (with {CONFIG_FILE} and {WEIGHTS_FILE})"
        )
    missing = [name for name in (CONFIG_FILE, WEIGHTS_FILE) if not (folder / name).is_file()]
    if missing:
        raise EncoderLoadError(
            f"{folder} is not a PLT folder: {', '.join(missing)} missing. "
            "Train one with `embedstore plt train CORPUS --out DIR`."
        )
    try:
        return PLTConfig.load(folder / CONFIG_FILE)
    except (ValueError, TypeError) as exc:
        raise EncoderLoadError(f"{folder / CONFIG_FILE} is not a valid PLT config: {exc}") from exc


def load_folder(
    folder: Path, *, pooling: str | None = None, loops: int | None = None
) -> tuple[PLTEmbedder, PreTrainedTokenizerBase]:
    """The embedder (eval mode, on cpu) and its tokenizer.

    ``loops`` replaces the trained number of loops (the weights do not depend on it).
    """
    config = read_config(folder)
    if loops is not None:
        config = dataclasses.replace(config, loops=loops)
    embedder = PLTEmbedder(config, pooling)
    try:
        load_model(embedder, str(folder / WEIGHTS_FILE))
    except (RuntimeError, OSError) as exc:
        raise EncoderLoadError(
            f"{folder / WEIGHTS_FILE} does not fit its config.json: {exc}"
        ) from exc
    # Imported here: transformers takes seconds to import. Not AutoTokenizer:
    # it would read config.json as a transformers model config, which ours is not.
    from transformers import PreTrainedTokenizerFast

    try:
        tokenizer = PreTrainedTokenizerFast.from_pretrained(str(folder))
    except (OSError, ValueError) as exc:
        raise EncoderLoadError(f"no usable tokenizer in {folder}: {exc}") from exc
    return embedder.eval(), tokenizer


def weights_revision(folder: Path) -> str:
    """A short content hash of the weights: changes whenever the model does."""
    digest = hashlib.sha256((folder / WEIGHTS_FILE).read_bytes()).hexdigest()
    return f"sha256:{digest[:16]}"
