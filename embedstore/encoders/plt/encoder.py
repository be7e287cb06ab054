"""PLTEncoder: a PLT folder as an embedstore Encoder (``--encoder plt:DIR``)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import torch

from embedstore.encoders.base import BatchCallback, TextKind, encode_in_batches
from embedstore.encoders.device import best_device
from embedstore.encoders.plt.embedder import PLTEmbedder, pad_left, token_counter, token_ids
from embedstore.encoders.plt.folder import load_folder, read_config, weights_revision
from embedstore.encoders.pooling import Normalize, resolve_pooling
from embedstore.encoders.streams import Streams

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase


def resolve_loops(requested: int | None, trained: int, model_name: str) -> int:
    """The loops to run: the trained ones unless the user asked for others.

    Others are allowed but warned about: the weights learnt to work with a
    fixed number of loops, and the paper finds quality drops away from it.
    """
    if requested is None:
        return trained
    if requested != trained:
        warnings.warn(
            f"{model_name} was trained with {trained} loops; running {requested} "
            "may lower retrieval quality",
            stacklevel=2,
        )
    return requested


class PLTEncoder:
    """Pipeline: tokens (left-padded) -> PLT -> pooling -> projection -> normalise."""

    def __init__(
        self,
        embedder: PLTEmbedder,
        tokenizer: PreTrainedTokenizerBase,
        *,
        name: str,
        revision: str | None = None,
        device: str | None = None,
    ) -> None:
        self._device = device or best_device()
        self._streams = Streams(self._device)
        self._embedder = embedder.to(self._device).eval()
        self._tokenizer = tokenizer
        self._count_tokens = token_counter(tokenizer)
        self._name = name
        self._revision = revision
        self._normalize = Normalize()

    @classmethod
    def from_folder(
        cls,
        folder: Path,
        *,
        name: str | None = None,
        pooling: str | None = None,
        loops: int | None = None,
        device: str | None = None,
    ) -> PLTEncoder:
        name = name or f"plt:{folder}"
        config = read_config(folder)
        embedder, tokenizer = load_folder(
            folder,
            pooling=resolve_pooling(pooling, config.pooling, name),
            loops=resolve_loops(loops, config.loops, name),
        )
        return cls(embedder, tokenizer, name=name, revision=weights_revision(folder), device=device)

    @property
    def name(self) -> str:
        return self._name

    @property
    def revision(self) -> str | None:
        return self._revision

    @property
    def dim(self) -> int:
        return self._embedder.config.out_dim

    @property
    def max_tokens(self) -> int:
        return self._embedder.config.max_seq_len

    @property
    def pooling(self) -> str:
        return self._embedder.pool.name

    @property
    def precision(self) -> str:
        return "fp32"

    @property
    def recommended_pooling(self) -> str:
        return self._embedder.config.pooling

    @property
    def loops(self) -> int:
        return self._embedder.config.loops

    @property
    def embedder(self) -> PLTEmbedder:
        return self._embedder

    @property
    def tokenizer(self) -> PreTrainedTokenizerBase:
        return self._tokenizer

    def count_tokens(self, texts: list[str]) -> list[int]:
        return self._count_tokens(texts)

    def encode(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = 32,
        kind: TextKind = "document",
        on_batch: BatchCallback | None = None,
    ) -> np.ndarray:
        """(n,) texts -> float32 (n, dim) unit rows; queries and documents alike."""
        ids = token_ids(self._tokenizer, texts, self.max_tokens)
        return encode_in_batches(
            ids, self._encode_batch, dim=self.dim, batch_size=batch_size, on_batch=on_batch,
            run=self._streams.map, same_length=True,
        )

    @torch.inference_mode()
    def _encode_batch(self, ids: list[list[int]]) -> np.ndarray:
        # Any id would do for padding, which the mask hides; the tokenizer's is tidiest.
        pad_id = self._tokenizer.pad_token_id or 0
        input_ids, mask = pad_left(ids, pad_id, self._device)
        vectors = self._embedder(input_ids, mask)  # (B, dim)
        return self._normalize(vectors).float().cpu().numpy()
