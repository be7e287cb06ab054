"""`embedstore index PATH`: scan -> chunk -> encode -> store -> index, incrementally.

Nothing that search sees changes until the single SQLite transaction at the
end; vectors encoded on the way are parked as they come, so a killed run
leaves the collection as it was and the next run picks up the parked vectors.
"""

from __future__ import annotations

import hashlib
import heapq
import importlib.util
import json
import queue
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from embedstore import freshness, git
from embedstore.chunking import chunk_file
from embedstore.chunking.types import Chunk, chunk_body
from embedstore.documents import Document
from embedstore.encoders.base import Encoder
from embedstore.encoders.deferred import DeferredEncoder
from embedstore.encoders.registry import canonical_spec, load_encoder
from embedstore.errors import (
    DocumentConflictError,
    EncoderMismatchError,
    OutdatedCollectionError,
    UserInputError,
)
from embedstore.indexes import choose_kind
from embedstore.lexical import index_terms
from embedstore.progress import NullProgress, Progress
from embedstore.sources import ScanStats, SourceFile, check_root, walk_sources
from embedstore.store import db
from embedstore.store.collection import Collection
from embedstore.store.manifest import Manifest
from embedstore.store.store import Store, name_for_folder
from embedstore.units import group_units, own_name, owner_name, unit_vector

# Texts encoded between two commits of parked vectors: the most a kill can lose.
PARK_EVERY = 512
# On Ray one encode call covers the whole run and each batch is parked as it comes
# back; the actors together encode at most this many texts at a time (what a kill can
# lose there): more than PARK_EVERY, so that each batch pays for its trip to an actor.
RAY_PARK_EVERY = 8192


@dataclass(frozen=True)
class IndexOptions:
    name: str | None = None
    encoder: str | None = None  # None: the collection's own, or the default
    pooling: str | None = None  # None: the collection's own, or the model's recommended
    index_kind: str | None = None  # None: the collection's own, or "auto"
    rebuild: bool = False
    batch_size: int = 16  # rows of the longest text per batch (encoders.base.budget_batches)
    embed_header: bool | None = None  # None: the collection's own, or True
    precision: str | None = None  # None: $EMBEDSTORE_PRECISION, else auto (see encoders.precision)
    ray: str | None = None  # None: encode here; "local" or HOST:PORT: on Ray (ray_encoder)


@dataclass
class IndexReport:
    collection: str
    files_scanned: int = 0
    files_new: int = 0
    files_changed: int = 0
    files_deleted: int = 0
    files_unchanged: int = 0
    units_added: int = 0
    units_removed: int = 0
    chunks_encoded: int = 0
    chunks_reused: int = 0
    chunks_total: int = 0
    units_total: int = 0
    index_kind: str = ""
    skipped: str = ""
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def nothing_changed(self) -> bool:
        return not (self.files_new or self.files_changed or self.files_deleted)


