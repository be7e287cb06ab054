"""What the app holds between requests."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TypeVar

from embedstore.api.batcher import DirectEncoder, EncodeBatcher
from embedstore.api.collection_cache import CollectionCache
from embedstore.api.jobs import JobManager
from embedstore.api.metrics import Metrics
from embedstore.api.settings import ServerSettings
from embedstore.encoders.base import Encoder
from embedstore.encoders.query import query_encoder
from embedstore.encoders.registry import canonical_spec, load_encoder
from embedstore.store.store import Store

Batcher = EncodeBatcher | DirectEncoder
T = TypeVar("T")


def _search_pool() -> ThreadPoolExecutor:
    # As many threads as cores: twenty searches at once in twenty threads only take
    # turns at the GIL, and each waits for all the others (a long latency tail).
    return ThreadPoolExecutor(max_workers=os.cpu_count() or 1, thread_name_prefix="search")


@dataclass
class AppState:
    settings: ServerSettings
    store: Store
    collections: CollectionCache
    jobs: JobManager
    metrics: Metrics
    batching: bool = True
    ready: threading.Event = field(default_factory=threading.Event)
    _batchers: dict[tuple[str, str | None, bool], Batcher] = field(default_factory=dict)
    _searches: ThreadPoolExecutor | None = None

    async def run_search(self, work: Callable[[], T]) -> T:
        """Run search work off the event loop, first come first served on a core-sized pool."""
        if self._searches is None:  # made per lifespan: close() shuts it down
            self._searches = _search_pool()
        return await asyncio.get_running_loop().run_in_executor(self._searches, work)

    def batcher(self, spec: str | None, pooling: str | None = None) -> Batcher:
        """The shared batcher of one encoder (created on first use, inside the event loop)."""
        name = canonical_spec(spec)
        return self._batcher((name, pooling, False), lambda: load_encoder(name, pooling))

    def query_batcher(self, spec: str, pooling: str) -> Batcher:
        """The shared batcher of the store's query encoder for one model (ONNX once exported)."""
        root = self.store.root
        return self._batcher((spec, pooling, True), lambda: query_encoder(root, spec, pooling))

    def _batcher(
        self, key: tuple[str, str | None, bool], encoder: Callable[[], Encoder]
    ) -> Batcher:
        if key not in self._batchers:
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
        if self._searches is not None:
            self._searches.shutdown(wait=False, cancel_futures=True)
            self._searches = None
        self.collections.close()
