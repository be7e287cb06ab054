"""The teacher sentence-transformer: its vectors, tokenizer and token table.

The student shares the teacher's tokenizer, so that token counts (hence
chunks) agree and the teacher's token embeddings can start the student's.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import torch

from embedstore.encoders.base import Encoder
from embedstore.encoders.registry import canonical_spec, model_source
from embedstore.errors import EncoderLoadError
from embedstore.progress import NullProgress, Progress

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

# Names of the token-embedding table in BERT-like and Llama-like checkpoints.
TOKEN_TABLE_SUFFIXES = ("word_embeddings.weight", "embed_tokens.weight")


def teacher_source(spec: str) -> str:
    """Where the teacher's files are: a local folder, a bundled package's folder, or a hub
    name (an adapted model's base's: the adapter leaves the token table as it is)."""
    return model_source(canonical_spec(spec)).source


def load_tokenizer(source: str) -> PreTrainedTokenizerBase:
    from transformers import AutoTokenizer

    try:
        return AutoTokenizer.from_pretrained(source)
    except (OSError, ValueError) as exc:
        raise EncoderLoadError(f"cannot load the tokenizer of {source!r}: {exc}") from exc


def teacher_token_table(source: str, vocab_size: int) -> torch.Tensor | None:
    """The teacher's (V, d) token embeddings, or None when its files are not local."""
    from safetensors import safe_open

    folder = Path(source)
    if not folder.is_dir():
        return None
    for weights in sorted(folder.rglob("*.safetensors")):
        with safe_open(str(weights), framework="pt") as tensors:
            for key in tensors.keys():  # noqa: SIM118 - safe_open is not a dict
                if key.endswith(TOKEN_TABLE_SUFFIXES):
                    table = tensors.get_tensor(key)
                    if table.ndim == 2 and table.shape[0] == vocab_size:
                        return table
    return None


def teacher_targets(
    teacher: Encoder,
    texts: Sequence[str],
    *,
    cache_dir: Path | None = None,
    batch_size: int = 32,
    progress: Progress | None = None,
) -> np.ndarray:
    """The teacher's (n, d) unit vectors of ``texts``, cached under ``cache_dir``.

    Encoding with the teacher is the slowest part of preparing a run, and a
    resumed run has the same texts: the cache is keyed by teacher and texts.
    """
    key = hashlib.sha256(f"{teacher.name}\0{teacher.revision}".encode())
    for text in texts:
        key.update(b"\0" + text.encode())
    cached = cache_dir / f"teacher-{key.hexdigest()[:16]}.npy" if cache_dir else None
    if cached is not None and cached.is_file():
        return np.load(cached)
    ui = progress or NullProgress()
    ui.start("teacher", len(texts))
    vectors = teacher.encode(
        texts, batch_size=batch_size, on_batch=lambda n: ui.advance("teacher", n)
    )
    ui.finish("teacher")
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(".partial")
        with partial.open("wb") as file:  # a file object: np.save would append ".npy"
            np.save(file, vectors)
        partial.replace(cached)  # whole or absent, even if the run is killed here
    return vectors
