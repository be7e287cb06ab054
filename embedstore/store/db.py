"""meta.sqlite: the source of truth for files, chunks and their vectors.

Every write that changes what search sees happens in ONE transaction
(`apply_changes`), so a process killed at any point leaves the collection as
before or as after. Vectors encoded during a run are parked in
``pending_vectors`` (committed as they come) so a killed run resumes without
encoding them again.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from embedstore.errors import OutdatedCollectionError
from embedstore.store import connection, symbol_table

if TYPE_CHECKING:
    from embedstore.chunking.symbols import Definition, ImportRef

SCHEMA_VERSION = 2  # PRAGMA user_version; 0 with a chunks table = format 1 (embedstore 0.1)
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
-- A file of an indexed folder (doc_id NULL) or a document pushed by id.
CREATE TABLE IF NOT EXISTS files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    language TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    size INTEGER NOT NULL,
    doc_id TEXT UNIQUE,
    metadata TEXT,
    content TEXT
);
-- What search returns: a definition (function, method, class), a section or a
-- window, whole. AUTOINCREMENT: a unit id is also its FAISS id, never reused.
-- Its vector is derived from its chunks' vectors (embedstore.chunking.units).
CREATE TABLE IF NOT EXISTS units (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    kind TEXT NOT NULL,
    symbol TEXT,
    text TEXT NOT NULL,
    vector BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS units_file ON units(file_id);
-- What the encoder sees: a unit whole, or the pieces of one over the token budget.
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    unit_id INTEGER NOT NULL REFERENCES units(id) ON DELETE CASCADE,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    context TEXT NOT NULL,
    text TEXT NOT NULL,
    text_hash TEXT NOT NULL,
    vector BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_unit ON chunks(unit_id);
CREATE INDEX IF NOT EXISTS chunks_text_hash ON chunks(text_hash);
-- Where a unit of a document is in its file (a URL fragment: page=12, slide=7, cell=5, an
-- HTML id), for the units that have one, and its own language where it is code inside a
-- document (a notebook's code cell: python). A table of its own rather than columns of
-- units, so that a store of this format without it just gains it, and older embedstores
-- ignore it.
CREATE TABLE IF NOT EXISTS unit_locations (
    unit_id INTEGER PRIMARY KEY REFERENCES units(id) ON DELETE CASCADE,
    location TEXT NOT NULL,
    language TEXT
);
CREATE TABLE IF NOT EXISTS pending_vectors (text_hash TEXT PRIMARY KEY, vector BLOB NOT NULL);
-- Lexical index: rowid = unit id; code-aware terms (embedstore.lexical) of the
-- unit's own name, of its enclosing class or module, and of its whole text.
CREATE VIRTUAL TABLE IF NOT EXISTS units_fts
    USING fts5(name_terms, owner_terms, terms, tokenize="unicode61 tokenchars '_'");
"""

VECTOR_DTYPE = np.float16
# Above every unit id: the open end of an id range.
MAX_ID = 2**63 - 1
# BM25 column weights: a match in the unit's own name beats one in its body, so
# the definition of `data_file_path` outranks the lines that merely call it; the
# enclosing class counts less, so "base url" does not find every BaseClient method.
NAME_WEIGHT = 10.0
OWNER_WEIGHT = 2.0
TEXT_WEIGHT = 1.0


@dataclass(frozen=True)
class FileRecord:
    id: int
    path: str
    language: str
    sha256: str
    size: int
    doc_id: str | None = None
    metadata: str | None = None  # JSON, documents only


@dataclass(frozen=True)
class NewChunk:
    start_line: int
    end_line: int
    context: str
    text: str
    text_hash: str


@dataclass(frozen=True)
class NewUnit:
    start_line: int
    end_line: int
    kind: str
    symbol: str | None
    text: str
    chunks: list[NewChunk]
    name_terms: str  # lexical terms of the unit's own name
    owner_terms: str  # ... of its enclosing class (or module)
    terms: str  # ... of its path, context and whole text
    location: str | None = None  # where a document's unit is: "page=12" (see unit_locations)
    language: str | None = None  # a document's code unit's own language (a notebook's cell)


