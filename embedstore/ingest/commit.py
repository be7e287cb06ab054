"""Stage 4, commit: the run's changes in one SQLite transaction, then the vector index.

Nothing that search sees changes before this transaction, so a killed run
leaves the collection as it was.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from embedstore.chunking.units import unit_vector
from embedstore.ingest.chunk import FileWork
from embedstore.ingest.documents import Document
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
        new_files = [new_file(w, documents.get(w.source.rel_path)) for w in work]
        removed, added = db.apply_changes(
            conn,
            remove_paths=remove_paths,
            add_files=new_files,
            vectors=vectors,
            unit_vectors=unit_vectors(new_files, vectors, run.manifest.dim),
            wipe=run.opts.rebuild,
            meta={"manifest": run.manifest.to_json(), "pending_for": "", **meta},
            check=run.collection.check_index_fits,
        )
    run.report.units_removed = len(removed)
    run.report.units_added = len(added)
    with run.stage("index", None):
        run.collection.update_index(removed, added)
    db.checkpoint(conn)


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
