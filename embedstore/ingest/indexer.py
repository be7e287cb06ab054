"""`embedstore index PATH`: scan -> chunk -> encode -> commit, incrementally.

Each stage has its module (scan, chunk, encode, commit); this one prepares the
collection and runs them. Nothing that search sees changes until the single
SQLite transaction of the commit stage; vectors encoded on the way are parked
as they come, so a killed run leaves the collection as it was and the next run
picks up the parked vectors.
"""

from __future__ import annotations

import importlib.util
import json
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from embedstore.encoders.base import Encoder
from embedstore.encoders.registry import canonical_spec, load_encoder
from embedstore.errors import EncoderMismatchError, OutdatedCollectionError, UserInputError
from embedstore.indexes import choose_kind
from embedstore.ingest import freshness, git
from embedstore.ingest.chunk import embedding_text, text_hash
from embedstore.ingest.commit import commit
from embedstore.ingest.deferred_encoder import DeferredEncoder
from embedstore.ingest.documents import Document
from embedstore.ingest.encode import chunk_and_encode, parked_identity
from embedstore.ingest.run import IndexOptions, IndexReport, Run
from embedstore.ingest.scan import includes_vendored, refuse_taken_paths, scan
from embedstore.ingest.sources import SourceFile, check_root
from embedstore.progress import NullProgress, Progress
from embedstore.store import db, symbol_table
from embedstore.store.collection import Collection
from embedstore.store.manifest import Manifest
from embedstore.store.store import Store, name_for_folder

__all__ = [
    "IndexOptions", "IndexReport", "delete_documents", "embedding_text", "index_folder",
    "prepare_collection", "reuse_vectors", "text_hash", "upsert_documents",
]

def index_folder(
    store: Store, root: Path, options: IndexOptions | None = None, progress: Progress | None = None
) -> IndexReport:
    """Create or update a collection from a folder; returns what was done.

    Files gone from the folder leave the collection; documents pushed by id stay.
    The report's ``seconds`` time every stage: load (the collection opened, the model
    loaded, Ray started), scan, chunk, encode, store, index, record (the freshness
    stamps and the database checkpoint), export (the model's ONNX export, once per
    store and model).
    """
    opts = options or IndexOptions()
    root = Path(root)
    check_root(root)  # a missing path fails here, before the model loads
    name = opts.name or name_for_folder(root)
    began = time.perf_counter()
    collection, manifest, local = prepare_collection(store, name, opts, source_root=root)
    head = git.head_commit(root.resolve())
    with _encoding(local, opts.ray) as encoder, collection.writing():
        run = Run(collection, manifest, encoder, opts, progress or NullProgress())
        run.report.seconds["load"] = round(time.perf_counter() - began, 3)
        changes = scan(run, root)
        # Every file was read against the current extractor: the symbol table is whole.
        apply(run, changes.todo, changes.remove_paths, meta={
            "symbols": symbol_table.SYMBOLS_VERSION,
            freshness.INCLUDE_VENDORED: "1" if includes_vendored(run) else "0",
        })
        with run.timed("record"):
            # After the changes commit: a kill in between leaves older stamps, read as stale.
            freshness.record(collection.conn, changes.stats, head)
            db.checkpoint(collection.conn)
    # Once per store and model, so that searches encode queries without torch.
    model = local.model if isinstance(local, DeferredEncoder) else local
    if model is not None:
        from embedstore.encoders.onnx_export import ensure_exported  # torch is loaded by now

        with run.timed("export"):
            ensure_exported(model, store.root)
    return run.report


def apply(
    run: Run,
    todo: list[SourceFile],
    remove_paths: list[str],
    documents: dict[str, Document] | None = None,
    meta: dict[str, str] | None = None,
) -> None:
    """Replace ``remove_paths`` by the units of ``todo`` (documents keyed by path)."""
    work, vectors = chunk_and_encode(run, todo)
    manifest_changed = run.collection.manifest != run.manifest
    if todo or remove_paths or manifest_changed or run.opts.rebuild:
        commit(run, work, vectors, remove_paths, documents or {}, meta or {})
    else:
        run.collection.vector_index()  # repairs a stale index, if any
    # All this run changes has committed: a new collection may now be seen.
    run.collection.mark_complete()
    _, run.report.units_total, run.report.chunks_total = db.counts(run.collection.conn)
    run.report.index_kind = str(run.collection.manifest.index.get("kind", ""))


RAY_MISSING = "--ray needs the optional extra: pip install 'embedstore[ray]'"


@contextmanager
def _encoding(local: Encoder, ray_address: str | None) -> Iterator[Encoder]:
    """This run's document encoder: ``local``, or the same model on a Ray cluster (--ray)."""
    if ray_address is None:
        yield local
        return
    # Imported only here: ray takes seconds to import and the default path never needs it.
    if importlib.util.find_spec("ray") is None:
        raise UserInputError(RAY_MISSING)
    from embedstore.ingest.ray_encoder import RayEncoder, ray_cluster

    with ray_cluster(ray_address):
        yield RayEncoder(local)