@dataclass(frozen=True)
class NewFile:
    path: str
    language: str
    sha256: str
    size: int
    units: list[NewUnit]
    doc_id: str | None = None
    metadata: str | None = None  # JSON
    content: str | None = None  # a document's whole text, for get-by-id
    definitions: Sequence[Definition] = ()  # its symbol table (see store.symbol_table)
    imports: Sequence[ImportRef] = ()
    member_uses: Mapping[tuple[str, str], int] = field(default_factory=dict)


@dataclass(frozen=True)
class UnitRow:
    id: int
    path: str
    language: str
    start_line: int
    end_line: int
    kind: str
    symbol: str | None
    text: str
    doc_id: str | None
    location: str | None = None  # a document unit's place in its file: "page=12"
    # A section's first chunk's context: the headings it sits under ("Tutorial > Classes").
    context: str | None = None


@dataclass(frozen=True)
class PieceRow:
    """A chunk of a unit: where it is and its vector, to tell which piece matched."""

    unit_id: int
    start_line: int
    end_line: int
    text: str
    vector: bytes


def connect(path: Path) -> sqlite3.Connection:
    """Open (and create) the database in WAL mode: readers never block the writer.

    Raises OutdatedCollectionError for a database of an older format, which
    would otherwise get this format's tables beside its own.
    """
    conn = connect_reader(path)
    conn.execute("PRAGMA journal_mode=WAL")
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    has_chunks = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'chunks'"
    ).fetchone()
    if version < SCHEMA_VERSION and has_chunks:
        conn.close()
        raise OutdatedCollectionError(
            f"{path.parent.name!r} was built by an older embedstore (format {version or 1}, "
            f"now {SCHEMA_VERSION}): re-index it with `embedstore index PATH --name "
            f"{path.parent.name} --rebuild`"
        )
    conn.executescript(SCHEMA + symbol_table.SCHEMA)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    return conn


def connect_reader(path: Path) -> sqlite3.Connection:
    """Another connection to a database ``connect`` has opened: no schema work, no write.

    Autocommit (isolation_level None): transactions are explicit (``transaction``).
    A damaged file or a full disk raises embedstore's errors (``store.connection``).
    """
    conn = connection.connect(path)
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception (a failed COMMIT too)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException:
        # After a full disk or an I/O error SQLite may have rolled back already; a
        # second ROLLBACK would fail and hide the error that says what happened.
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


@contextmanager
def snapshot(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """A read transaction: every statement inside sees the database as of its first read."""
    conn.execute("BEGIN")
    try:
        yield conn
    finally:
        # Not after an I/O error SQLite has ended the transaction for: COMMIT would
        # fail and hide that error.
        if conn.in_transaction:
            conn.execute("COMMIT")


def checkpoint(conn: sqlite3.Connection) -> None:
    """Fold the write-ahead log back into the database after a big write.

    Otherwise the -wal file keeps the size of the largest transaction (as big
    as the database itself after a first index); readers in the middle of a
    query only make this a partial checkpoint, never an error.
    """
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def get_meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))


def generation(conn: sqlite3.Connection) -> int:
    """Bumped by every change to chunks; the FAISS file records the one it matches."""
    return int(get_meta(conn, "generation") or 0)


_FILE_COLUMNS = "id, path, language, sha256, size, doc_id, metadata"


def files_by_path(conn: sqlite3.Connection) -> dict[str, FileRecord]:
    """Every file and document by path."""
    rows = conn.execute(f"SELECT {_FILE_COLUMNS} FROM files")
    return {r[1]: FileRecord(*r) for r in rows}


def documents_by_id(conn: sqlite3.Connection, doc_ids: Sequence[str]) -> dict[str, FileRecord]:
    rows = conn.execute(
        f"SELECT {_FILE_COLUMNS} FROM files WHERE doc_id IN (SELECT value FROM json_each(?))",
        (json.dumps(list(doc_ids)),),
    )
    return {r[5]: FileRecord(*r) for r in rows}


def document(conn: sqlite3.Connection, doc_id: str) -> tuple[FileRecord, str, str] | None:
    """(record, content, metadata JSON) of one document."""
    row = conn.execute(
        f"SELECT {_FILE_COLUMNS}, content FROM files WHERE doc_id = ?", (doc_id,)
    ).fetchone()
    return None if row is None else (FileRecord(*row[:7]), row[7] or "", row[6] or "{}")


def to_blob(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=VECTOR_DTYPE).tobytes()


