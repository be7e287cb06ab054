"""The package root is the public Python API: explicit names, loaded on first use."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import embedstore
from tests.fakes import FAKE_SPEC, FakeEncoder


def test_every_public_name_imports_from_the_root(tmp_path: Path, fake_encoder: FakeEncoder) -> None:
    from embedstore import IndexOptions, SearchFilters, Store, index_folder, search

    assert embedstore.__version__ == version("embedstore")
    for name in embedstore.__all__:
        assert getattr(embedstore, name) is not None, name
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("def retry_with_backoff(call):\n    return call()\n")
    store = Store(tmp_path / "store")
    index_folder(store, repo, IndexOptions(name="r", encoder=FAKE_SPEC))
    hits = search(store.open("r"), "retry backoff", 1, filters=SearchFilters(include=("*.py",)))
    assert hits[0].symbol == "retry_with_backoff"


def test_importing_the_root_loads_no_model_or_index_library() -> None:
    probe = ("import sys, embedstore; "
             "print([m for m in ('torch', 'faiss', 'embedstore.store') if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[]"
