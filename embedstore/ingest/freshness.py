"""Is a collection still what its folder holds? Answered from stat calls alone.

Every ``index_folder`` run ends with ``record``: when it ran, the HEAD commit
where the folder is a git work tree, and the stamp (size, mtime) of every file
its scan looked at, kept or skipped, taken before the file was read. ``check``
lists the folder the same way, stats each file and compares: a file added,
removed or re-stamped makes the collection stale. Nothing is read or hashed and
neither torch nor FAISS is imported, so ``embedstore list`` can ask it of every
collection.

The stamps live in a table of their own, created when first recorded, so a
collection written by an older embedstore opens unchanged (its freshness is
unknown until it is indexed again).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from embedstore.ingest.sources import ScanStats, Stamp, file_stamps
from embedstore.store import db
from embedstore.store.collection import Collection

_TABLE = "file_stamps"
# Meta key: "1" when the last run indexed vendored folders.
INCLUDE_VENDORED = "include_vendored"
_SCANNED_AT = "stamps_taken_at_ns"
# Coarser than any common file system's timestamp tick (FAT: 2 s, ext4: ~4 ms).
RACY_MARGIN_NS = 2_000_000_000
_CREATE = (
    f"CREATE TABLE IF NOT EXISTS {_TABLE} "
    "(path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL)"
)


@dataclass(frozen=True)
class Freshness:
    """How a collection stands against its folder now.

    ``stale`` is None when it cannot be told, and ``unknown`` says why.
    """

    indexed_at: float | None  # seconds since the epoch; None if never recorded
    git_head: str | None  # HEAD at that run, for a git work tree with a commit
    stale: bool | None
    added: int = 0
    removed: int = 0
    modified: int = 0
    unknown: str | None = None

    @property
    def changed_files(self) -> int:
        return self.added + self.removed + self.modified

    @property
    def indexed_at_iso(self) -> str | None:
        """ISO 8601 in UTC, to the second."""
        if self.indexed_at is None:
            return None
        return datetime.fromtimestamp(self.indexed_at, timezone.utc).isoformat(timespec="seconds")

    def to_dict(self) -> dict[str, Any]:
        return {
            "indexed_at": self.indexed_at_iso, "git_head": self.git_head, "stale": self.stale,
            "changed_files": self.changed_files, "added": self.added, "removed": self.removed,
            "modified": self.modified, "unknown": self.unknown,
        }


def record(
    conn: sqlite3.Connection, stats: ScanStats, git_head: str | None
) -> None:
    """Remember this run's file stamps, time and HEAD (the writer, after its changes commit)."""
    with db.transaction(conn):
        conn.execute(_CREATE)
        conn.execute(f"DELETE FROM {_TABLE}")
        conn.executemany(
            f"INSERT INTO {_TABLE}(path, size, mtime_ns) VALUES (?, ?, ?)",
            [(path, size, mtime_ns) for path, (size, mtime_ns) in stats.stamps.items()],
        )
        db.set_meta(conn, "indexed_at", repr(time.time()))
        db.set_meta(conn, _SCANNED_AT, str(stats.started_ns))
        db.set_meta(conn, "git_head", git_head or "")


def trusted_stamps(conn: sqlite3.Connection, paths: Iterable[str]) -> dict[str, Stamp]:
    """The recorded stamps of ``paths`` that a later edit is sure to have changed.

    A file's stamp is taken before it is read. If its modification time was
    already well before that scan began, any later write lands in a later tick
    of the file system's clock and moves the stamp; a file modified within
    ``RACY_MARGIN_NS`` of the scan could be written again within the same tick,
    keeping its stamp, so it is read again (git's "racy clean" rule). Only
    tools that set modification times back by hand can fool this; ``--rebuild``
    reads everything.
    """
    recorded = _recorded_stamps(conn)
    scanned_at = db.get_meta(conn, _SCANNED_AT)
    if recorded is None or not scanned_at:
        return {}
    settled_before = int(scanned_at) - RACY_MARGIN_NS
    return {
        path: recorded[path]
        for path in paths
        if path in recorded and recorded[path][1] < settled_before
    }


def check(collection: Collection, touched: Iterable[str] = ()) -> Freshness:
    """Compare the collection's recorded stamps with its folder now.

    ``touched``: paths (relative to the folder) a file watcher saw change; a
    recorded one counts as modified even when its stamp looks the same, as an
    edit that keeps the size within one tick of the file system's clock does.
    """
    conn = collection.conn
    indexed_text = db.get_meta(conn, "indexed_at")
    indexed_at = float(indexed_text) if indexed_text else None
    head = db.get_meta(conn, "git_head") or None
    root = collection.manifest.source_root
    then = _recorded_stamps(conn)
    if root is None:
        why = "it holds documents pushed by id, not a folder"
    elif then is None:
        why = "indexed by an older embedstore: index it again to track changes"
    elif not Path(root).exists():
        why = f"its folder {root} is gone"
    else:
        now = file_stamps(root, include_vendored=recorded_include_vendored(conn))
        added = len(now.keys() - then.keys())
        removed = len(then.keys() - now.keys())
        touched_paths = set(touched)
        modified = sum(
            1 for path, stamp in now.items()
            if path in then and (then[path] != stamp or path in touched_paths)
        )
        stale = bool(added or removed or modified)
        return Freshness(indexed_at, head, stale, added, removed, modified)
    return Freshness(indexed_at, head, None, unknown=why)


def recorded_include_vendored(conn: sqlite3.Connection) -> bool:
    """Whether the collection's last run indexed vendored folders (``--include-vendored``)."""
    return db.get_meta(conn, INCLUDE_VENDORED) == "1"


def _recorded_stamps(conn: sqlite3.Connection) -> dict[str, Stamp] | None:
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (_TABLE,)
    ).fetchone()
    if not exists:
        return None
    rows = conn.execute(f"SELECT path, size, mtime_ns FROM {_TABLE}")
    return {str(path): (int(size), int(mtime_ns)) for path, size, mtime_ns in rows}
