"""An existing collection's encoder, loaded only when a re-index run has texts to encode.

Re-indexing a large tree after an edit is mostly starting the model: importing
torch, loading the weights and probing the fast path take several seconds,
against well under one for the few chunks of an edited file. So the run's
encoder answers the manifest's questions (name, dimension, pooling) from the
manifest, counts tokens with the store's ONNX export of the model when there is
one (its tokenizer gives the model's counts exactly; a test checks), encodes a
handful of texts with that export, and loads the model only for more. Both
paths are the same model at parity with fp32 (the export is kept only at mean
cosine >= 0.999, the model's fast path the same), so a collection may hold
vectors from both, as its queries already come from the export.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from embedstore.encoders.base import BatchCallback, Encoder, TextKind
from embedstore.encoders.onnx_model import load_exported
from embedstore.encoders.registry import load_encoder
from embedstore.errors import EncoderMismatchError
from embedstore.store.manifest import Manifest

# Texts per encode call that go to the export while the model is not loaded. On
# the 2-core development CPU the export encodes about 12 chunk texts/s and
# starting the model costs about 7 s, after which it runs at about 65/s: the
# export is quicker up to roughly 100 texts. Below the indexer's parking group
# (PARK_EVERY), so a large run's first call already loads the model.
EXPORT_MAX_TEXTS = 64


class DeferredEncoder:
    """The encoder ``manifest`` names, with the model loaded on first need (see module doc)."""

    def __init__(self, manifest: Manifest, store_root: Path, precision: str) -> None:
        """``precision``: what the collection's documents were encoded in (its manifest's)."""
        self._manifest = manifest
        self._recorded_precision = precision
        self._export = load_exported(store_root, manifest.encoder, manifest.pooling)
        self._model: Encoder | None = None

    @property
    def model(self) -> Encoder | None:
        """The model, if this run has loaded it."""
        return self._model

    @property
    def name(self) -> str:
        return self._manifest.encoder

    @property
    def revision(self) -> str | None:
        return self._manifest.encoder_revision

    @property
    def dim(self) -> int:
        return self._manifest.dim

    @property
    def pooling(self) -> str:
        return self._manifest.pooling

    @property
    def precision(self) -> str:
        return self._recorded_precision

    @property
    def max_tokens(self) -> int:
        return (self._export or self._load()).max_tokens

    def count_tokens(self, texts: list[str]) -> list[int]:
        if not texts:  # a run that only deletes files asks for no count
            return []
        return (self._export or self._load()).count_tokens(texts)

    def encode(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = 32,
        kind: TextKind = "document",
        on_batch: BatchCallback | None = None,
    ) -> np.ndarray:
        few = self._model is None and len(texts) <= EXPORT_MAX_TEXTS
        encoder = self._export if few and self._export is not None else self._load()
        return encoder.encode(texts, batch_size=batch_size, kind=kind, on_batch=on_batch)

    def _load(self) -> Encoder:
        if self._model is None:
            # Precision None: the machine's own choice ($EMBEDSTORE_PRECISION, else auto).
            model = load_encoder(self._manifest.encoder, self._manifest.pooling, None)
            if model.dim != self._manifest.dim:
                raise EncoderMismatchError(
                    f"encoder {self._manifest.encoder!r} now gives {model.dim}-d vectors but the "
                    f"collection holds {self._manifest.dim}-d ones; re-index with --rebuild"
                )
            self._model = model
        return self._model
