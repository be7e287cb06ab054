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
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

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
-- AUTOINCREMENT: a chunk id is also its FAISS id, so ids are never reused.
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    kind TEXT NOT NULL,
    symbol TEXT,
    context TEXT NOT NULL,
    text TEXT NOT NULL,
    text_hash TEXT NOT NULL,
    vector BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_file ON chunks(file_id);
CREATE INDEX IF NOT EXISTS chunks_text_hash ON chunks(text_hash);
CREATE TABLE IF NOT EXISTS pending_vectors (text_hash TEXT PRIMARY KEY, vector BLOB NOT NULL);
-- Lexical index: rowid = chunk id; code-aware terms (embedstore.lexical) of the
-- chunk's symbol and of its whole text; identifiers with underscores stay one token.
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts
    USING fts5(symbol_terms, terms, tokenize="unicode61 tokenchars '_'");
"""

VECTOR_DTYPE = np.float16
SYMBOL_WEIGHT = 10.0


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
    kind: str
    symbol: str | None
    context: str
    text: str
    text_hash: str
    symbol_terms: str  # lexical terms of the symbol the chunk defines
    terms: str  # lexical terms of its whole text


@dataclass(frozen=True)
class NewFile:
    path: str
    language: str
    sha256: str
    size: int
    chunks: list[NewChunk]
    doc_id: str | None = None
    metadata: str | None = None  # JSON
    content: str | None = None  # a document's whole text, for get-by-id


@dataclass(frozen=True)
class ChunkRow:
    id: int
    path: str
    language: str
    start_line: int
    end_line: int
    kind: str
    symbol: str | None
    text: str
    doc_id: str | None


def connect(path: Path) -> sqlite3.Connection:
    """Open (and create) the database in WAL mode: readers never block the writer."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.executescript(SCHEMA)
    return conn


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
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
    wipe: bool = False,
    meta: dict[str, str] | None = None,
) -> tuple[list[int], list[int]]:
    """Swap in a run's result atomically; returns (removed chunk ids, added chunk ids)."""
    with transaction(conn):
        if wipe:
            removed = [r[0] for r in conn.execute("SELECT id FROM chunks")]
            conn.execute("DELETE FROM chunks")
            conn.execute("DELETE FROM files")
            conn.execute("DELETE FROM chunks_fts")
        else:
            removed = _delete_files(conn, remove_paths)
            conn.executemany("DELETE FROM chunks_fts WHERE rowid = ?", [(i,) for i in removed])
        added: list[int] = []
        for f in add_files:
            cur = conn.execute(
                "INSERT INTO files(path, language, sha256, size, doc_id, metadata, content) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (f.path, f.language, f.sha256, f.size, f.doc_id, f.metadata, f.content),
            )
            file_id = cur.lastrowid
            for c in f.chunks:
                cur = conn.execute(
                    "INSERT INTO chunks(file_id, start_line, end_line, kind, symbol, context, "
                    "text, text_hash, vector) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (file_id, c.start_line, c.end_line, c.kind, c.symbol, c.context, c.text,
                     c.text_hash, vectors[c.text_hash]),
                )
                chunk_id = int(cur.lastrowid or 0)
                conn.execute(
                    "INSERT INTO chunks_fts(rowid, symbol_terms, terms) VALUES (?, ?, ?)",
                    (chunk_id, c.symbol_terms, c.terms),
                )
                added.append(chunk_id)
        conn.execute("DELETE FROM pending_vectors")
        for key, value in (meta or {}).items():
            set_meta(conn, key, value)
        set_meta(conn, "generation", str(generation(conn) + 1))
    return removed, added


def _delete_files(conn: sqlite3.Connection, paths: Sequence[str]) -> list[int]:
    removed: list[int] = []
    for path in paths:
        ids = conn.execute(
            "SELECT c.id FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = ?", (path,)
        )
        removed.extend(r[0] for r in ids)
        conn.execute("DELETE FROM files WHERE path = ?", (path,))
    return removed


def all_vectors(conn: sqlite3.Connection, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """Every chunk's (ids int64 (n,), vectors float32 (n, dim)): rebuilds the FAISS index."""
    rows = conn.execute("SELECT id, vector FROM chunks ORDER BY id").fetchall()
    ids = np.array([r[0] for r in rows], dtype=np.int64)
    return ids, from_blobs([r[1] for r in rows], dim)


def vectors_for(conn: sqlite3.Connection, ids: np.ndarray, dim: int) -> np.ndarray:
    """Vectors of the given chunk ids in that order: the refine step's lookup."""
    id_list = [int(i) for i in ids]
    rows = dict(conn.execute(
        "SELECT id, vector FROM chunks WHERE id IN (SELECT value FROM json_each(?))",
        (json.dumps(id_list),),
    ))
    return from_blobs([rows[i] for i in id_list], dim)


def chunk_rows(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, ChunkRow]:
    if not ids:
        return {}
    rows = conn.execute(
        "SELECT c.id, f.path, f.language, c.start_line, c.end_line, c.kind, c.symbol, c.text, "
        "f.doc_id FROM chunks c JOIN files f ON f.id = c.file_id "
        "WHERE c.id IN (SELECT value FROM json_each(?))",
        (json.dumps([int(i) for i in ids]),),
    )
    return {r[0]: ChunkRow(*r) for r in rows}


def counts(conn: sqlite3.Connection) -> tuple[int, int]:
    files = conn.execute("SELECT COUNT(*) FROM files").fetchone()[0]
    chunks = conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    return int(files), int(chunks)


def file_filter_rows(conn: sqlite3.Connection) -> list[tuple[int, str, str]]:
    """(id, path, language) of every file: what path and language filters look at."""
    return [(int(r[0]), str(r[1]), str(r[2])) for r in conn.execute(
        "SELECT id, path, language FROM files"
    )]


def chunk_ids_of_files(conn: sqlite3.Connection, file_ids: Sequence[int]) -> np.ndarray:
    """int64 (n,) ids of the chunks of these files."""
    rows = conn.execute(
        "SELECT id FROM chunks WHERE file_id IN (SELECT value FROM json_each(?))",
        (json.dumps(list(file_ids)),),
    )
    return np.array([r[0] for r in rows], dtype=np.int64)


def lexical_search(
    conn: sqlite3.Connection, match: str, limit: int, file_ids: Sequence[int] | None = None
) -> list[tuple[int, float]]:
    """(chunk id, BM25 score, higher is better) for an FTS5 MATCH expression, best first."""
    where = "" if file_ids is None else (
        " AND c.file_id IN (SELECT value FROM json_each(?))"
    )
    params: list[object] = [match]
    if file_ids is not None:
        params.append(json.dumps(list(file_ids)))
    params.append(limit)
    # FTS5's bm25() is lower-is-better; negated so every score here grows with relevance.
    # A match in the defined symbol's name counts SYMBOL_WEIGHT times a match in the text,
    # so the definition of `data_file_path` beats the lines that merely call it.
    bm25 = f"bm25(chunks_fts, {SYMBOL_WEIGHT}, 1.0)"
    rows = conn.execute(
        f"SELECT c.id, -{bm25} FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid "
        f"WHERE chunks_fts MATCH ?{where} ORDER BY {bm25} LIMIT ?",
        params,
    )
    return [(int(r[0]), float(r[1])) for r in rows]
