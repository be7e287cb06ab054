"""What the app holds between requests."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from embedstore.api.batcher import DirectEncoder, EncodeBatcher
from embedstore.api.jobs import JobManager
from embedstore.api.metrics import Metrics
from embedstore.api.settings import ServerSettings
from embedstore.encoders.base import Encoder
from embedstore.encoders.registry import canonical_spec, load_encoder
from embedstore.store.collection import Collection
from embedstore.store.store import Store

Batcher = EncodeBatcher | DirectEncoder


class CollectionCache:
    """One read-only Collection per name, shared by concurrent searches.

    Writers (jobs, document upserts) open their own; readers notice a new
    database generation and swap in the new index only once it is complete.
    """

    def __init__(self, store: Store) -> None:
        self._store = store
        self._open: dict[str, Collection] = {}
        self._lock = threading.Lock()

    def get(self, name: str) -> Collection:
        with self._lock:
            collection = self._open.get(name)
            if collection is None or not self._store.exists(name):
                collection = self._store.open(name)  # CollectionNotFoundError -> 404
                self._open[name] = collection
            return collection

    def forget(self, name: str) -> None:
        with self._lock:
            collection = self._open.pop(name, None)
        if collection is not None:
            collection.close()


@dataclass
class AppState:
    settings: ServerSettings
    store: Store
    collections: CollectionCache
    jobs: JobManager
    metrics: Metrics
    batching: bool = True
    ready: threading.Event = field(default_factory=threading.Event)
    _batchers: dict[tuple[str, str | None], Batcher] = field(default_factory=dict)

    def batcher(self, spec: str | None, pooling: str | None = None) -> Batcher:
        """The shared batcher of one encoder (created on first use, inside the event loop)."""
        key = (canonical_spec(spec), pooling)
        if key not in self._batchers:

            def encoder() -> Encoder:
                return load_encoder(key[0], key[1])

            observe = self.metrics.batch_size.observe
            made: Batcher = (
                EncodeBatcher(
                    encoder, max_size=self.settings.batch_max_size,
                    max_wait_ms=self.settings.batch_max_wait_ms, on_batch=observe,
                )
                if self.batching
                else DirectEncoder(encoder, on_batch=observe)
            )
            made.start()
            self._batchers[key] = made
        return self._batchers[key]

    async def close(self) -> None:
        for batcher in self._batchers.values():
            await batcher.stop()
        self.jobs.shutdown()
