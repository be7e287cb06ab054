"""A sentence-transformers model exported to ONNX, encoded without importing torch.

Importing torch and loading a model takes seconds; a query is a dozen tokens.
So each model a store uses is exported once (embedstore.encoders.onnx_export)
into ``<store>/.onnx/<key>/``:

- ``model.onnx``: the whole pipeline, model -> pooling -> normalise, in fp32;
- ``tokenizer.json``: the model's fast tokenizer, read by ``tokenizers``;
- ``encoder.json``: what encode needs besides (prompts, lowercasing, dims).

The key names the model *and* its weights (a bundled package's version, a
local folder's file sizes and times), so an upgraded model never meets an old
export. ``OnnxEncoder`` is an Encoder: search and context use it for queries.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from embedstore.encoders.base import BatchCallback, TextKind, encode_in_batches

EXPORTS_DIR = ".onnx"
MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
CONFIG_FILE = "encoder.json"
# Bumped when the export's layout or graph changes, so old exports are ignored.
EXPORT_FORMAT = 1


@dataclass(frozen=True)
class ExportConfig:
    """encoder.json: everything but the graph and the vocabulary."""

    name: str
    revision: str | None
    pooling: str
    dim: int
    max_tokens: int
    lowercase: bool
    prompts: dict[str, str]
    inputs: list[str]
    parity: float  # mean cosine to the torch fp32 pipeline on the probe texts
    format: int = EXPORT_FORMAT


def export_folder(root: Path, spec: str, pooling: str) -> Path:
    """Where the export of (model, pooling) lives under a store's root."""
    return root / EXPORTS_DIR / export_key(spec, pooling)


def export_key(spec: str, pooling: str) -> str:
    """A short hash of the model spec, its weights' identity and the pooling."""
    identity = json.dumps([EXPORT_FORMAT, spec, pooling, _weights_identity(spec)])
    return hashlib.sha256(identity.encode()).hexdigest()[:16]


def _weights_identity(spec: str) -> list[Any]:
    """Cheap facts that change when the weights do; no file is read."""
    folder = Path(spec)
    if folder.is_dir():
        files = [p for p in folder.iterdir() if p.is_file()]
        return sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in files)
    from embedstore.encoders.registry import bundled_package  # light: no torch

    package = bundled_package(spec)
    return [] if package is None else [package, _installed_version(package)]


@functools.lru_cache(maxsize=8)
def _installed_version(package: str) -> str | None:
    # Cached: reading a package's metadata costs more than encoding a query.
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def has_export(root: Path, spec: str, pooling: str) -> bool:
    """Whether this store holds the ONNX export of (model, pooling)."""
    return (export_folder(root, spec, pooling) / CONFIG_FILE).is_file()


def load_exported(root: Path, spec: str, pooling: str) -> OnnxEncoder | None:
    """The exported encoder of (model, pooling) in this store, or None when there is none."""
    if not has_export(root, spec, pooling):
        return None
    try:
        return _open(export_folder(root, spec, pooling))
    except ImportError:  # onnxruntime missing: the torch encoder still works
        return None


@functools.lru_cache(maxsize=8)
def _open(folder: Path) -> OnnxEncoder:
    return OnnxEncoder(folder)


def read_config(folder: Path) -> ExportConfig:
    return ExportConfig(**json.loads((folder / CONFIG_FILE).read_text()))


class OnnxEncoder:
    """An exported pipeline run by ONNX Runtime, tokenised by ``tokenizers``: no torch."""

    def __init__(self, folder: Path) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        self._config = read_config(folder)
        options = onnxruntime.SessionOptions()
        # Queries come one or a few at a time: more threads than cores only spin.
        options.intra_op_num_threads = min(4, os.cpu_count() or 1)
        options.inter_op_num_threads = 1
        # Idle threads that spin steal the cores FAISS and SQLite need next.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = onnxruntime.InferenceSession(
            str(folder / MODEL_FILE), options, providers=["CPUExecutionProvider"]
        )
        # Saved truncating at max_tokens and padding with the model's pad token;
        # a second copy counts whole texts.
        self._tokenizer = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
        self._counter = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
        self._counter.no_truncation()
        self._counter.no_padding()

    @property
    def name(self) -> str:
        return self._config.name

    @property
    def revision(self) -> str | None:
        return self._config.revision

    @property
    def dim(self) -> int:
        return self._config.dim

    @property
    def max_tokens(self) -> int:
        return self._config.max_tokens

    @property
    def pooling(self) -> str:
        return self._config.pooling

    @property
    def precision(self) -> str:
        return "onnx-fp32"

    def count_tokens(self, texts: list[str]) -> list[int]:
        # _fast: no offsets, which a count does not need.
        return [len(e.ids) for e in self._counter.encode_batch_fast(self._prepare(texts))]

    def encode(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = 32,
        kind: TextKind = "document",
        on_batch: BatchCallback | None = None,
    ) -> np.ndarray:
        prompt = self._config.prompts.get(kind, "")
        return encode_in_batches(
            [prompt + t for t in texts], self._encode_batch,
            dim=self.dim, batch_size=batch_size, on_batch=on_batch,
        )

    def _prepare(self, texts: list[str]) -> list[str]:
        # As sentence-transformers does before tokenising.
        stripped = [t.strip() for t in texts]
        return [t.lower() for t in stripped] if self._config.lowercase else stripped

    def _encode_batch(self, texts: list[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(self._prepare(texts))
        columns = {
            "input_ids": [e.ids for e in encodings],
            "attention_mask": [e.attention_mask for e in encodings],
            "token_type_ids": [e.type_ids for e in encodings],
        }
        feed = {name: np.array(columns[name], dtype=np.int64) for name in self._config.inputs}
        (vectors,) = self._session.run(None, feed)  # (B, D)
        return np.asarray(vectors, dtype=np.float32)
