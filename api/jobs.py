"""Background indexing jobs: one at a time, their progress readable while they run."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from embedstore.errors import EmbedstoreError
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.store.store import Store

log = logging.getLogger("embedstore.api")


@dataclass
class Job:
    id: str
    collection: str
    path: str
    state: str = "queued"  # queued | running | done | failed
    stages: dict[str, dict[str, int | None]] = field(default_factory=dict)
    report: dict[str, Any] | None = None
    error: str | None = None
    created: float = field(default_factory=time.time)
    finished: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class _JobProgress:
    """The library's Progress protocol, written into the job for GET /v1/jobs/{id}."""

    def __init__(self, job: Job, lock: threading.Lock) -> None:
        self._job = job
        self._lock = lock

    def start(self, stage: str, total: int | None = None) -> None:
        with self._lock:
            self._job.stages[stage] = {"done": 0, "total": total}

    def advance(self, stage: str, n: int = 1) -> None:
        with self._lock:
            done = self._job.stages[stage]["done"] or 0
            self._job.stages[stage]["done"] = done + n

    def add_total(self, stage: str, n: int) -> None:
        with self._lock:
            self._job.stages[stage]["total"] = (self._job.stages[stage]["total"] or 0) + n

    def finish(self, stage: str) -> None:
        with self._lock:
            entry = self._job.stages[stage]
            entry["total"] = entry["done"]


class JobManager:
    def __init__(self, store: Store) -> None:
        self._store = store
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()
        # One writer at a time: collections lock per folder anyway, and the CPU is shared.
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="index-job")

    def submit(self, collection: str, path: Path, options: IndexOptions) -> Job:
        job = Job(id=uuid.uuid4().hex[:12], collection=collection, path=str(path))
        with self._lock:
            self._jobs[job.id] = job
        self._executor.submit(self._run, job, path, options)
        return job

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id)

    def all(self) -> list[Job]:
        with self._lock:
            return sorted(self._jobs.values(), key=lambda j: j.created)

    def snapshot(self, job: Job) -> dict[str, Any]:
        with self._lock:
            return job.to_dict()

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)

    def _run(self, job: Job, path: Path, options: IndexOptions) -> None:
        with self._lock:
            job.state = "running"
        try:
            report = index_folder(self._store, path, options, _JobProgress(job, self._lock))
        except (EmbedstoreError, ValueError) as exc:
            self._fail(job, str(exc))
            return
        except Exception as exc:  # a job must always end in a final state
            log.exception("index job %s crashed", job.id)
            self._fail(job, f"internal error: {exc}")
            return
        with self._lock:
            job.state, job.report, job.finished = "done", asdict(report), time.time()

    def _fail(self, job: Job, message: str) -> None:
        with self._lock:
            job.state, job.error, job.finished = "failed", message, time.time()
