"""`index --ray`: the same chunks, vectors and rankings as encoding here (real model)."""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import ray
from typer.testing import CliRunner

from embedstore.cli.app import app
from embedstore.indexing import IndexOptions, index_folder
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


@pytest.fixture
def two_cpu_cluster() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             logging_level=logging.ERROR)
    yield
    ray.shutdown()


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
        reference = here.search(query, 15, mode="dense")
        assert_same_top_10(got.search(query, 10, mode="dense"), reference)


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
    store: Store, here: Collection, small_repo: Path, two_cpu_cluster: None
) -> None:
    """A caller's own ray.init (2 CPUs: two single-threaded actors) is used, and left up."""
    report = index_folder(store, small_repo, IndexOptions(name="lib", ray="local"))
    assert report.chunks_encoded == report.chunks_total
    assert ray.is_initialized()
    assert_same_as_here(store.open("lib"), here)
