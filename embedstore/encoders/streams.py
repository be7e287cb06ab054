"""Several batches at once on a CPU: one stream per core, each op on one thread.

A small encoder's matrix products (hidden size 384) split poorly across cores,
so two batches side by side with one thread each outrun one batch on two
threads (on 2 cores, x1.02 to x1.15 texts/s in three runs of
bench/encode_speed.py). torch releases the GIL inside each op, so Python
threads suffice. A torch thread count set on a thread is that thread's own:
the caller's is left as it was.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

ENV = "EMBEDSTORE_ENCODE_STREAMS"


def stream_count(cores: int) -> int:
    """Batches to run at once on ``cores`` torch threads: $EMBEDSTORE_ENCODE_STREAMS,
    else one per core."""
    wanted = os.environ.get(ENV, "").strip()
    if not wanted:
        return max(1, cores)
    if not wanted.isdigit() or int(wanted) < 1:
        raise ValueError(f"{ENV} must be a whole number of at least 1, got {wanted!r}")
    return int(wanted)


class Streams:
    """Maps an encode function over batches, several at a time on a CPU."""

    def __init__(self, device: str) -> None:
        self._cpu = device == "cpu"
        self._pool: ThreadPoolExecutor | None = None
        self._shape = (1, 0)  # (streams, torch threads each) the pool was made for
        self._lock = threading.Lock()

    def map(self, encode: Callable[[T], R], batches: Sequence[T]) -> Iterator[R]:
        """``encode`` over ``batches``, results in order."""
        import torch  # here: an encoder that runs this has imported torch already

        cores = torch.get_num_threads()  # read per call: callers may change it
        streams = stream_count(cores)
        if not self._cpu or len(batches) < 2 or streams == 1:
            return map(encode, batches)
        return self._executor(streams, max(1, cores // streams)).map(encode, batches)

    def _executor(self, streams: int, threads: int) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None or self._shape != (streams, threads):
                if self._pool is not None:
                    self._pool.shutdown(wait=False)
                self._pool = ThreadPoolExecutor(
                    streams, thread_name_prefix="embedstore-encode",
                    initializer=_set_torch_threads, initargs=(threads,),
                )
                self._shape = (streams, threads)
            return self._pool


def _set_torch_threads(threads: int) -> None:
    import torch

    torch.set_num_threads(threads)
