"""Another sentence-transformers model folder, end to end: its own CLS pooling is honoured."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from embedstore.cli.app import app
from embedstore.store.store import Store
from tests.tiny_model import build_tiny_model

runner = CliRunner()


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny"), pooling="cls")


def test_index_with_a_model_folder_uses_its_cls_pooling(tiny_model: Path, tmp_path: Path) -> None:
    from sentence_transformers import SentenceTransformer

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "cache.py").write_text("def close(cache):\n    return cache.close()\n")
    (repo / "config.py").write_text("def parse(config):\n    return open(config)\n")
    result = runner.invoke(app, ["index", str(repo), "--encoder", str(tiny_model), "--json"])
    assert result.exit_code == 0, result.stderr

    info = json.loads(runner.invoke(app, ["info", "repo", "--json"]).stdout)
    assert (info["encoder"], info["pooling"], info["dim"]) == (str(tiny_model), "cls", 32)

    # The stored vectors are what the model itself (CLS pooling) gives for the embedded text.
    collection = Store().open("repo")
    row = collection.conn.execute(
        "SELECT c.text, c.vector FROM chunks c JOIN units u ON u.id = c.unit_id "
        "JOIN files f ON f.id = u.file_id "
        "WHERE f.path = 'cache.py'"
    ).fetchone()
    stored = np.frombuffer(row[1], dtype=np.float16).astype(np.float32)
    reference = SentenceTransformer(str(tiny_model), device="cpu").encode(
        [f"cache.py\n{row[0]}"], normalize_embeddings=True
    )[0]
    np.testing.assert_allclose(stored, reference, atol=2e-3)  # float16 storage

    searched = runner.invoke(app, ["search", "close cache", "--json", "-k", "2"])
    assert searched.exit_code == 0, searched.stderr
    assert len(json.loads(searched.stdout)["results"]) == 2