def embedding_text(rel_path: str, chunk: Chunk, *, header: bool = True) -> str:
    """What the encoder sees: the path and the chunk's context line, then its code.

    The header lets "close the file cache" find a method `close` of `FileCache`
    in `cache.py`; `embedstore eval --header-ablation` measures what it buys.
    """
    return f"{rel_path}\n{chunk_body(chunk)}" if header else chunk.text


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def index_folder(
    store: Store, root: Path, options: IndexOptions | None = None, progress: Progress | None = None
) -> IndexReport:
    """Create or update a collection from a folder; returns what was done.

    Files gone from the folder leave the collection; documents pushed by id stay.
    """
    opts = options or IndexOptions()
    root = Path(root)
    check_root(root)  # a missing path fails here, before the model loads
    name = opts.name or name_for_folder(root)
    collection, manifest, local = prepare_collection(store, name, opts, source_root=root)
    head = git.head_commit(root.resolve())
    with _encoding(local, opts.ray) as encoder, collection.writing():
        run = _Run(collection, manifest, encoder, opts, progress or NullProgress())
        everything = db.files_by_path(collection.conn)
        known = {p: r for p, r in everything.items() if r.doc_id is None and not opts.rebuild}
        stats = ScanStats()
        # Files stamped as at the last run are not read again (see trusted_stamps).
        trusted = freshness.trusted_stamps(collection.conn, known)
        with run.stage("scan", None):
            sources = []
            for source in walk_sources(root, stats=stats, trusted=trusted):
                sources.append(source)
                run.ui.advance("scan")
        todo = [s for s in sources if s.sha256 != getattr(known.get(s.rel_path), "sha256", None)]
        _refuse_taken_paths(todo, everything, owner=None)
        present = {s.rel_path for s in sources}.union(stats.unchanged)
        deleted = [p for p in known if p not in present]
        changed = [s.rel_path for s in todo if s.rel_path in known]
        run.report.files_scanned = len(present)
        run.report.skipped = stats.summary()
        run.report.files_new = len(todo) - len(changed)
        run.report.files_changed = len(changed)
        run.report.files_deleted = len(deleted)
        run.report.files_unchanged = len(present) - len(todo)
        run.apply(todo, changed + deleted)
        # After the changes commit: a kill in between leaves older stamps, read as stale.
        freshness.record(collection.conn, stats, head)
        db.checkpoint(collection.conn)
    # Once per store and model, so that searches encode queries without torch.
    model = local.model if isinstance(local, DeferredEncoder) else local
    if model is not None:
        from embedstore.encoders.onnx_export import ensure_exported  # torch is loaded by now

        ensure_exported(model, store.root)
    return run.report


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
    from embedstore.ray_encoder import RayEncoder, ray_cluster

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
    run = _Run(collection, manifest, encoder, IndexOptions(name=name), progress or NullProgress())
    with collection.writing():
        known = db.documents_by_id(collection.conn, ids)
        todo = [d for d in documents if _document_changed(d, known.get(d.id))]
        _refuse_taken_paths([d.as_source() for d in todo], db.files_by_path(collection.conn),
                            owner={d.shown_path: d.id for d in todo})
        run.report.files_scanned = len(documents)
        run.report.files_new = sum(1 for d in todo if d.id not in known)
        run.report.files_changed = len(todo) - run.report.files_new
        run.report.files_unchanged = len(documents) - len(todo)
        run.apply([d.as_source() for d in todo], [known[d.id].path for d in todo if d.id in known],
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
            vectors={}, unit_vectors=[],
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


def parked_identity(encoder: str, pooling: str) -> str:
    """Parked vectors belong to one encoder and pooling (see _drop_foreign_parked_vectors)."""
    return f"{encoder}|{pooling}"


def _document_changed(document: Document, record: db.FileRecord | None) -> bool:
    return (
        record is None
        or record.path != document.shown_path
        or record.sha256 != document.as_source().sha256
        or record.metadata != json.dumps(document.metadata)
    )


def _refuse_taken_paths(
    todo: Sequence[SourceFile], everything: dict[str, db.FileRecord], owner: dict[str, str] | None
) -> None:
    """A path belongs to one file or one document; never overwrite the other kind."""
    for source in todo:
        record = everything.get(source.rel_path)
        mine = None if owner is None else owner.get(source.rel_path)
        if record is not None and record.doc_id != mine:
            holder = f"document {record.doc_id!r}" if record.doc_id else "an indexed file"
            raise DocumentConflictError(f"path {source.rel_path!r} is already used by {holder}")


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


@dataclass
class _FileWork:
    source: SourceFile
    units: list[db.NewUnit]
    texts: dict[str, str]  # embedded text by its hash


class _Run:
    """One write to a collection: chunk -> encode (parked) -> one transaction -> index."""

    def __init__(
        self,
        collection: Collection,
        manifest: Manifest,
        encoder: Encoder,
        opts: IndexOptions,
        ui: Progress,
    ) -> None:
        self.collection = collection
        self.conn = collection.conn
        self.manifest = manifest
        self.encoder = encoder
        self.opts = opts
        self.ui = ui
        self.report = IndexReport(collection=collection.name)

    @contextmanager
    def stage(self, name: str, total: int | None) -> Iterator[None]:
        began = time.perf_counter()
        self.ui.start(name, total)
        yield
        self.ui.finish(name)
        self.report.seconds[name] = round(time.perf_counter() - began, 3)

    def apply(
        self,
        todo: list[SourceFile],
        remove_paths: list[str],
        documents: dict[str, Document] | None = None,
    ) -> None:
        """Replace ``remove_paths`` by the chunks of ``todo`` (documents keyed by path)."""
        work, vectors = self._chunk_and_encode(todo)
        manifest_changed = self.collection.manifest != self.manifest
        if not (todo or remove_paths or manifest_changed or self.opts.rebuild):
            self.collection.vector_index()  # repairs a stale index, if any
            self._finish_report()
            return
        docs = documents or {}
        with self.stage("store", None):
            new_files = [_new_file(w, docs.get(w.source.rel_path)) for w in work]
            removed, added = db.apply_changes(
                self.conn,
                remove_paths=remove_paths,
                add_files=new_files,
                vectors=vectors,
                unit_vectors=unit_vectors(new_files, vectors, self.manifest.dim),
                wipe=self.opts.rebuild,
                meta={"manifest": self.manifest.to_json(), "pending_for": ""},
            )
        self.report.units_removed = len(removed)
        self.report.units_added = len(added)
        with self.stage("index", None):
            self.collection.update_index(removed, added)
        db.checkpoint(self.conn)
        self._finish_report()

    def _finish_report(self) -> None:
        # All this run changes has committed: a new collection may now be seen.
        self.collection.mark_complete()
        _, self.report.units_total, self.report.chunks_total = db.counts(self.conn)
        self.report.index_kind = str(self.collection.manifest.index.get("kind", ""))

    def _chunk_and_encode(self, todo: list[SourceFile]) -> tuple[list[_FileWork], dict[str, bytes]]:
        """Units of each file to (re)index, and the vector of every embedded text by its hash.

        A worker thread chunks while this one encodes, PARK_EVERY new texts at a
        time, so the encoder never waits for the last file. Chunking runs far ahead
        of encoding, so each part is the longest PARK_EVERY texts chunked so far:
        parts of similar lengths pad about 2 tokens in 100 on the standard library,
        where parts in file order padded 4.5 (a batch is as long as its longest text).
        On Ray the run's texts are encoded in one call after the last file, so that each
        actor loads the model once per run; that call parks its vectors as they come.
        """
        self._drop_foreign_parked_vectors()
        chunked: queue.SimpleQueue[_FileWork | BaseException | None] = queue.SimpleQueue()
        worker = threading.Thread(target=self._chunk_all, args=(todo, chunked), daemon=True)
        worker.start()
        work: list[_FileWork] = []
        vectors: dict[str, bytes] = {}
        new = LongestFirst()  # texts chunked, never encoded before, not yet encoded
        encode_s = 0.0  # the encoding thread's: lookups and encoding, not waiting
        chunking = True
        self.ui.start("encode", None)
        while True:
            # Wait for the chunker unless a whole part is ready (on Ray: until it ends).
            while chunking and (self.opts.ray or len(new) < PARK_EVERY or not chunked.empty()):
                item = chunked.get()
                if isinstance(item, BaseException):
                    raise item
                if item is None:
                    chunking = False
                else:
                    work.append(item)
                    encode_s += self._reuse(item.texts, vectors, new)
            if not new:
                break
            encode_s += self._encode(new.take(len(new) if self.opts.ray else PARK_EVERY), vectors)
        self.ui.finish("encode")
        self.report.seconds["encode"] = round(encode_s, 3)
        self.report.chunks_reused = len(vectors) - self.report.chunks_encoded
        return work, vectors

    def _chunk_all(
        self, todo: list[SourceFile], out: queue.SimpleQueue[_FileWork | BaseException | None]
    ) -> None:
        """The chunking worker: one _FileWork per file, then None (or the error)."""
        try:
            with self.stage("chunk", len(todo)):
                # The path heads every embedded text, so each file's budget is what it leaves.
                path_tokens = self.encoder.count_tokens([s.rel_path for s in todo])
                for source, used in zip(todo, path_tokens, strict=True):
                    out.put(self._chunk_file(source, used))
                    self.ui.advance("chunk")
        except BaseException as exc:  # handed to the encoding thread, which raises it
            out.put(exc)
            return
        out.put(None)

    def _chunk_file(self, source: SourceFile, path_tokens: int) -> _FileWork:
        """A file's units, and its embedded texts by their hash."""
        count = self.encoder.count_tokens
        chunks = chunk_file(
            source.text, source.language,
            max_tokens=self.encoder.max_tokens - path_tokens, count_tokens=count,
        )
        lines = source.text.split("\n")
        units = []
        texts: dict[str, str] = {}
        for plan in group_units(chunks):
            rows = []
            for c in plan.chunks:
                embedded = embedding_text(source.rel_path, c, header=self.manifest.embed_header)
                digest = text_hash(embedded)
                texts[digest] = embedded
                rows.append(db.NewChunk(c.start_line, c.end_line, c.context, c.text, digest))
            whole = "\n".join(lines[plan.start_line - 1 : plan.end_line])
            header = f"{source.rel_path}\n{plan.chunks[0].context}"
            units.append(db.NewUnit(
                plan.start_line, plan.end_line, plan.kind, plan.symbol, whole, rows,
                name_terms=" ".join(index_terms(own_name(plan.symbol))),
                owner_terms=" ".join(index_terms(owner_name(plan.symbol))),
                terms=" ".join(index_terms(f"{header}\n{whole}")),
            ))
        return _FileWork(source, units, texts)

    def _reuse(self, texts: dict[str, str], vectors: dict[str, bytes], new: LongestFirst) -> float:
        """Add the vectors ever encoded for ``texts`` to ``vectors`` and the others to
        ``new``; returns the seconds spent."""
        began = time.perf_counter()
        # A rebuild re-encodes everything but what this same rebuild parked before a kill.
        tables = ("pending_vectors",) if self.opts.rebuild else ("chunks", "pending_vectors")
        wanted = [h for h in texts if h not in vectors and h not in new]
        vectors.update(db.known_vectors(self.conn, wanted, tables=tables))
        for h in wanted:
            if h not in vectors:
                new.add(h, texts[h])
        return time.perf_counter() - began

    def _encode(self, texts: dict[str, str], vectors: dict[str, bytes]) -> float:
        """Encode ``texts`` into ``vectors``, parking them as they come; returns the seconds."""
        began = time.perf_counter()
        hashes = list(texts)
        for rows, encoded in self._encoded_parts(list(texts.values())):
            parked = [(hashes[i], db.to_blob(v)) for i, v in zip(rows, encoded, strict=True)]
            db.park_vectors(self.conn, parked)
            vectors.update(parked)
            self.report.chunks_encoded += len(parked)
        return time.perf_counter() - began

    def _encoded_parts(self, texts: list[str]) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """The vectors of ``texts`` in parts to park: positions in ``texts`` (k,), rows (k, dim).

        One part here; on Ray, each batch as the actors hand it back.
        """
        if not texts:
            return

        def advance(n: int) -> None:
            self.ui.advance("encode", n)

        if self.opts.ray:
            # _encoding made this run's encoder a RayEncoder, so ray is imported already.
            from embedstore.ray_encoder import RayEncoder

            if isinstance(self.encoder, RayEncoder):
                yield from self.encoder.encode_parts(
                    texts, in_progress=RAY_PARK_EVERY, batch_size=self.opts.batch_size,
                    on_batch=advance,
                )
                return
        encoded = self.encoder.encode(texts, batch_size=self.opts.batch_size, on_batch=advance)
        yield np.arange(len(texts)), encoded  # (len(texts),), (len(texts), dim)

    def _drop_foreign_parked_vectors(self) -> None:
        """Parked vectors of a killed run are only reusable by the same encoder."""
        identity = parked_identity(self.encoder.name, self.encoder.pooling)
        if db.get_meta(self.conn, "pending_for") != identity:
            with db.transaction(self.conn):
                self.conn.execute("DELETE FROM pending_vectors")
                db.set_meta(self.conn, "pending_for", identity)


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


def _new_file(work: _FileWork, document: Document | None) -> db.NewFile:
    source = work.source
    if document is None:
        return db.NewFile(source.rel_path, source.language, source.sha256, source.size, work.units)
    return db.NewFile(
        source.rel_path, source.language, source.sha256, source.size, work.units,
        doc_id=document.id, metadata=json.dumps(document.metadata), content=document.text,
    )
