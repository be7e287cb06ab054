"""Load what the first search needs before it is asked, off the thread that serves.

A fresh process has no query encoder, vector index or lexical segment in memory; the
first search would load them (seconds; the first MCP call over stdio took 11 s when
the model loaded on first use). ``Warmup`` loads them in a background thread: first
the query encoder of each model the store's collections use (``encoders`` is set
then: a call that finds it unset waits for it rather than loading a second copy),
then each collection's indexes, by a search of one hit. A collection that cannot be
read is left for the call that meets it to report.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from embedstore.api.collection_cache import CollectionCache
from embedstore.errors import EmbedstoreError
from embedstore.retrieval.search import search
from embedstore.store.collection import Collection
from embedstore.store.store import Store

log = logging.getLogger("embedstore.api")

# What a call waits for the encoders at most; past it, it loads what it needs itself.
WAIT_SECONDS = 60.0

_Work = Callable[[Collection], object]


class Warmup:
    def __init__(self, store: Store, collections: CollectionCache) -> None:
        self._store = store
        self._collections = collections
        self.encoders = threading.Event()
        self.done = threading.Event()

    def start(self) -> None:
        threading.Thread(target=self.run, name="warmup", daemon=True).start()

    def wait_for_encoders(self) -> None:
        self.encoders.wait(WAIT_SECONDS)

    def run(self) -> None:
        try:
            names = self._store.names()
            models: set[tuple[str, str]] = set()
            for name in names:
                self._each(name, lambda c: _encoder(c, models))
            self.encoders.set()
            for name in names:
                self._each(name, lambda c: search(c, "warm up", 1, mode="hybrid"))
        finally:
            self.encoders.set()
            self.done.set()

    def _each(self, name: str, work: _Work) -> None:
        try:
            with self._collections.lease(name) as collection:
                work(collection)
        except (EmbedstoreError, OSError, ValueError) as exc:
            log.info("warm-up skipped collection %s: %s", name, exc)


def _encoder(collection: Collection, models: set[tuple[str, str]]) -> None:
    model = (collection.manifest.encoder, collection.manifest.pooling)
    if model not in models:
        models.add(model)
        collection.query_encoder.encode(["warm up"], kind="query")
