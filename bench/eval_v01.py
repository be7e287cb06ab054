"""The "before" rows: embedstore 0.1's own search code on the study's corpora.

Runs the 0.1 code from a git worktree of commit 42fe2d4 (bench/work/v01,
made with `git worktree add bench/work/v01 42fe2d4`) on the corpora that
bench/retrieval_study.py built, with the very vectors of the study's
collections (chunk texts are identical, so each vector is found by the hash
of its text and nothing is encoded again). Writes per-query ranks (strict
rule: the hit contains the def line) for each mode to bench/work/v01-ranks.json.

    python bench/eval_v01.py
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
WORKTREE = BENCH / "work" / "v01"
TREE = BENCH / "work" / "v01-tree"
STUDY = BENCH / "work" / "study"


def package_tree() -> Path:
    """The 0.1 sources laid out as the installed `embedstore.*` namespace."""
    pkg = TREE / "embedstore"
    if not pkg.exists():
        pkg.mkdir(parents=True)
        for item in (WORKTREE / "embedstore").iterdir():
            os.symlink(item, pkg / item.name)
        for sub in ("indexes", "api", "cli"):
            os.symlink(WORKTREE / sub, pkg / sub)
    return TREE


def main() -> None:
    sys.path.insert(0, str(package_tree()))
    from embedstore.ingest.indexer import (  # type: ignore[attr-defined]
        IndexOptions,
        index_folder,
        parked_identity,
        prepare_collection,
    )
    from embedstore.retrieval.search import search
    from embedstore.store import db
    from embedstore.store.store import Store

    store = Store(BENCH / "work" / "v01-store")
    out: dict[str, dict[str, list[int | None]]] = {}
    for queries_file in sorted((STUDY / "queries").glob("*.json")):
        name = queries_file.stem
        queries = json.loads(queries_file.read_text())
        options = IndexOptions(name=name, index_kind="flat")
        if not store.exists(name):
            target, manifest, _ = prepare_collection(store, name, options)
            with sqlite3.connect(STUDY / name / "store" / "with-header" / "meta.sqlite") as new:
                rows = new.execute("SELECT text_hash, vector FROM chunks").fetchall()
            with target.writing(), db.transaction(target.conn):
                target.conn.executemany(
                    "INSERT OR REPLACE INTO pending_vectors VALUES (?, ?)", rows
                )
                db.set_meta(target.conn, "pending_for",
                            parked_identity(manifest.encoder, manifest.pooling))
        report = index_folder(store, STUDY / name / "corpus", options)
        print(name, "encoded", report.chunks_encoded, "reused", report.chunks_reused, flush=True)
        collection = store.open(name)
        out[name] = {}
        for mode in ("hybrid", "dense", "lexical"):
            ranks: list[int | None] = []
            for q in queries:
                hits = search(collection, q["query"], 10, mode=mode)
                ranks.append(next(
                    (r for r, h in enumerate(hits, start=1)
                     if h.path == q["path"] and h.start_line <= q["def_line"] <= h.end_line),
                    None,
                ))
            out[name][mode] = ranks
    (BENCH / "work" / "v01-ranks.json").write_text(json.dumps(out))


if __name__ == "__main__":
    main()
