"""A deterministic stand-in encoder for fast unit tests (never the only test of a feature)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from embedstore.encoders.base import BatchCallback, TextKind
from embedstore.encoders.registry import register_family

FAKE_SPEC = "fake:hash"
_WORD = re.compile(r"[A-Za-z]+|\d+")


class FakeEncoder:
    """Bag of hashed lowercase words: texts sharing words get similar vectors."""

    name = FAKE_SPEC
    revision = None
    dim = 64
    max_tokens = 128
    precision = "fp32"

    def __init__(self, pooling: str | None = None) -> None:
        self.pooling = pooling or "mean"
        self.encoded: list[str] = []

    def count_tokens(self, texts: list[str]) -> list[int]:
        return [len(t.split()) + 2 for t in texts]

    def encode(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = 32,
        kind: TextKind = "document",
        on_batch: BatchCallback | None = None,
    ) -> np.ndarray:
        if kind == "document":
            self.encoded.extend(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)  # (n, dim)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                bucket = int(hashlib.md5(word.encode()).hexdigest()[:8], 16) % self.dim
                out[row, bucket] += 1.0
        out[:, 0] += 1e-3  # no all-zero row, so every vector normalises
        if on_batch is not None:
            on_batch(len(texts))
        return out / np.linalg.norm(out, axis=1, keepdims=True)


_INSTANCES: dict[str | None, FakeEncoder] = {}


def install_fake_encoder() -> FakeEncoder:
    """Register the ``fake:`` family; returns the default-pooling instance."""

    def factory(argument: str, pooling: str | None) -> FakeEncoder:
        return _INSTANCES.setdefault(pooling, FakeEncoder(pooling))

    register_family("fake", factory)
    return factory("hash", None)


def index_with_fake(tmp_path: Path, folder: str, files: dict[str, str]) -> Path:
    """``files`` written to ``tmp_path/folder`` and indexed by the CLI with the fake encoder
    (installed by the ``fake_encoder`` fixture); the store's path."""
    from typer.testing import CliRunner

    from embedstore.cli.app import app

    repo = tmp_path / folder
    repo.mkdir()
    for name, text in files.items():
        (repo / name).write_text(text)
    store = tmp_path / "store"
    result = CliRunner().invoke(app, ["index", str(repo), "--encoder", FAKE_SPEC,
                                      "--store", str(store)])
    assert result.exit_code == 0, result.stderr
    return store
