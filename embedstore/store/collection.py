"""One collection: a folder with collection.json, meta.sqlite and vectors.faiss."""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from embedstore.atomic_files import replace_atomically, sweep_temp_files
from embedstore.errors import (
    CollectionLockedError,
    CorruptCollectionError,
    LexicalIndexError,
    StorageError,
    VectorIndexError,
)
from embedstore.indexes import choose_kind
from embedstore.store import db
from embedstore.store.manifest import Manifest

log = logging.getLogger("embedstore.store")

if TYPE_CHECKING:
    from embedstore.encoders.base import Encoder
    from embedstore.indexes import bm25
    from embedstore.indexes.vector_index import VectorIndex
    from embedstore.store.lexical_index import LexicalView

MANIFEST_FILE = "collection.json"
DB_FILE = "meta.sqlite"
INDEX_FILE = "vectors.faiss"
LOCK_FILE = ".write.lock"
# A reader saving a repaired index holds the write lock for a moment: a writer
# that arrives then waits this long instead of failing at once.
LOCK_WAIT_SECONDS = 2.0
# Present while a new collection awaits its first committed write (see Store.create).
INCOMPLETE_FILE = ".incomplete"
# Retrain IVF-PQ once the collection has grown this much past its training size.
RETRAIN_GROWTH = 4.0
# Query batches at least this large use every core for FAISS.
BATCH_QUERIES = 8
# Units per shard of an IVF-PQ build from SQLite (100 MB of float32 at d = 384).
SHARD_UNITS = 65_536
# The sample an IVF-PQ index trains on is drawn with this seed: a rebuild is reproducible.
SEED = 0


@dataclass(frozen=True)
class CollectionStats:
    name: str
    files: int
    units: int
    chunks: int
    disk_bytes: int
    manifest: Manifest


@contextmanager
def write_lock(path: Path) -> Iterator[None]:
    """The one-writer-per-collection file lock of the collection folder ``path``."""
    # Imported here, as the encoders, search and RAG below: `embedstore list` and
    # `info` only read, and start faster without them (issue 9).
    from filelock import FileLock, Timeout

    lock = FileLock(path / LOCK_FILE)
    try:
        lock.acquire(timeout=LOCK_WAIT_SECONDS)
    except Timeout:
        raise CollectionLockedError(
            f"another embedstore process is writing to collection {path.name!r}; "
            "wait for it to finish"
        ) from None
    except OSError as exc:  # a read-only store, a full disk, a folder in the lock's place
        raise StorageError(
            f"cannot take the write lock of collection {path.name!r} ({exc.strerror}: "
            f"{exc.filename})"
        ) from exc
    try:
        yield
    finally:
        lock.release()