def from_blobs(blobs: Sequence[bytes], dim: int) -> np.ndarray:
    """float16 blobs -> float32 (n, dim)."""
    if not blobs:
        return np.zeros((0, dim), dtype=np.float32)
    flat = np.frombuffer(b"".join(blobs), dtype=VECTOR_DTYPE)  # (n * dim,)
    return flat.reshape(len(blobs), dim).astype(np.float32)  # (n, dim)


def known_vectors(
    conn: sqlite3.Connection,
    text_hashes: Iterable[str],
    tables: Sequence[str] = ("chunks", "pending_vectors"),
) -> dict[str, bytes]:
    """Vectors already encoded for these texts, in the index or parked by a killed run."""
    wanted = json.dumps(sorted(set(text_hashes)))
    found: dict[str, bytes] = {}
    for table in tables:
        query = (
            f"SELECT text_hash, vector FROM {table} "
            "WHERE text_hash IN (SELECT value FROM json_each(?))"
        )
        found.update(conn.execute(query, (wanted,)).fetchall())
    return found


def park_vectors(conn: sqlite3.Connection, items: Iterable[tuple[str, bytes]]) -> None:
    with transaction(conn):
        conn.executemany("INSERT OR REPLACE INTO pending_vectors VALUES (?, ?)", items)


def apply_changes(
    conn: sqlite3.Connection,
    *,
    remove_paths: Sequence[str],
    add_files: Sequence[NewFile],
    vectors: dict[str, bytes],
    unit_vectors: Sequence[bytes],
    wipe: bool = False,
    meta: dict[str, str] | None = None,
    check: Callable[[sqlite3.Connection], None] | None = None,
) -> tuple[list[int], list[int]]:
    """Swap in a run's result atomically; returns (removed unit ids, added unit ids).

    ``vectors`` holds every chunk's vector by text hash; ``unit_vectors`` one
    vector per unit of ``add_files``, in order. ``check`` sees the changed
    database before the commit; what it raises rolls the whole change back.
    """
    units = [u for f in add_files for u in f.units]
    if len(unit_vectors) != len(units):
        raise ValueError(f"{len(unit_vectors)} unit vectors for {len(units)} units")
    unit_blobs = iter(unit_vectors)
    with transaction(conn):
        if wipe:
            removed = [r[0] for r in conn.execute("SELECT id FROM units")]
            conn.execute("DELETE FROM chunks")
            conn.execute("DELETE FROM units")
            conn.execute("DELETE FROM files")
            conn.execute("DELETE FROM units_fts")
        else:
            removed = _delete_files(conn, remove_paths)
            conn.executemany("DELETE FROM units_fts WHERE rowid = ?", [(i,) for i in removed])
        added: list[int] = []
        for f in add_files:
            cur = conn.execute(
                "INSERT INTO files(path, language, sha256, size, doc_id, metadata, content) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (f.path, f.language, f.sha256, f.size, f.doc_id, f.metadata, f.content),
            )
            file_id = int(cur.lastrowid or 0)
            symbol_table.insert(conn, file_id, f.definitions, f.imports, f.member_uses)
            for u in f.units:
                cur = conn.execute(
                    "INSERT INTO units(file_id, start_line, end_line, kind, symbol, text, vector) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (file_id, u.start_line, u.end_line, u.kind, u.symbol, u.text,
                     next(unit_blobs)),
                )
                unit_id = int(cur.lastrowid or 0)
                if u.location is not None:
                    conn.execute("INSERT INTO unit_locations VALUES (?, ?, ?)",
                                 (unit_id, u.location, u.language))
                conn.executemany(
                    "INSERT INTO chunks(unit_id, start_line, end_line, context, text, text_hash, "
                    "vector) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(unit_id, c.start_line, c.end_line, c.context, c.text, c.text_hash,
                      vectors[c.text_hash]) for c in u.chunks],
                )
                conn.execute(
                    "INSERT INTO units_fts(rowid, name_terms, owner_terms, terms) "
                    "VALUES (?, ?, ?, ?)",
                    (unit_id, u.name_terms, u.owner_terms, u.terms),
                )
                added.append(unit_id)
        conn.execute("DELETE FROM pending_vectors")
        for key, value in (meta or {}).items():
            set_meta(conn, key, value)
        set_meta(conn, "generation", str(generation(conn) + 1))
        if check is not None:
            check(conn)
    return removed, added


