"""`index --ray`: the same chunks, vectors and rankings as encoding here (real model)."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest
import ray
from typer.testing import CliRunner

from embedstore.cli.app import app
from embedstore.encoders.registry import DEFAULT_ENCODER
from embedstore.ingest import encode as encode_stage
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.retrieval.search import search
from embedstore.store import db
from embedstore.store.collection import Collection
from embedstore.store.store import Store
from tests.encoders.test_onnx_query import QUERIES, assert_same_top_10

pytestmark = pytest.mark.slow

CHUNKS = """SELECT f.path, u.start_line, u.end_line, c.start_line, c.end_line, c.text_hash, c.vector
            FROM chunks c JOIN units u ON u.id = c.unit_id JOIN files f ON f.id = u.file_id
            ORDER BY f.path, c.start_line, c.text_hash"""


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    return Store(tmp_path_factory.mktemp("store"))


@pytest.fixture(scope="module")
def here(store: Store, small_repo: Path) -> Collection:
    """The reference: the same folder encoded in this process."""
    index_folder(store, small_repo, IndexOptions(name="here"))
    return store.open("here")


def chunk_rows(collection: Collection) -> tuple[list[tuple[object, ...]], np.ndarray]:
    """(path, unit lines, chunk lines, text hash) of every chunk, and their vectors (n, d)."""
    rows = collection.conn.execute(CHUNKS).fetchall()
    vectors = db.from_blobs([r[-1] for r in rows], collection.manifest.dim)  # (n, d)
    return [tuple(r[:-1]) for r in rows], vectors


def assert_same_as_here(got: Collection, here: Collection) -> None:
    mine, my_vectors = chunk_rows(got)
    theirs, their_vectors = chunk_rows(here)
    assert mine == theirs and len(mine) > 50
    cosines = np.sum(my_vectors * their_vectors, axis=1)  # (n,)
    assert cosines.min() >= 0.999, cosines.min()
    # The same model, pooling and precision: only the index's own record may differ.
    assert got.manifest == dataclasses.replace(here.manifest, index=got.manifest.index)
    for query in QUERIES:
        reference = search(here, query, 15, mode="dense")
        assert_same_top_10(search(got, query, 10, mode="dense"), reference)


def test_cli_index_on_a_local_cluster(store: Store, here: Collection, small_repo: Path) -> None:
    """`--ray local` starts a cluster of this machine's CPUs and shuts it down after."""
    result = CliRunner().invoke(app, ["index", str(small_repo), "--name", "cli", "--ray", "local",
                                      "--store", str(store.root), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["chunks_encoded"] == report["chunks_total"] > 50
    assert not ray.is_initialized()
    assert_same_as_here(store.open("cli"), here)


def test_a_connected_process_keeps_its_cluster(
    store: Store, here: Collection, small_repo: Path, two_cpu_cluster: None,
    model_loads: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A caller's own ray.init (2 CPUs: two single-threaded actors) is used, and left up;
    the run parks batch after batch, and each actor loads the model once for all of them."""
    monkeypatch.setattr(encode_stage, "RAY_PARK_EVERY", 64)  # batches of at most 32 texts
    parked: list[int] = []  # texts per park_vectors call
    park = db.park_vectors

    def counting_park(conn: sqlite3.Connection, items: list[tuple[str, bytes]]) -> None:
        parked.append(len(items))
        park(conn, items)

    monkeypatch.setattr(db, "park_vectors", counting_park)
    report = index_folder(store, small_repo, IndexOptions(name="lib", ray="local"))
    assert report.chunks_encoded == report.chunks_total == sum(parked)
    assert len(parked) >= 4 and max(parked) <= 32, parked
    assert model_loads.read_text().split() == [DEFAULT_ENCODER] * 2
    assert ray.is_initialized()
    assert_same_as_here(store.open("lib"), here)
