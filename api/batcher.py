"""Dynamic batching: encode many concurrent requests' texts in one model call.

Each request awaits its own future; one worker drains the queue and runs ONE
encoder call off the event loop per batch of up to ``max_size`` texts. On a CPU
a batch of 32 short texts costs little more than one, so throughput under
concurrency grows with the batch.

A request that finds nothing else queued is encoded at once: waiting for company
that is not coming would only add ``max_wait_ms`` to every query of a lone client.
Requests that arrive while a batch is encoding queue meanwhile, so under load the
worker finds others queued; only then does it wait, at most ``max_wait_ms`` from
the first, for more to join.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from embedstore.encoders.base import Encoder, TextKind


@dataclass
class _Request:
    texts: list[str]
    kind: TextKind
    future: asyncio.Future[np.ndarray]


class EncodeBatcher:
    def __init__(
        self,
        encoder: Callable[[], Encoder],
        *,
        max_size: int,
        max_wait_ms: float,
        on_batch: Callable[[int], None] | None = None,
    ) -> None:
        if max_size < 1:
            raise ValueError(f"batch max_size must be at least 1, got {max_size}")
        self._encoder = encoder
        self._max_size = max_size
        self._max_wait = max_wait_ms / 1000
        self._on_batch = on_batch
        self._queue: asyncio.Queue[_Request] = asyncio.Queue()
        # One thread: the model is the bottleneck and torch already uses every core.
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="encode")
        self._worker: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._worker = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker
        self._executor.shutdown(wait=False, cancel_futures=True)

    async def encode(self, texts: list[str], kind: TextKind = "document") -> np.ndarray:
        """(n,) texts -> float32 (n, dim), batched with whatever else is waiting."""
        future: asyncio.Future[np.ndarray] = asyncio.get_running_loop().create_future()
        await self._queue.put(_Request(texts, kind, future))
        return await future

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            batch = [await self._queue.get()]
            size = len(batch[0].texts)
            deadline = time.monotonic() + self._max_wait
            # Others queued: a burst, or the load that queued up during the last batch.
            others_queued = not self._queue.empty()
            while others_queued and size < self._max_size:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                try:
                    nxt = await asyncio.wait_for(self._queue.get(), remaining)
                except asyncio.TimeoutError:  # TimeoutError from 3.11 on; not on 3.10
                    break
                batch.append(nxt)
                size += len(nxt.texts)
            for kind in ("query", "document"):
                group = [r for r in batch if r.kind == kind]
                if group:
                    await self._encode_group(loop, group, kind)

    async def _encode_group(
        self, loop: asyncio.AbstractEventLoop, group: list[_Request], kind: TextKind
    ) -> None:
        texts = [t for r in group for t in r.texts]
        try:
            vectors = await loop.run_in_executor(
                self._executor, lambda: self._encoder().encode(texts, kind=kind)
            )  # (len(texts), dim)
        except Exception as exc:  # every waiting request learns of the failure
            for r in group:
                if not r.future.done():
                    r.future.set_exception(exc)
            return
        if self._on_batch is not None:
            self._on_batch(len(texts))
        start = 0
        for r in group:
            if not r.future.done():
                r.future.set_result(vectors[start : start + len(r.texts)])
            start += len(r.texts)


class DirectEncoder:
    """The no-batching baseline: each request runs its own encoder call in a thread."""

    def __init__(
        self, encoder: Callable[[], Encoder], on_batch: Callable[[int], None] | None = None
    ) -> None:
        self._encoder = encoder
        self._on_batch = on_batch

    def start(self) -> None:
        pass

    async def stop(self) -> None:
        pass

    async def encode(self, texts: list[str], kind: TextKind = "document") -> np.ndarray:
        vectors = await asyncio.to_thread(lambda: self._encoder().encode(texts, kind=kind))
        if self._on_batch is not None:
            self._on_batch(len(texts))
        return vectors
