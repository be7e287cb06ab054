"""Stage 3, encode: every embedded text's vector, reused or encoded, parked as it comes.

Vectors encoded on the way are parked in SQLite (``pending_vectors``) every
PARK_EVERY texts, so a killed run loses at most that many and the next run
picks the rest up.
"""

from __future__ import annotations

import heapq
import queue
import threading
import time
from collections.abc import Iterator, Sequence

import numpy as np

from embedstore.ingest.chunk import FileWork, chunk_all
from embedstore.ingest.run import Run
from embedstore.ingest.sources import SourceFile
from embedstore.store import db

# Texts encoded between two commits of parked vectors: the most a kill can lose.
PARK_EVERY = 512
# On Ray one encode call covers the whole run and each batch is parked as it comes
# back; the actors together encode at most this many texts at a time (what a kill can
# lose there): more than PARK_EVERY, so that each batch pays for its trip to an actor.
RAY_PARK_EVERY = 8192


def parked_identity(encoder: str, pooling: str) -> str:
    """Parked vectors belong to one encoder and pooling (see drop_foreign_parked_vectors)."""
    return f"{encoder}|{pooling}"


def chunk_and_encode(
    run: Run, todo: Sequence[SourceFile]
) -> tuple[list[FileWork], dict[str, bytes]]:
    """Units of each file to (re)index, and the vector of every embedded text by its hash.

    A worker thread chunks while this one encodes, PARK_EVERY new texts at a
    time, so the encoder never waits for the last file. Chunking runs far ahead
    of encoding, so each part is the longest PARK_EVERY texts chunked so far:
    parts of similar lengths pad about 2 tokens in 100 on the standard library,
    where parts in file order padded 4.5 (a batch is as long as its longest text).
    On Ray the run's texts are encoded in one call after the last file, so that each
    actor loads the model once per run; that call parks its vectors as they come.

    Stage times add up to this call's wall time: ``encode`` is the encoding thread's
    work, ``chunk`` the rest, the time it waited for the chunker (chunking that
    overlapped encoding cost the run nothing).
    """
    began = time.perf_counter()
    drop_foreign_parked_vectors(run)
    chunked: queue.SimpleQueue[FileWork | BaseException | None] = queue.SimpleQueue()
    worker = threading.Thread(target=chunk_all, args=(run, todo, chunked), daemon=True)
    worker.start()
    work: list[FileWork] = []
    vectors: dict[str, bytes] = {}
    new = LongestFirst()  # texts chunked, never encoded before, not yet encoded
    encode_s = 0.0  # the encoding thread's: lookups and encoding, not waiting
    chunking = True
    run.ui.start("encode", None)
    while True:
        # Wait for the chunker unless a whole part is ready (on Ray: until it ends).
        while chunking and (run.opts.ray or len(new) < PARK_EVERY or not chunked.empty()):
            item = chunked.get()
            if isinstance(item, BaseException):
                raise item
            if item is None:
                chunking = False
            else:
                work.append(item)
                encode_s += _reuse(run, item.texts, vectors, new)
        if not new:
            break
        encode_s += _encode(run, new.take(len(new) if run.opts.ray else PARK_EVERY), vectors)
    run.ui.finish("encode")
    run.report.seconds["chunk"] = round(time.perf_counter() - began - encode_s, 3)
    run.report.seconds["encode"] = round(encode_s, 3)
    run.report.chunks_reused = len(vectors) - run.report.chunks_encoded
    return work, vectors


def _reuse(run: Run, texts: dict[str, str], vectors: dict[str, bytes], new: LongestFirst) -> float:
    """Add the vectors ever encoded for ``texts`` to ``vectors`` and the others to
    ``new``; returns the seconds spent."""
    began = time.perf_counter()
    # A rebuild re-encodes everything but what this same rebuild parked before a kill.
    tables = ("pending_vectors",) if run.opts.rebuild else ("chunks", "pending_vectors")
    wanted = [h for h in texts if h not in vectors and h not in new]
    vectors.update(db.known_vectors(run.collection.conn, wanted, tables=tables))
    fresh = [h for h in wanted if h not in vectors]
    for h in fresh:
        new.add(h, texts[h])
    run.ui.add_total("encode", len(fresh))  # the bar's total, final once chunking ends
    return time.perf_counter() - began


def _encode(run: Run, texts: dict[str, str], vectors: dict[str, bytes]) -> float:
    """Encode ``texts`` into ``vectors``, parking them as they come; returns the seconds."""
    began = time.perf_counter()
    hashes = list(texts)
    for rows, encoded in _encoded_parts(run, list(texts.values())):
        parked = [(hashes[i], db.to_blob(v)) for i, v in zip(rows, encoded, strict=True)]
        db.park_vectors(run.collection.conn, parked)
        vectors.update(parked)
        run.report.chunks_encoded += len(parked)
    return time.perf_counter() - began


def _encoded_parts(run: Run, texts: list[str]) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The vectors of ``texts`` in parts to park: positions in ``texts`` (k,), rows (k, dim).

    One part here; on Ray, each batch as the actors hand it back.
    """
    if not texts:
        return

    def advance(n: int) -> None:
        run.ui.advance("encode", n)

    if run.opts.ray:
        # The indexer made this run's encoder a RayEncoder, so ray is imported already.
        from embedstore.ingest.ray_encoder import RayEncoder

        if isinstance(run.encoder, RayEncoder):
            yield from run.encoder.encode_parts(
                texts, in_progress=RAY_PARK_EVERY, batch_size=run.opts.batch_size,
                on_batch=advance,
            )
            return
    encoded = run.encoder.encode(texts, batch_size=run.opts.batch_size, on_batch=advance)
    yield np.arange(len(texts)), encoded  # (len(texts),), (len(texts), dim)


def drop_foreign_parked_vectors(run: Run) -> None:
    """Parked vectors of a killed run are only reusable by the same encoder."""
    conn = run.collection.conn
    identity = parked_identity(run.encoder.name, run.encoder.pooling)
    if db.get_meta(conn, "pending_for") != identity:
        with db.transaction(conn):
            conn.execute("DELETE FROM pending_vectors")
            db.set_meta(conn, "pending_for", identity)


class LongestFirst:
    """Texts by hash, handed out longest (by characters) first: a heap, so that taking
    every part of a million-text run costs O(n log n), not a sort per part."""

    def __init__(self) -> None:
        self._texts: dict[str, str] = {}
        self._heap: list[tuple[int, str]] = []  # (-characters, hash)

    def __len__(self) -> int:
        return len(self._texts)

    def __contains__(self, text_hash: object) -> bool:
        return text_hash in self._texts

    def add(self, text_hash: str, text: str) -> None:
        if text_hash not in self._texts:
            self._texts[text_hash] = text
            heapq.heappush(self._heap, (-len(text), text_hash))

    def take(self, n: int) -> dict[str, str]:
        """Remove and return the ``n`` longest texts, by hash."""
        taken = (heapq.heappop(self._heap)[1] for _ in range(min(n, len(self._heap))))
        return {h: self._texts.pop(h) for h in taken}
