"""Re-indexing starts the model only when it has much to encode; a small edit uses the export.

A real (tiny) sentence-transformers model folder, its real ONNX export, real
SQLite and FAISS. ``load_encoder`` is wrapped where indexing calls it to see
whether a run started the model.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pytest

from embedstore.encoders.base import Encoder
from embedstore.encoders.onnx_model import load_exported
from embedstore.ingest import deferred_encoder as deferred
from embedstore.ingest import indexer as indexing
from embedstore.ingest.indexer import IndexOptions, IndexReport, index_folder
from embedstore.store.store import Store
from tests.tiny_model import build_tiny_model

HOUR_NS = 3600 * 1_000_000_000


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny"), pooling="mean")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    for i in range(6):
        (root / f"m{i}.py").write_text(
            f"def handler_{i}(event):\n    \"\"\"Handle event {i}.\"\"\"\n    return event.value\n"
        )
    past = time.time_ns() - HOUR_NS  # edited long before the scans below
    for path in root.iterdir():
        os.utime(path, ns=(past, past))
    return root


@pytest.fixture
def model_loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Specs of the models started since the fixture began (first runs and deferred ones)."""
    started: list[str] = []

    def counting(spec: str | None, pooling: str | None = None, precision: str | None = None
                 ) -> Encoder:
        started.append(str(spec))
        return real(spec, pooling, precision)

    real = indexing.load_encoder
    monkeypatch.setattr(indexing, "load_encoder", counting)
    monkeypatch.setattr(deferred, "load_encoder", counting)
    return started


def index(store: Store, repo: Path, model: Path) -> IndexReport:
    return index_folder(store, repo, IndexOptions(name="repo", encoder=str(model)))


def stored_vector(store: Store, path: str) -> np.ndarray:
    collection = store.open("repo")
    try:
        row = collection.conn.execute(
            "SELECT u.vector FROM units u JOIN files f ON f.id = u.file_id WHERE f.path = ?",
            (path,),
        ).fetchone()
    finally:
        collection.close()
    return np.frombuffer(row[0], dtype=np.float16).astype(np.float32)


def test_unchanged_and_small_runs_never_start_the_model(
    tiny_model: Path, repo: Path, tmp_path: Path, model_loads: list[str]
) -> None:
    store = Store(tmp_path / "store")
    index(store, repo, tiny_model)
    assert model_loads == [str(tiny_model)]  # the first run needs the model, and exports it
    exported = load_exported(store.root, str(tiny_model), "mean")
    assert exported is not None

    report = index(store, repo, tiny_model)
    assert report.nothing_changed and model_loads == [str(tiny_model)]

    (repo / "m2.py").write_text("def close_cache(cache):\n    return cache.close()\n")
    report = index(store, repo, tiny_model)
    assert report.files_changed == 1 and report.chunks_encoded >= 1
    assert model_loads == [str(tiny_model)]  # encoded by the export
    collection = store.open("repo")
    try:
        text = collection.conn.execute(
            "SELECT c.text FROM chunks c JOIN units u ON u.id = c.unit_id "
            "JOIN files f ON f.id = u.file_id WHERE f.path = 'm2.py'"
        ).fetchone()[0]
        assert collection.manifest.encoder == str(tiny_model)
    finally:
        collection.close()
    expected = exported.encode([f"m2.py\n{text}"])[0]
    np.testing.assert_allclose(stored_vector(store, "m2.py"), expected, atol=2e-3)


def test_a_large_run_starts_the_model(
    tiny_model: Path, repo: Path, tmp_path: Path, model_loads: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = Store(tmp_path / "store")
    index(store, repo, tiny_model)
    monkeypatch.setattr(deferred, "EXPORT_MAX_TEXTS", 2)
    for i in range(4):
        (repo / f"new{i}.py").write_text(f"def added_{i}(x):\n    return x + {i}\n")
    report = index(store, repo, tiny_model)
    assert report.files_new == 4 and report.chunks_encoded == 4
    assert model_loads == [str(tiny_model), str(tiny_model)]
