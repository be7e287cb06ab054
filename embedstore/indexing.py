"""`embedstore index PATH`: scan -> chunk -> encode -> store -> index, incrementally.

Nothing that search sees changes until the single SQLite transaction at the
end; vectors encoded on the way are parked as they come, so a killed run
leaves the collection as it was and the next run picks up the parked vectors.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from embedstore.chunking import chunk_file
from embedstore.chunking.types import Chunk, chunk_body
from embedstore.encoders.base import Encoder
from embedstore.encoders.registry import canonical_spec, load_encoder
from embedstore.errors import EncoderMismatchError
from embedstore.indexes import choose_kind
from embedstore.lexical import code_terms
from embedstore.progress import NullProgress, Progress
from embedstore.sources import ScanStats, SourceFile, walk_sources
from embedstore.store import db
from embedstore.store.collection import Collection
from embedstore.store.manifest import Manifest
from embedstore.store.store import Store, name_for_folder

# Texts encoded between two commits of parked vectors: the most a kill can lose.
PARK_EVERY = 256


@dataclass(frozen=True)
class IndexOptions:
    name: str | None = None
    encoder: str | None = None  # None: the collection's own, or the default
    pooling: str | None = None  # None: the collection's own, or the model's recommended
    index_kind: str | None = None  # None: the collection's own, or "auto"
    rebuild: bool = False
    batch_size: int = 32
    embed_header: bool | None = None  # None: the collection's own, or True


@dataclass
class IndexReport:
    collection: str
    files_scanned: int = 0
    files_new: int = 0
    files_changed: int = 0
    files_deleted: int = 0
    files_unchanged: int = 0
    chunks_added: int = 0
    chunks_removed: int = 0
    chunks_encoded: int = 0
    chunks_reused: int = 0
    chunks_total: int = 0
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
    """Create or update a collection from a folder; returns what was done."""
    opts = options or IndexOptions()
    ui = progress or NullProgress()
    root = Path(root)
    stats = ScanStats()
    sources = walk_sources(root, stats=stats)  # a missing path fails here, before the model loads
    name = opts.name or name_for_folder(root)
    collection, manifest, encoder = _open_for_indexing(store, name, root, opts)
    report = IndexReport(collection=name)
    with collection.writing():
        _Run(collection, manifest, encoder, opts, ui, report).execute(sources, stats)
    return report


def _open_for_indexing(
    store: Store, name: str, root: Path, opts: IndexOptions
) -> tuple[Collection, Manifest, Encoder]:
    """The collection (created if new), the manifest this run writes, and its encoder."""
    existing = store.open(name) if store.exists(name) else None
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
    encoder = load_encoder(spec, pooling)
    manifest = Manifest(
        encoder=encoder.name,
        encoder_revision=encoder.revision,
        dim=encoder.dim,
        pooling=encoder.pooling,
        embed_header=header,
        index_kind=opts.index_kind or (old.index_kind if old else "auto"),
        index=old.index if old else {},
        source_root=str(root.resolve()),
    )
    choose_kind(manifest.index_kind, 0)  # a bad --index fails before any work
    collection = existing or store.create(name, manifest)
    return collection, manifest, encoder


@dataclass
class _FileWork:
    source: SourceFile
    chunks: list[db.NewChunk]


class _Run:
    def __init__(
        self,
        collection: Collection,
        manifest: Manifest,
        encoder: Encoder,
        opts: IndexOptions,
        ui: Progress,
        report: IndexReport,
    ) -> None:
        self.collection = collection
        self.conn = collection.conn
        self.manifest = manifest
        self.encoder = encoder
        self.opts = opts
        self.ui = ui
        self.report = report

    @contextmanager
    def _stage(self, name: str, total: int | None) -> Iterator[None]:
        began = time.perf_counter()
        self.ui.start(name, total)
        yield
        self.ui.finish(name)
        self.report.seconds[name] = round(time.perf_counter() - began, 3)

    def execute(self, scan: Iterator[SourceFile], stats: ScanStats) -> None:
        with self._stage("scan", None):
            sources = []
            for source in scan:
                sources.append(source)
                self.ui.advance("scan")
        self.report.files_scanned = len(sources)
        self.report.skipped = stats.summary()

        known = {} if self.opts.rebuild else db.files_by_path(self.conn)
        todo = [s for s in sources if s.sha256 != getattr(known.get(s.rel_path), "sha256", None)]
        present = {s.rel_path for s in sources}
        deleted = [p for p in known if p not in present]
        changed = [s.rel_path for s in todo if s.rel_path in known]
        self.report.files_new = len(todo) - len(changed)
        self.report.files_changed = len(changed)
        self.report.files_deleted = len(deleted)
        self.report.files_unchanged = len(sources) - len(todo)

        work, texts = self._chunk(todo)
        vectors = self._encode(texts)
        manifest_changed = self.collection.manifest != self.manifest
        if not (todo or deleted or manifest_changed or self.opts.rebuild):
            self.collection.vector_index()  # repairs a stale index, if any
            self._finish_report()
            return
        with self._stage("store", None):
            removed, added = db.apply_changes(
                self.conn,
                remove_paths=changed + deleted,
                add_files=[
                    db.NewFile(w.source.rel_path, w.source.language, w.source.sha256,
                               w.source.size, w.chunks)
                    for w in work
                ],
                vectors=vectors,
                wipe=self.opts.rebuild,
                meta={"manifest": self.manifest.to_json(), "pending_for": ""},
            )
        self.report.chunks_removed = len(removed)
        self.report.chunks_added = len(added)
        with self._stage("index", None):
            self.collection.update_index(removed, added)
        self._finish_report()

    def _finish_report(self) -> None:
        self.report.chunks_total = db.counts(self.conn)[1]
        self.report.index_kind = str(self.collection.manifest.index.get("kind", ""))

    def _chunk(self, todo: list[SourceFile]) -> tuple[list[_FileWork], dict[str, str]]:
        """Chunks of each file to (re)index, and every embedding text by its hash."""
        count = self.encoder.count_tokens
        # The path heads every embedded text, so each file's budget is what it leaves.
        path_tokens = count([s.rel_path for s in todo])
        work: list[_FileWork] = []
        texts: dict[str, str] = {}
        with self._stage("chunk", len(todo)):
            for source, used in zip(todo, path_tokens, strict=True):
                chunks = chunk_file(
                    source.text, source.language,
                    max_tokens=self.encoder.max_tokens - used, count_tokens=count,
                )
                rows = []
                for c in chunks:
                    embedded = embedding_text(
                        source.rel_path, c, header=self.manifest.embed_header
                    )
                    digest = text_hash(embedded)
                    texts[digest] = embedded
                    rows.append(db.NewChunk(
                        c.start_line, c.end_line, c.kind, c.symbol, c.context, c.text, digest,
                        symbol_terms=" ".join(code_terms(c.symbol or "")),
                        terms=" ".join(code_terms(embedding_text(source.rel_path, c))),
                    ))
                work.append(_FileWork(source, rows))
                self.ui.advance("chunk")
        return work, texts

    def _encode(self, texts: dict[str, str]) -> dict[str, bytes]:
        """Vectors for every text, encoding only those never encoded before."""
        self._drop_foreign_parked_vectors()
        # A rebuild re-encodes everything but what this same rebuild parked before a kill.
        tables = ("pending_vectors",) if self.opts.rebuild else ("chunks", "pending_vectors")
        vectors = db.known_vectors(self.conn, texts, tables=tables)
        missing = sorted((h for h in texts if h not in vectors), key=lambda h: -len(texts[h]))
        self.report.chunks_reused = len(texts) - len(missing)
        self.report.chunks_encoded = len(missing)
        with self._stage("encode", len(missing)):
            for start in range(0, len(missing), PARK_EVERY):
                group = missing[start : start + PARK_EVERY]
                encoded = self.encoder.encode(
                    [texts[h] for h in group],
                    batch_size=self.opts.batch_size,
                    on_batch=lambda n: self.ui.advance("encode", n),
                )  # (len(group), dim)
                parked = [(h, db.to_blob(v)) for h, v in zip(group, encoded, strict=True)]
                db.park_vectors(self.conn, parked)
                vectors.update(parked)
        return vectors

    def _drop_foreign_parked_vectors(self) -> None:
        """Parked vectors of a killed run are only reusable by the same encoder."""
        identity = f"{self.encoder.name}|{self.encoder.pooling}"
        if db.get_meta(self.conn, "pending_for") != identity:
            with db.transaction(self.conn):
                self.conn.execute("DELETE FROM pending_vectors")
                db.set_meta(self.conn, "pending_for", identity)
