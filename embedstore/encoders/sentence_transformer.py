"""Any sentence-transformers model as a pipeline: model -> pooling -> normalise."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from embedstore.encoders.adapter import merge_adapter
from embedstore.encoders.base import BatchCallback, TextKind, encode_in_batches
from embedstore.encoders.device import best_device
from embedstore.encoders.pooling import Normalize, Pooling, resolve_pooling
from embedstore.encoders.precision import autocast, choose_precision
from embedstore.encoders.streams import Streams
from embedstore.errors import EncoderLoadError

# sentence-transformers' names for its pooling modes -> ours.
_ST_POOLING_NAMES = {
    "mean": "mean",
    "cls": "cls",
    "max": "max",
    "lasttoken": "last",
    "weightedmean": "weighted_mean",
}
# Legacy (sentence-transformers < 4) boolean flags in 1_Pooling/config.json.
_ST_POOLING_FLAGS = {
    "pooling_mode_cls_token": "cls",
    "pooling_mode_mean_tokens": "mean",
    "pooling_mode_max_tokens": "max",
    "pooling_mode_lasttoken": "last",
    "pooling_mode_weightedmean_tokens": "weighted_mean",
}


def recommended_pooling(pooling_config: dict[str, Any]) -> str:
    """Our name for the pooling a sentence-transformers Pooling config asks for."""
    mode = pooling_config.get("pooling_mode")
    if isinstance(mode, list | tuple) and len(mode) == 1:
        mode = mode[0]
    if isinstance(mode, str) and mode in _ST_POOLING_NAMES:
        return _ST_POOLING_NAMES[mode]
    for flag, name in _ST_POOLING_FLAGS.items():
        if pooling_config.get(flag):
            return name
    return "mean"


def open_model(source: str, device: str, adapter: Path | None = None) -> Any:
    """A sentence-transformers model from a folder or hub name, with ``adapter`` merged in."""
    # Imported here: sentence-transformers takes seconds to import and the
    # CLI's fast paths (list, info, rm) never need it.
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    # Per-weight loading bars would garble the CLI's own progress display.
    hf_logging.disable_progress_bar()
    try:
        model = SentenceTransformer(source, device=device)
    except (OSError, ValueError) as exc:
        raise EncoderLoadError(
            f"cannot load sentence-transformers model {source!r}: {exc}. "
            "Give a local model folder, or a hub name on a machine with internet."
        ) from exc
    if adapter is not None:
        merge_adapter(model[0], adapter)
    return model


class SentenceTransformerEncoder:
    """A sentence-transformers model whose own pooling stage we replace by ours.

    The model's token-level module produces token states; our Pooling turns them
    into one vector; any modules the model has after pooling (a Dense
    projection, say) run next; Normalize comes last.
    """

    def __init__(
        self,
        source: str,
        *,
        name: str,
        revision: str | None = None,
        adapter: Path | None = None,
        pooling: str | None = None,
        device: str | None = None,
        precision: str | None = None,
    ) -> None:
        self._name = name
        self._revision = revision
        self._device = device or best_device()
        model = open_model(source, self._device, adapter)
        model.eval()
        # Any: sentence-transformers modules carry methods that torch's stubs hide.
        modules: list[Any] = list(model)
        pool_at = next(
            (i for i, m in enumerate(modules) if type(m).__name__ == "Pooling"), None
        )
        if pool_at is None:
            raise EncoderLoadError(f"model {source!r} has no Pooling module to take pooling from")
        self._recommended = recommended_pooling(modules[pool_at].get_config_dict())
        self._pooling_name = resolve_pooling(pooling, self._recommended, name)
        self._token_model: Any = modules[0]
        # eval(): a new Module is in training mode, and the ONNX exporter restores
        # that mode on every submodule afterwards, turning dropout on.
        self._pipeline = Pipeline(
            self._token_model,
            Pooling(self._pooling_name),
            torch.nn.Sequential(
                *(m for m in modules[pool_at + 1 :] if type(m).__name__ != "Normalize")
            ),
        ).eval()
        self._dim = int(model.get_embedding_dimension() or 0)
        self._max_tokens = int(model.max_seq_length or self._token_model.tokenizer.model_max_length)
        self._prompts: dict[str, str] = dict(getattr(model, "prompts", {}) or {})
        self._tokenizer = self._token_model.tokenizer
        # A fast tokenizer's truncation setting is shared state that each call sets:
        # counting (whole texts) and encoding (truncated) from two threads would mix.
        self._tokenizer_lock = threading.Lock()
        self._streams = Streams(self._device)
        # None: EMBEDSTORE_PRECISION, else auto (the fast path if it passes the parity check).
        self._precision = choose_precision(self._device, self._probe, precision)

    @property
    def name(self) -> str:
        return self._name

    @property
    def revision(self) -> str | None:
        return self._revision

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def max_tokens(self) -> int:
        return self._max_tokens

    @property
    def pooling(self) -> str:
        return self._pooling_name

    @property
    def recommended_pooling(self) -> str:
        return self._recommended

    @property
    def device(self) -> str:
        return self._device

    @property
    def precision(self) -> str:
        """fp32, or the reduced precision that passed the parity check (bf16, fp16)."""
        return self._precision

    def encode_exact(self, texts: list[str]) -> np.ndarray:
        """(n,) texts -> (n, D) vectors on the fp32 path, whatever precision encode uses."""
        return self._probe(texts, "fp32")

    def _probe(self, texts: list[str], precision: str) -> np.ndarray:
        return self._encode_ids(self._token_ids(texts), precision)

    def count_tokens(self, texts: list[str]) -> list[int]:
        if not texts:
            return []
        with self._tokenizer_lock:
            encoded = self._tokenizer(texts, add_special_tokens=True, verbose=False)
        return [len(ids) for ids in encoded["input_ids"]]

    def encode(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = 32,
        kind: TextKind = "document",
        on_batch: BatchCallback | None = None,
    ) -> np.ndarray:
        prompt = self._prompts.get(kind, "")
        # Tokenised once, up front: batches are then grouped by token count, which
        # pads far less than grouping by characters as sentence-transformers does.
        return self.encode_ids(
            self._token_ids([prompt + t for t in texts]), batch_size=batch_size, on_batch=on_batch
        )

    def encode_ids(
        self,
        rows: list[list[int]],
        *,
        batch_size: int = 32,
        on_batch: BatchCallback | None = None,
    ) -> np.ndarray:
        """Token-id rows as the model reads them (special tokens in, at most max_tokens)
        -> float32 (n, D) unit rows."""
        return encode_in_batches(
            rows, self._encode_ids, dim=self._dim, batch_size=batch_size, on_batch=on_batch,
            run=self._streams.map, same_length=True,
        )

    @property
    def pipeline(self) -> Pipeline:
        """The model as one module over token tensors (what embedstore.encoders.onnx exports)."""
        return self._pipeline

    @property
    def tokenizer(self) -> Any:
        """The model's Hugging Face tokenizer."""
        return self._tokenizer

    @property
    def prompts(self) -> dict[str, str]:
        """Text put before each input, by kind ("query", "document"), when the model has prompts."""
        return dict(self._prompts)

    @property
    def lowercases(self) -> bool:
        """Whether sentence-transformers lowercases texts before tokenising for this model."""
        return bool(getattr(self._token_model, "do_lower_case", False))

    def tokenize(self, texts: list[str]) -> dict[str, torch.Tensor]:
        """Texts -> the pipeline's tensor inputs (input_ids, attention_mask, ...) on the device."""
        features = self._token_model.preprocess(texts)
        return {k: v.to(self._device) for k, v in features.items() if k in PIPELINE_INPUTS}

    def _token_ids(self, texts: list[str]) -> list[list[int]]:
        """Unpadded token ids, made as sentence-transformers' preprocess makes them."""
        cleaned = [t.strip() for t in texts]
        if self.lowercases:
            cleaned = [t.lower() for t in cleaned]
        with self._tokenizer_lock:
            encoded = self._tokenizer(
                cleaned, truncation="longest_first", max_length=self._max_tokens, verbose=False
            )
        return [list(ids) for ids in encoded["input_ids"]]

    @torch.inference_mode()
    def _encode_ids(self, ids: list[list[int]], precision: str | None = None) -> np.ndarray:
        """One batch of token-id rows -> (B, D), in ``precision`` (default: the chosen one)."""
        padded = self._tokenizer.pad({"input_ids": ids}, return_tensors="pt")
        with autocast(self._device, precision or self._precision):
            vectors = self._pipeline(
                padded["input_ids"].to(self._device), padded["attention_mask"].to(self._device)
            )  # (B, D)
        return vectors.float().cpu().numpy()


# The tensors a pipeline takes, in the order of Pipeline.forward.
PIPELINE_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


class Pipeline(torch.nn.Module):
    """model -> pooling -> (projection) -> normalise over token tensors: (B, T) ids -> (B, D)."""

    def __init__(self, token_model: Any, pool: Pooling, after_pool: torch.nn.Module) -> None:
        super().__init__()
        self.token_model = token_model
        self.pool = pool
        self.after_pool = after_pool
        self.normalize = Normalize()

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
    ) -> torch.Tensor:
        features = {"input_ids": input_ids, "attention_mask": attention_mask}
        if token_type_ids is not None:
            features["token_type_ids"] = token_type_ids
        states = self.token_model(features)["token_embeddings"]  # (B, T, H)
        # Pooling in fp32 whatever the autocast: a masked mean over bf16 loses digits.
        pooled = self.pool(states.float(), attention_mask)  # (B, H)
        projected = self.after_pool({"sentence_embedding": pooled})["sentence_embedding"]  # (B, D)
        return self.normalize(projected)  # (B, D)

