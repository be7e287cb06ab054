"""BM25 for large collections: a segment file of postings beside the database.

FTS5 scores every row an OR query matches, about a microsecond each: at a
million units a docstring query matches ~150,000 rows and takes ~150 ms. A
collection of ``MIN_UNITS`` or more therefore also keeps ``lexical.bm25``, the
postings of its units as numpy arrays (``embedstore.indexes.bm25``), which give
FTS5's own scores, bit for bit, in a few milliseconds.

The file is a snapshot of the units up to ``last_unit_id``. Unit ids are never
reused (AUTOINCREMENT) and a unit's terms never change in place (an edit
deletes the unit and inserts a new one), so the snapshot stays true of the
rows it holds; what happened since is read from SQLite per database
generation: which of its units are gone, and the terms of units added after
it (a small second segment). Statistics (rows, tokens, document frequency)
come from the union, as FTS5 would compute them now. The writer rebuilds the
file once ``REBUILD_FRACTION`` of it has changed, so the per-generation catch-up
stays small; a reader that finds no usable file builds one, as it would a
missing FAISS index.

SQLite stays the truth: the database records the token of the file it
belongs to, written after the file, so a crash between the two leaves a file
that no reader trusts (and that the next write replaces).
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from embedstore.errors import LexicalIndexError
from embedstore.indexes import bm25
from embedstore.indexes.segment_file import read_segment, write_segment
from embedstore.store import db

SEGMENT_FILE = "lexical.bm25"
META_KEY = "lexical_segment"
WEIGHTS = (db.NAME_WEIGHT, db.OWNER_WEIGHT, db.TEXT_WEIGHT)
# Measured (docstring queries, top 100): at 17k units FTS5 takes 3.3 ms p50, a
# segment 1.4 (8 ms to map it in a new process); at 1M units 143 ms against 3.7.
# Below ~10k units FTS5 answers in about a millisecond and a segment would only
# add a file and a rebuild now and then.
MIN_UNITS = 10_000
# Rebuild the segment once this share of its rows is gone or newer than it:
# readers then catch up on at most this much per database generation.
REBUILD_FRACTION = 0.05


@dataclass(frozen=True)
class LexicalView:
    """The segment as of one database generation: live rows, newer units, statistics."""

    segment: bm25.Segment
    alive: npt.NDArray[np.bool_] | None  # (n,) None when every row is still a unit
    newer: bm25.Segment
    stats: bm25.Stats

    def top(
        self, terms: Sequence[str], k: int, allowed_units: npt.NDArray[np.int64] | None = None
    ) -> list[tuple[int, float]]:
        """The k best (unit id, BM25) for distinct query terms, as FTS5's bm25() ranks them."""
        idfs = [
            (term, self.stats.idf(bm25.document_frequency(self.segment, term, self.alive)
                                  + bm25.document_frequency(self.newer, term)))
            for term in terms
        ]
        allowed = self.alive
        allowed_newer = None
        if allowed_units is not None:
            allowed = np.isin(self.segment.unit_ids, allowed_units)
            if self.alive is not None:
                allowed &= self.alive
            allowed_newer = np.isin(self.newer.unit_ids, allowed_units)
        hits = (bm25.top(self.segment, idfs, self.stats, k, allowed)
                + bm25.top(self.newer, idfs, self.stats, k, allowed_newer))
        ids = np.array([i for i, _ in hits], dtype=np.int64)
        values = np.array([v for _, v in hits], dtype=np.float64)
        return bm25.best(ids, values, k)


@dataclass(frozen=True)
class SegmentState:
    """What the database says of the saved segment, and how much has changed since."""

    token: str
    last_unit_id: int
    rows: int
    changed: int

    @property
    def stale(self) -> bool:
        return self.changed > REBUILD_FRACTION * max(self.rows, 1)


def segment_state(conn: sqlite3.Connection) -> SegmentState | None:
    """The saved segment's record, with changed rows counted (cheap: two counts)."""
    text = db.get_meta(conn, META_KEY)
    if text is None:
        return None
    record = json.loads(text)
    if record.get("weights") != list(WEIGHTS):
        return None  # built with other column weights: its scores would differ
    last, rows = int(record["last_unit_id"]), int(record["rows"])
    with db.snapshot(conn):
        newer = db.count_units_after(conn, last)
        kept = db.unit_count(conn) - newer
    return SegmentState(str(record["token"]), last, rows, rows - kept + newer)


def build(conn: sqlite3.Connection, folder: Path) -> None:
    """Write the segment of every unit now in the database, then record it there."""
    with db.snapshot(conn):
        segment = bm25.build(db.lexical_rows(conn), WEIGHTS)
    token = uuid.uuid4().hex
    last = int(segment.unit_ids[-1]) if segment.unit_ids.size else 0
    write_segment(folder / SEGMENT_FILE, segment, {"token": token})
    record = {"token": token, "last_unit_id": last, "rows": int(segment.unit_ids.size),
              "weights": list(WEIGHTS)}
    with db.transaction(conn):
        db.set_meta(conn, META_KEY, json.dumps(record))


def drop(conn: sqlite3.Connection, folder: Path) -> None:
    """Forget the segment (the collection shrank below MIN_UNITS)."""
    with db.transaction(conn):
        conn.execute("DELETE FROM meta WHERE key = ?", (META_KEY,))
    (folder / SEGMENT_FILE).unlink(missing_ok=True)


def load_segment(folder: Path, token: str) -> bm25.Segment | None:
    """The saved segment if it is the one the database records, else None."""
    try:
        segment, header = read_segment(folder / SEGMENT_FILE)
    except LexicalIndexError:
        return None
    return segment if header.get("token") == token else None


def view(conn: sqlite3.Connection, segment: bm25.Segment, last_unit_id: int) -> LexicalView:
    """``segment`` (holding the units up to ``last_unit_id``) as the database stands now."""
    alive = None
    with db.snapshot(conn):
        # Counting is cheaper than reading a million ids, and usually says "all there".
        if db.unit_count(conn) - db.count_units_after(conn, last_unit_id) != segment.unit_ids.size:
            alive = _members(segment.unit_ids, db.unit_ids_upto(conn, last_unit_id))
        newer = bm25.build(db.lexical_rows(conn, last_unit_id), WEIGHTS)
    stats = bm25.Stats(
        rows=(segment.unit_ids.size if alive is None else int(alive.sum())) + newer.unit_ids.size,
        tokens=bm25.tokens(segment, alive) + bm25.tokens(newer),
    )
    return LexicalView(segment, alive, newer, stats)


def _members(ids: npt.NDArray[np.int64], present: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    """(n,) whether each of ``ids`` is in ``present``; both ascending."""
    if present.size == 0:
        return np.zeros(ids.size, dtype=np.bool_)
    at = np.minimum(np.searchsorted(present, ids), present.size - 1)  # (n,)
    return np.asarray(present[at] == ids)
