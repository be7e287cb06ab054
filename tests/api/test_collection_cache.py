"""The API's collection lifetimes: a delete waits for the requests using a collection."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from embedstore.api.collection_cache import CollectionCache
from embedstore.errors import CollectionLockedError, CollectionNotFoundError
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder


@pytest.fixture
def store(tmp_path: Path, fake_encoder: FakeEncoder) -> Store:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("def alpha():\n    return 1\n")
    the_store = Store(tmp_path / "store")
    index_folder(the_store, repo, IndexOptions(name="c", encoder=FAKE_SPEC))
    return the_store


def test_delete_waits_for_the_lease_and_new_leases_get_not_found(store: Store) -> None:
    cache = CollectionCache(store)
    leased, release, deleted = threading.Event(), threading.Event(), threading.Event()

    def reader() -> None:
        with cache.lease("c") as collection:
            leased.set()
            release.wait(10)
            collection.stats()  # still open: the delete has not closed it

    worker = threading.Thread(target=reader)
    worker.start()
    assert leased.wait(10)
    deleter = threading.Thread(target=lambda: (cache.delete("c"), deleted.set()))
    deleter.start()
    with pytest.raises(CollectionNotFoundError, match="being deleted"):
        while True:  # until the delete has begun
            with cache.lease("c"):
                pass
    assert not deleted.is_set()
    release.set()
    worker.join()
    deleter.join()
    assert deleted.is_set() and store.names() == []


def test_delete_gives_up_with_409_when_a_lease_outlives_the_wait(store: Store) -> None:
    cache = CollectionCache(store, drain_seconds=0.1)
    with cache.lease("c"), pytest.raises(CollectionLockedError, match="still in use"):
        cache.delete("c")
    with cache.lease("c") as collection:  # the collection is still there and usable
        assert collection.stats().files == 1