def _delete_files(conn: sqlite3.Connection, paths: Sequence[str]) -> list[int]:
    removed: list[int] = []
    for path in paths:
        ids = conn.execute(
            "SELECT u.id FROM units u JOIN files f ON f.id = u.file_id WHERE f.path = ?", (path,)
        )
        removed.extend(r[0] for r in ids)
        conn.execute("DELETE FROM files WHERE path = ?", (path,))
    return removed


def all_vectors(conn: sqlite3.Connection, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """Every unit's (ids int64 (n,), vectors float32 (n, dim)): rebuilds the FAISS index."""
    rows = conn.execute("SELECT id, vector FROM units ORDER BY id").fetchall()
    ids = np.array([r[0] for r in rows], dtype=np.int64)
    return ids, from_blobs([r[1] for r in rows], dim)


def vectors_between(
    conn: sqlite3.Connection, first: int, last: int, dim: int
) -> tuple[np.ndarray, np.ndarray]:
    """(ids int64 (s,), vectors float32 (s, dim)) of the units with ids in [first, last]."""
    rows = conn.execute(
        "SELECT id, vector FROM units WHERE id BETWEEN ? AND ? ORDER BY id", (first, last)
    ).fetchall()
    ids = np.array([r[0] for r in rows], dtype=np.int64)
    return ids, from_blobs([r[1] for r in rows], dim)


def vectors_for(conn: sqlite3.Connection, ids: np.ndarray, dim: int) -> np.ndarray:
    """Vectors of the given unit ids in that order: the refine step's lookup."""
    id_list = [int(i) for i in ids]
    rows = dict(conn.execute(
        "SELECT id, vector FROM units WHERE id IN (SELECT value FROM json_each(?))",
        (json.dumps(id_list),),
    ))
    return from_blobs([rows[i] for i in id_list], dim)


def unit_rows(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, UnitRow]:
    if not ids:
        return {}
    rows = conn.execute(
        "SELECT u.id, f.path, coalesce(l.language, f.language), u.start_line, u.end_line, "
        "u.kind, u.symbol, u.text, f.doc_id, l.location, "
        "CASE WHEN u.kind = 'section' THEN (SELECT c.context FROM chunks c "
        "WHERE c.unit_id = u.id ORDER BY c.start_line, c.id LIMIT 1) END FROM units u "
        "JOIN files f ON f.id = u.file_id "
        "LEFT JOIN unit_locations l ON l.unit_id = u.id "
        "WHERE u.id IN (SELECT value FROM json_each(?))",
        (json.dumps([int(i) for i in ids]),),
    )
    return {r[0]: UnitRow(*r) for r in rows}


def split_unit_pieces(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, list[PieceRow]]:
    """The chunks of those units that have more than one, in line order."""
    rows = conn.execute(
        "SELECT unit_id, start_line, end_line, text, vector FROM chunks "
        "WHERE unit_id IN (SELECT value FROM json_each(?)) ORDER BY unit_id, start_line, id",
        (json.dumps([int(i) for i in ids]),),
    )
    pieces: dict[int, list[PieceRow]] = {}
    for row in rows:
        pieces.setdefault(row[0], []).append(PieceRow(*row))
    return {unit_id: found for unit_id, found in pieces.items() if len(found) > 1}


def pieces_at(conn: sqlite3.Connection, path: str, line: int) -> int:
    """How many chunks the unit holding ``line`` of ``path`` was cut into (0: no unit there)."""
    row = conn.execute(
        "SELECT COUNT(c.id) FROM units u JOIN files f ON f.id = u.file_id "
        "JOIN chunks c ON c.unit_id = u.id "
        "WHERE f.path = ? AND u.start_line <= ? AND u.end_line >= ? GROUP BY u.id",
        (path, line, line),
    ).fetchone()
    return int(row[0]) if row else 0


def whole_unit_rows(
    conn: sqlite3.Connection,
) -> list[tuple[int, str, int, int, str, str, bytes, int]]:
    """(id, path, start, end, first chunk's context, text, vector, chunk count) of every unit."""
    return conn.execute(
        "SELECT u.id, f.path, u.start_line, u.end_line, "
        "(SELECT context FROM chunks c WHERE c.unit_id = u.id "
        " ORDER BY c.start_line, c.id LIMIT 1), "
        "u.text, u.vector, (SELECT COUNT(*) FROM chunks c WHERE c.unit_id = u.id) "
        "FROM units u JOIN files f ON f.id = u.file_id ORDER BY u.id"
    ).fetchall()


def counts(conn: sqlite3.Connection) -> tuple[int, int, int]:
    """(files, units, chunks)."""
    files, units, chunks = (
        int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
        for table in ("files", "units", "chunks")
    )
    return files, units, chunks


def file_filter_rows(conn: sqlite3.Connection) -> list[tuple[int, str, str]]:
    """(id, path, language) of every file: what path and language filters look at."""
    return [(int(r[0]), str(r[1]), str(r[2])) for r in conn.execute(
        "SELECT id, path, language FROM files"
    )]


def unit_ids_of_files(conn: sqlite3.Connection, file_ids: Sequence[int]) -> np.ndarray:
    """int64 (n,) ids of the units of these files."""
    rows = conn.execute(
        "SELECT id FROM units WHERE file_id IN (SELECT value FROM json_each(?))",
        (json.dumps(list(file_ids)),),
    )
    return np.array([r[0] for r in rows], dtype=np.int64)


def lexical_search(
    conn: sqlite3.Connection, match: str, limit: int, file_ids: Sequence[int] | None = None
) -> list[tuple[int, float]]:
    """(unit id, BM25 score, higher is better) for an FTS5 MATCH expression, best first."""
    # No join with units unless a filter needs one: it would cost more than the match.
    where = "" if file_ids is None else (
        " AND rowid IN (SELECT id FROM units WHERE file_id IN (SELECT value FROM json_each(?)))"
    )
    params: list[object] = [match]
    if file_ids is not None:
        params.append(json.dumps(list(file_ids)))
    params.append(limit)
    # FTS5's bm25() is lower-is-better; negated so every score here grows with relevance.
    bm25 = f"bm25(units_fts, {NAME_WEIGHT}, {OWNER_WEIGHT}, {TEXT_WEIGHT})"
    rows = conn.execute(
        f"SELECT rowid, -{bm25} FROM units_fts "
        f"WHERE units_fts MATCH ?{where} ORDER BY {bm25}, rowid LIMIT ?",
        params,
    )
    return [(int(r[0]), float(r[1])) for r in rows]


def unit_ids(conn: sqlite3.Connection) -> np.ndarray:
    """int64 (n,) ids of every unit, ascending: what a map samples from without its vectors."""
    return unit_ids_upto(conn, MAX_ID)


def lexical_rows(
    conn: sqlite3.Connection, after: int = 0
) -> Iterator[tuple[int, tuple[str, str, str]]]:
    """(unit id, (name terms, owner terms, terms)) of the units past id ``after``, ascending."""
    for row in conn.execute(
        "SELECT rowid, name_terms, owner_terms, terms FROM units_fts WHERE rowid > ? "
        "ORDER BY rowid", (after,)
    ):
        yield int(row[0]), (str(row[1]), str(row[2]), str(row[3]))


def unit_count(conn: sqlite3.Connection) -> int:
    """Units in the collection (SQLite counts the entries of the small file_id index)."""
    return int(conn.execute("SELECT COUNT(*) FROM units").fetchone()[0])


def count_units_after(conn: sqlite3.Connection, last: int) -> int:
    """Units whose id is above ``last``: a seek, then only those rows."""
    return int(conn.execute("SELECT COUNT(*) FROM units WHERE id > ?", (last,)).fetchone()[0])


def unit_ids_upto(conn: sqlite3.Connection, last: int) -> np.ndarray:
    """int64 (n,) ids of the units up to ``last``, ascending.

    Read from the file_id index, whose entries are a few bytes, not from the
    table, whose rows carry each unit's text and vector (a million ids: 0.3 s
    against 1 s), and fetched as one string rather than a million rows.
    """
    text = conn.execute(
        "SELECT group_concat(id) FROM units INDEXED BY units_file WHERE id <= ?", (last,)
    ).fetchone()[0]
    if not text:
        return np.empty(0, dtype=np.int64)
    return np.sort(np.array(text.split(","), dtype=np.int64))