class Collection:
    """Reads are lock-free; writes go through ``writing()`` (one writer per collection).

    SQLite is the source of truth, the manifest included (its collection.json is a
    mirror). The FAISS file records the database generation it was built from;
    a stale or missing one is rebuilt from the stored vectors, never re-encoded.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.name = path.name
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        # A damaged file raises CorruptCollectionError, a full disk StorageError.
        self._local.conn = db.connect(path / DB_FILE)
        self._connections.append(self._local.conn)
        self._index: VectorIndex | None = None
        self._index_generation = -1
        self._index_lock = threading.Lock()
        self._lexical: tuple[int, LexicalView | None] | None = None  # (generation, view)
        self._lexical_segment: tuple[str, bm25.Segment] | None = None  # (token, segment)
        self._lexical_lock = threading.Lock()

    @property
    def conn(self) -> sqlite3.Connection:
        """This thread's connection to meta.sqlite.

        SQLite runs one statement at a time per connection, so searches served
        from several threads would queue on a shared one; WAL lets their own
        connections read side by side.
        """
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = db.connect_reader(self.path / DB_FILE)
            self._local.conn = conn
            with self._connections_lock:
                self._connections.append(conn)
        return conn

    # -- manifest ---------------------------------------------------------------

    @property
    def manifest(self) -> Manifest:
        return self._manifest_in(self.conn)

    def _manifest_in(self, conn: sqlite3.Connection) -> Manifest:
        text = db.get_meta(conn, "manifest")
        if text is None:
            raise CorruptCollectionError(f"collection {self.name!r} has no manifest in {DB_FILE}")
        return Manifest.from_json(text)

    def mirror_manifest(self) -> None:
        """Rewrite collection.json from the database when it differs."""
        text = self.manifest.to_json()
        file = self.path / MANIFEST_FILE
        try:
            # is_file: a FIFO in its place would block the read; it is replaced instead.
            if file.is_file() and file.read_text() == text:
                return
            replace_atomically(file, (text.encode(),))
        except (OSError, UnicodeDecodeError) as exc:
            # The database is the truth and the mirror a copy for people and tools:
            # a read-only store, or a writer sweeping temporary files, must not
            # fail a read. The next open writes it again.
            log.warning("could not rewrite %s: %s", file, exc)

    @property
    def encoder(self) -> Encoder:
        from embedstore.encoders.registry import load_encoder

        manifest = self.manifest
        encoder = load_encoder(manifest.encoder, manifest.pooling)
        if encoder.dim != manifest.dim:
            raise CorruptCollectionError(
                f"encoder {manifest.encoder!r} now gives {encoder.dim}-d vectors but collection "
                f"{self.name!r} holds {manifest.dim}-d ones; re-index with --rebuild"
            )
        return encoder

    @property
    def query_encoder(self) -> Encoder:
        """What encodes queries: the store's ONNX export of the model, else the model."""
        from embedstore.encoders.query import query_encoder

        manifest = self.manifest
        encoder = query_encoder(self.path.parent, manifest.encoder, manifest.pooling)
        return encoder if encoder.dim == manifest.dim else self.encoder

    # -- writing ----------------------------------------------------------------

    @contextmanager
    def writing(self) -> Iterator[Collection]:
        with write_lock(self.path):
            # Under the lock, a temporary index file is a killed writer's and would
            # otherwise count in disk_bytes for good (a reader's manifest mirror in
            # flight may go too: mirror_manifest tolerates that).
            sweep_temp_files(self.path)
            yield self

    def mark_complete(self) -> None:
        """Make a new collection visible: its first write has committed (see Store.create)."""
        (self.path / INCOMPLETE_FILE).unlink(missing_ok=True)

    def check_index_fits(self, conn: sqlite3.Connection) -> None:
        """Refuse a change that leaves too few units for the index kind asked for.

        Called inside the write's transaction (``db.apply_changes(check=...)``):
        the index is only built after the commit, and a refused write must change
        nothing, the manifest included.
        """
        manifest = self._manifest_in(conn)
        n_units = db.unit_count(conn)
        if choose_kind(manifest.index_kind, n_units) == "ivfpq":
            from embedstore.indexes.params import ivfpq_params

            ivfpq_params(n_units, manifest.dim)  # IndexTooSmallError below its minimum

    def update_index(self, removed: list[int], added: list[int]) -> None:
        """Bring vectors.faiss in step with the database after a write (writer only)."""
        manifest = self.manifest
        gen = db.generation(self.conn)
        n_units = db.counts(self.conn)[1]
        kind = choose_kind(manifest.index_kind, n_units)
        current = self._load_saved_index(gen - 1)
        trained_on = int(manifest.index.get("trained_on", 0))
        # A rebuild with another encoder may change the dimension: then start afresh.
        if current is not None and current.kind == kind and current.dim == manifest.dim and (
            kind == "flat" or n_units <= RETRAIN_GROWTH * trained_on
        ):
            current.remove(np.array(removed, dtype=np.int64))
            ids = np.array(added, dtype=np.int64)
            current.add(ids, db.vectors_for(self.conn, ids, manifest.dim))
            index = current
        else:
            index = self._build_from_db(kind)
            trained_on = n_units
        self._persist_index(index, gen, trained_on)
        self._refresh_lexical_segment(n_units)

    def _refresh_lexical_segment(self, n_units: int) -> None:
        """Rebuild lexical.bm25 when missing or too far behind; drop it below MIN_UNITS."""
        from embedstore.store import lexical_index

        state = lexical_index.segment_state(self.conn)
        if n_units < lexical_index.MIN_UNITS:
            if state is not None or (self.path / lexical_index.SEGMENT_FILE).exists():
                lexical_index.drop(self.conn, self.path)
        elif state is None or state.stale:
            try:
                lexical_index.build(self.conn, self.path)
            except LexicalIndexError as exc:
                # Derived data: the write has committed, and FTS5 answers until a rebuild.
                log.warning("%s", exc)

    # -- reading ----------------------------------------------------------------

    def vector_index(self) -> VectorIndex:
        """The index matching the database now, repaired from SQLite when stale."""
        gen = db.generation(self.conn)
        with self._index_lock:
            if self._index is not None and self._index_generation == gen:
                return self._index
            index = self._load_saved_index(gen)
            if index is None:
                index = self._repair(gen)
            self._index, self._index_generation = index, gen
            return index

    def lexical_view(self) -> LexicalView | None:
        """BM25 postings matching the database now; None below MIN_UNITS (FTS5 answers)."""
        from embedstore.store import lexical_index

        gen = db.generation(self.conn)
        with self._lexical_lock:
            if self._lexical is not None and self._lexical[0] == gen:
                return self._lexical[1]
            view = None
            if db.unit_count(self.conn) >= lexical_index.MIN_UNITS:
                state = lexical_index.segment_state(self.conn)
                segment = None if state is None else self._segment(state.token)
                if state is None or segment is None:
                    # Missing or damaged: rebuilt from SQLite, as a stale FAISS file is.
                    self._build_lexical_segment()
                    state = lexical_index.segment_state(self.conn)
                    segment = None if state is None else self._segment(state.token)
                if state is not None and segment is not None:
                    view = lexical_index.view(self.conn, segment, state.last_unit_id)
            self._lexical = (gen, view)
            return view

    def _segment(self, token: str) -> bm25.Segment | None:
        """The segment file the database records (mapped once per token)."""
        from embedstore.store import lexical_index

        if self._lexical_segment is None or self._lexical_segment[0] != token:
            segment = lexical_index.load_segment(self.path, token)
            if segment is None:
                return None
            self._lexical_segment = (token, segment)
        return self._lexical_segment[1]

    def _build_lexical_segment(self) -> None:
        from embedstore.store import lexical_index

        try:
            with self.writing():
                lexical_index.build(self.conn, self.path)
        except (CollectionLockedError, sqlite3.OperationalError, StorageError,
                LexicalIndexError):
            # A writer is busy and will leave its own segment, or the folder cannot be
            # written (a read-only store, a full disk): FTS5 answers meanwhile, with the
            # same scores.
            pass

    def search_vectors(
        self,
        queries: np.ndarray,
        k: int,
        *,
        nprobe: int | None = None,
        subset: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(q, d) queries -> scores and chunk ids (q, k), exact-rescored for IVF-PQ."""
        dim = self.manifest.dim
        # One FAISS thread for a single query: idle OpenMP threads spin and slow
        # the encoder, which dominates query latency (see docs/architecture.md, section 7).
        from embedstore.indexes import search_refined, set_search_threads

        set_search_threads(1 if len(queries) < BATCH_QUERIES else os.cpu_count() or 1)
        return search_refined(
            self.vector_index(), queries, k,
            lambda ids: db.vectors_for(self.conn, ids, dim), nprobe=nprobe, subset=subset,
        )

    def stats(self) -> CollectionStats:
        files, units, chunks = db.counts(self.conn)
        return CollectionStats(self.name, files, units, chunks, self._disk_bytes(), self.manifest)

    def _disk_bytes(self) -> int:
        """Bytes of the collection's files; a writer's temporary file may vanish meanwhile."""
        size = 0
        for entry in os.scandir(self.path):
            try:
                if entry.is_file():
                    size += entry.stat().st_size
            except FileNotFoundError:
                continue
        return size

    def close(self) -> None:
        with self._connections_lock:
            for conn in self._connections:
                conn.close()
            self._connections.clear()

    # -- index files --------------------------------------------------------------

    def _load_saved_index(self, gen: int) -> VectorIndex | None:
        """The saved index if it was built from database generation ``gen``."""
        if db.get_meta(self.conn, "index_generation") != str(gen):
            return None
        from embedstore.indexes import VectorIndex

        try:
            return VectorIndex.load(self.path / INDEX_FILE)
        except VectorIndexError:
            return None

    def _build_from_db(self, kind: str) -> VectorIndex:
        dim = self.manifest.dim
        from embedstore.indexes import VectorIndex

        if kind == "flat":
            ids, vectors = db.all_vectors(self.conn, dim)  # (n,), (n, d)
            return VectorIndex.build(kind, dim, vectors, ids)
        return self._build_ivfpq_in_shards(dim)

    def _build_ivfpq_in_shards(self, dim: int) -> VectorIndex:
        """IVF-PQ trained on a sample, then filled shard by shard from SQLite.

        The index equals ``VectorIndex.build("ivfpq", ...)`` over all vectors (same
        seeded sample, lists merged in id order), without holding them all as
        float32: at a million 384-d units that is 1.5 GB, a shard 100 MB.
        """
        from embedstore.indexes.params import resolve_ivfpq_params
        from embedstore.indexes.shards import build_from_loaders, train_ivfpq
        from embedstore.indexes.vector_index import training_rows

        ids = db.unit_ids(self.conn)  # (n,) ascending
        n = len(ids)
        params = resolve_ivfpq_params(n, dim, None)
        # The draw VectorIndex.build makes, so both ways give the same training.
        picked = training_rows(n, params, SEED)  # (s,)
        trained = train_ivfpq(db.vectors_for(self.conn, ids[picked], dim), n=n, seed=SEED)
        loaders = [
            partial(self._vectors_between, int(ids[start]),
                    int(ids[min(start + SHARD_UNITS, n) - 1]), dim)
            for start in range(0, n, SHARD_UNITS)
        ]
        return build_from_loaders(trained, loaders)

    def _vectors_between(self, first: int, last: int, dim: int) -> tuple[np.ndarray, np.ndarray]:
        # self.conn on the calling thread: a shard is read on the thread that adds it.
        return db.vectors_between(self.conn, first, last, dim)

    def _repair(self, gen: int) -> VectorIndex:
        """Rebuild a stale index; persist it unless a writer holds the lock."""
        n_units = db.counts(self.conn)[1]
        index = self._build_from_db(choose_kind(self.manifest.index_kind, n_units))
        try:
            with self.writing():
                if db.generation(self.conn) == gen:
                    self._persist_index(index, gen, n_units)
        except (CollectionLockedError, sqlite3.OperationalError, StorageError):
            # Saving is only a shortcut for the next reader: a writer (or a delete) busy
            # with the database will leave its own state, and a store that cannot be
            # written (read-only, full) gets none; this search still has its index.
            pass
        return index

    def _persist_index(self, index: VectorIndex, gen: int, trained_on: int) -> None:
        index.save(self.path / INDEX_FILE)
        described = {"kind": index.kind, **index.params, "trained_on": trained_on}
        manifest = self.manifest.with_index(described)
        with db.transaction(self.conn):
            db.set_meta(self.conn, "manifest", manifest.to_json())
            db.set_meta(self.conn, "index_generation", str(gen))
        self.mirror_manifest()
        self._index, self._index_generation = index, gen