def upsert_documents(
    store: Store, name: str, documents: Sequence[Document], progress: Progress | None = None
) -> IndexReport:
    """Add or replace documents by id in an existing collection."""
    ids = [d.id for d in documents]
    if len(set(ids)) != len(ids):
        raise UserInputError("document ids must be unique within one request")
    collection, manifest, encoder = prepare_collection(store, name, IndexOptions(name=name))
    run = Run(collection, manifest, encoder, IndexOptions(name=name), progress or NullProgress())
    with collection.writing():
        known = db.documents_by_id(collection.conn, ids)
        todo = [d for d in documents if _document_changed(d, known.get(d.id))]
        refuse_taken_paths([d.as_source() for d in todo], db.files_by_path(collection.conn),
                            owner={d.shown_path: d.id for d in todo})
        run.report.files_scanned = len(documents)
        run.report.files_new = sum(1 for d in todo if d.id not in known)
        run.report.files_changed = len(todo) - run.report.files_new
        run.report.files_unchanged = len(documents) - len(todo)
        apply(run, [d.as_source() for d in todo], [known[d.id].path for d in todo if d.id in known],
              documents={d.shown_path: d for d in todo})
    return run.report


def delete_documents(store: Store, name: str, ids: Sequence[str]) -> int:
    """Remove documents by id; returns how many existed."""
    collection = store.open(name)
    with collection.writing():
        known = db.documents_by_id(collection.conn, ids)
        if not known:
            return 0
        removed, added = db.apply_changes(
            collection.conn, remove_paths=[r.path for r in known.values()], add_files=[],
            vectors={}, unit_vectors=[], check=collection.check_index_fits,
        )
        collection.update_index(removed, added)
    return len(known)


def reuse_vectors(source: Collection, target: Collection) -> int:
    """Park ``source``'s vectors in ``target``: indexing there encodes only texts it lacks.

    Vectors are keyed by the hash of the exact embedded text (path header
    included), so a reused vector is always the one the encoder would give.
    Returns how many were parked.
    """
    have, want = source.manifest, target.manifest
    if (have.encoder, have.pooling, have.dim) != (want.encoder, want.pooling, want.dim):
        raise EncoderMismatchError(
            f"collection {source.name!r} uses {have.encoder} ({have.pooling}); "
            f"{target.name!r} needs {want.encoder} ({want.pooling}): its vectors cannot be reused"
        )
    rows = source.conn.execute("SELECT text_hash, vector FROM chunks").fetchall()
    with target.writing(), db.transaction(target.conn):
        target.conn.executemany("INSERT OR REPLACE INTO pending_vectors VALUES (?, ?)", rows)
        db.set_meta(target.conn, "pending_for", parked_identity(want.encoder, want.pooling))
    return len(rows)


def _document_changed(document: Document, record: db.FileRecord | None) -> bool:
    return (
        record is None
        or record.path != document.shown_path
        or record.sha256 != document.as_source().sha256
        or record.metadata != json.dumps(document.metadata)
    )


def _open_existing(store: Store, name: str, *, rebuild: bool) -> Collection | None:
    """The collection if it exists; one of an older format is replaced when rebuilding."""
    if not store.exists(name):
        return None
    try:
        return store.open(name)
    except OutdatedCollectionError:
        if not rebuild:
            raise
        store.delete(name)
        return None


def prepare_collection(
    store: Store, name: str, opts: IndexOptions, *, source_root: Path | None = None
) -> tuple[Collection, Manifest, Encoder]:
    """The collection (created if new), the manifest this run writes, and its encoder.

    Asking an existing collection for another encoder, pooling or header is
    refused unless ``opts.rebuild``: mixed vectors would silently corrupt search.
    """
    existing = _open_existing(store, name, rebuild=opts.rebuild)
    old = existing.manifest if existing else None
    spec = canonical_spec(opts.encoder) if opts.encoder else (old.encoder if old else None)
    pooling = opts.pooling or (old.pooling if old and spec == old.encoder else None)
    header = opts.embed_header if opts.embed_header is not None else (
        old.embed_header if old else True
    )
    if old and not opts.rebuild and (
        spec != old.encoder or pooling != old.pooling or header != old.embed_header
    ):
        raise EncoderMismatchError(
            f"collection {name!r} was built with encoder {old.encoder} (pooling {old.pooling}, "
            f"{old.dim}-d, header {old.embed_header}); this run asks for {spec} (pooling "
            f"{pooling or 'model default'}, header {header}). "
            "Re-run with --rebuild to re-encode everything, or drop --encoder/--pooling."
        )
    encoder: Encoder
    if old and old.precision and not opts.rebuild and opts.precision is None:
        # Same model as before (checked above): load it only if this run encodes much.
        encoder = DeferredEncoder(old, store.root, old.precision)
    else:
        encoder = load_encoder(spec, pooling, opts.precision)
    root = str(source_root.resolve()) if source_root else (old.source_root if old else None)
    manifest = Manifest(
        encoder=encoder.name,
        encoder_revision=encoder.revision,
        dim=encoder.dim,
        pooling=encoder.pooling,
        embed_header=header,
        index_kind=opts.index_kind or (old.index_kind if old else "auto"),
        index=old.index if old else {},
        source_root=root,
        precision=encoder.precision,
    )
    choose_kind(manifest.index_kind, 0)  # a bad --index fails before any work
    collection = existing or store.create(name, manifest)
    return collection, manifest, encoder
