"""Stage 4, commit: the run's changes in one SQLite transaction, then the vector index.

Nothing that search sees changes before this transaction, so a killed run
leaves the collection as it was.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from embedstore.chunking.units import unit_vector
from embedstore.ingest.chunk import FileWork
from embedstore.ingest.documents import Document
from embedstore.ingest.encode import parked_identity
from embedstore.ingest.run import Run
from embedstore.store import db


def commit(
    run: Run,
    work: list[FileWork],
    vectors: dict[str, bytes],
    remove_paths: list[str],
    documents: dict[str, Document],
    meta: dict[str, str],
) -> None:
    """Replace ``remove_paths`` by the units of ``work``; fills the report's unit counts."""
    conn = run.collection.conn
    with run.stage("store", None):
        retired = [] if run.opts.rebuild else retired_vectors(conn, remove_paths)
        new_files = [new_file(w, documents.get(w.source.rel_path)) for w in work]
        removed, added = db.apply_changes(
            conn,
            remove_paths=remove_paths,
            add_files=new_files,
            vectors=vectors,
            unit_vectors=unit_vectors(new_files, vectors, run.manifest.dim),
            wipe=run.opts.rebuild,
            meta={"manifest": run.manifest.to_json(), **meta,
                  "pending_for": parked_identity(run.encoder.name, run.encoder.pooling)},
            check=run.collection.check_index_fits,
        )
        # Kept parked (apply_changes emptied the table): a text removed now and back later
        # (v1 -> v2 -> v1, a branch checked out and back) gets its very vector again. Encoded
        # anew it would differ slightly, as a batch's company changes the float rounding (by
        # up to 1e-3 in bf16, 1e-7 in fp32), and scores would depend on indexing history.
        # Outside the transaction: a kill in between loses a cache, nothing else.
        db.park_vectors(conn, [(h, v) for h, v in retired if h not in vectors])
    run.report.units_removed = len(removed)
    run.report.units_added = len(added)
    with run.stage("index", None):
        run.collection.update_index(removed, added)
    db.checkpoint(conn)


def retired_vectors(conn: sqlite3.Connection, paths: Sequence[str]) -> list[tuple[str, bytes]]:
    """(text hash, vector) of every chunk of the files at ``paths``."""
    return conn.execute(
        "SELECT c.text_hash, c.vector FROM chunks c JOIN units u ON u.id = c.unit_id "
        "JOIN files f ON f.id = u.file_id WHERE f.path IN (SELECT value FROM json_each(?))",
        (json.dumps(list(paths)),),
    ).fetchall()


def unit_vectors(
    files: Sequence[db.NewFile], vectors: dict[str, bytes], dim: int
) -> list[bytes]:
    """One vector per unit of ``files``, in order, from its chunks' vectors."""
    out = []
    for f in files:
        for u in f.units:
            if len(u.chunks) == 1:
                out.append(vectors[u.chunks[0].text_hash])
            else:
                pieces = db.from_blobs([vectors[c.text_hash] for c in u.chunks], dim)  # (n, d)
                out.append(db.to_blob(unit_vector(pieces)))
    return out


def new_file(work: FileWork, document: Document | None) -> db.NewFile:
    source, symbols = work.source, work.symbols
    if document is None:
        return db.NewFile(
            source.rel_path, source.language, source.sha256, source.size, work.units,
            definitions=symbols.definitions, imports=symbols.imports,
            member_uses=symbols.member_uses,
        )
    return db.NewFile(
        source.rel_path, source.language, source.sha256, source.size, work.units,
        doc_id=document.id, metadata=json.dumps(document.metadata), content=document.text,
        definitions=symbols.definitions, imports=symbols.imports,
        member_uses=symbols.member_uses,
    )
