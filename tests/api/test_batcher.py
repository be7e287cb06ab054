"""The query batcher: a lone request goes at once, concurrent ones share encoder calls."""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar, cast

import numpy as np

from embedstore.api.batcher import EncodeBatcher
from embedstore.encoders.base import Encoder, TextKind

T = TypeVar("T")
# Far longer than any test should take: a batcher that waits it out is plainly seen.
LONG_WAIT_MS = 2000.0


class CountingEncoder:
    """Each text's vector holds its number (texts are "t<number>"); every call is recorded."""

    dim = 2

    def __init__(self, seconds_per_call: float = 0.0) -> None:
        self.calls: list[list[str]] = []
        self._seconds = seconds_per_call
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str], *, kind: TextKind = "document", **_: Any) -> np.ndarray:
        with self._lock:
            self.calls.append(list(texts))
        time.sleep(self._seconds)
        numbers = [float(text[1:]) for text in texts]
        return np.array([[n, 1.0] for n in numbers], dtype=np.float32)  # (n, 2)


def run_with(
    encoder: CountingEncoder, test: Callable[[EncodeBatcher], Awaitable[T]], *,
    max_size: int = 64, max_wait_ms: float = LONG_WAIT_MS,
) -> T:
    async def main() -> T:
        batcher = EncodeBatcher(lambda: cast(Encoder, encoder), max_size=max_size,
                                max_wait_ms=max_wait_ms)
        batcher.start()
        try:
            return await test(batcher)
        finally:
            await batcher.stop()

    return asyncio.run(main())


def test_a_lone_request_is_encoded_at_once() -> None:
    encoder = CountingEncoder()

    async def one(batcher: EncodeBatcher) -> float:
        began = time.perf_counter()
        vectors = await batcher.encode(["t7"], kind="query")
        assert vectors[:, 0].tolist() == [7.0]
        return time.perf_counter() - began

    # The old batcher waited max_wait_ms for company after every first request.
    assert run_with(encoder, one) < LONG_WAIT_MS / 1000 / 4
    assert encoder.calls == [["t7"]]


def test_requests_arriving_while_a_batch_encodes_share_the_next_call() -> None:
    encoder = CountingEncoder(seconds_per_call=0.3)

    async def later(batcher: EncodeBatcher) -> None:
        first = asyncio.create_task(batcher.encode(["t0"]))
        await asyncio.sleep(0.1)  # t0 is encoding now
        rest = [asyncio.create_task(batcher.encode([f"t{i}"])) for i in (1, 2, 3)]
        await asyncio.gather(first, *rest)

    run_with(encoder, later, max_wait_ms=50)
    # t0 alone at once; t1-t3, queued meanwhile, in one call: not one call each.
    assert encoder.calls == [["t0"], ["t1", "t2", "t3"]]


def test_a_burst_is_one_call_within_max_size() -> None:
    encoder = CountingEncoder()

    async def burst(batcher: EncodeBatcher) -> list[np.ndarray]:
        return await asyncio.gather(*(batcher.encode([f"t{i}"]) for i in range(10)))

    results = run_with(encoder, burst, max_size=4, max_wait_ms=20)
    assert [r[:, 0].tolist() for r in results] == [[float(i)] for i in range(10)]
    assert [len(call) for call in encoder.calls] == [4, 4, 2]


def test_concurrent_requests_each_get_their_own_vectors() -> None:
    encoder = CountingEncoder(seconds_per_call=0.002)
    rng = random.Random(7)
    requests = [[f"t{rng.randrange(10_000)}" for _ in range(rng.randint(1, 5))]
                for _ in range(200)]

    async def clients(batcher: EncodeBatcher) -> list[np.ndarray]:
        async def client(texts: list[str]) -> np.ndarray:
            await asyncio.sleep(rng.random() / 100)  # arrivals spread over 10 ms
            return await batcher.encode(texts, kind=rng.choice(["query", "document"]))

        return await asyncio.gather(*(client(texts) for texts in requests))

    results = run_with(encoder, clients, max_size=16, max_wait_ms=5)
    for texts, vectors in zip(requests, results, strict=True):
        assert vectors[:, 0].tolist() == [float(t[1:]) for t in texts]
    assert sum(len(call) for call in encoder.calls) == sum(map(len, requests))
    assert len(encoder.calls) < len(requests)  # some were batched together
    # A batch stops growing at max_size texts (a request is never split: at most 4 over).
    assert max(len(call) for call in encoder.calls) < 16 + 5


def test_an_encoder_error_reaches_every_request_of_its_batch() -> None:
    class Failing(CountingEncoder):
        def encode(self, texts: Sequence[str], **kwargs: Any) -> np.ndarray:
            raise RuntimeError("model gone")

    async def burst(batcher: EncodeBatcher) -> list[object]:
        return await asyncio.gather(*(batcher.encode([f"t{i}"]) for i in range(3)),
                                    return_exceptions=True)

    outcomes = run_with(Failing(), burst, max_wait_ms=20)
    assert [str(o) for o in outcomes] == ["model gone"] * 3
