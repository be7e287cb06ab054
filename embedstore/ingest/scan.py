"""Stage 1, scan: which files of the folder are new, changed or gone since the last run."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from embedstore.errors import DocumentConflictError
from embedstore.ingest import freshness
from embedstore.ingest.run import Run
from embedstore.ingest.sources import ScanStats, SourceFile, walk_sources
from embedstore.store import db, symbol_table


@dataclass
class Changes:
    todo: list[SourceFile]  # files to (re)index
    remove_paths: list[str]  # paths whose old units go: changed and deleted files
    stats: ScanStats


def scan(run: Run, root: Path) -> Changes:
    """Walk ``root`` against what the collection holds; fills the report's file counts."""
    conn = run.collection.conn
    # The stage's time includes reading what the collection holds and comparing: on a
    # large tree with few edits that is most of it.
    with run.stage("scan", None):
        everything = db.files_by_path(conn)
        known = {p: r for p, r in everything.items()
                 if r.doc_id is None and not run.opts.rebuild}
        stats = ScanStats()
        # A symbol table of an older extractor (or none): every file is read and chunked
        # again once; its vectors are reused by text hash, so nothing is encoded twice.
        resymbol = db.get_meta(conn, "symbols") != symbol_table.SYMBOLS_VERSION
        # Files stamped as at the last run are not read again (see trusted_stamps).
        trusted = {} if resymbol else freshness.trusted_stamps(conn, known)
        sources = []
        walk = walk_sources(
            root, stats=stats, trusted=trusted, include_vendored=includes_vendored(run)
        )
        for source in walk:
            sources.append(source)
            run.ui.advance("scan")
        todo = [s for s in sources
                if resymbol or s.sha256 != getattr(known.get(s.rel_path), "sha256", None)]
        refuse_taken_paths(todo, everything, owner=None)
        present = {s.rel_path for s in sources}.union(stats.unchanged)
        deleted = [p for p in known if p not in present]
        changed = [s.rel_path for s in todo if s.rel_path in known]
    report = run.report
    report.files_scanned = len(present)
    report.skipped = {reason: count for reason, count in stats.skipped.items()}  # a copy, str keys
    report.skipped_folders = dict(stats.pruned)
    report.unreadable_documents = dict(stats.unreadable_documents)
    report.pages_without_text = stats.pages_without_text
    report.files_new = len(todo) - len(changed)
    report.files_changed = len(changed)
    report.files_deleted = len(deleted)
    report.files_unchanged = len(present) - len(todo)
    return Changes(todo, changed + deleted, stats)


def includes_vendored(run: Run) -> bool:
    """Whether this run indexes vendored folders: as asked, else as the collection last did
    (so that a plain re-run, or a watch, keeps what --include-vendored added)."""
    if run.opts.include_vendored is not None:
        return run.opts.include_vendored
    return freshness.recorded_include_vendored(run.collection.conn)


def refuse_taken_paths(
    todo: Sequence[SourceFile], everything: dict[str, db.FileRecord], owner: dict[str, str] | None
) -> None:
    """A path belongs to one file or one document; never overwrite the other kind."""
    for source in todo:
        record = everything.get(source.rel_path)
        mine = None if owner is None else owner.get(source.rel_path)
        if record is not None and record.doc_id != mine:
            holder = f"document {record.doc_id!r}" if record.doc_id else "an indexed file"
            raise DocumentConflictError(f"path {source.rel_path!r} is already used by {holder}")
