"""The "before" rows: embedstore 0.1's own search code, as shipped, on the study's corpora.

Runs the 0.1 code from a git worktree of commit 42fe2d4 (bench/work/v01, made with
`git worktree add bench/work/v01 42fe2d4`) on the corpora that bench/retrieval_study.py
built, with 0.1's own default encoder (the stock all-MiniLM-L6-v2, whose vectors it
encodes itself). Writes each query's top 10 for each mode to bench/work/v01-hits.json:
path, lines and the text down to the query's `def` line, so that bench/eval_retrieval.py
scores them with today's hit rules.

    python bench/eval_v01.py
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
WORKTREE = BENCH / "work" / "v01"
TREE = BENCH / "work" / "v01-tree"
STUDY = BENCH / "work" / "study"
HITS = BENCH / "work" / "v01-hits.json"


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
    # 0.1's module names: this runs the 0.1 tree, not today's package.
    from embedstore.indexing import IndexOptions, index_folder  # type: ignore[import-not-found]
    from embedstore.search import search  # type: ignore[import-not-found]
    from embedstore.store.store import Store

    store = Store(BENCH / "work" / "v01-store")
    out: dict[str, dict[str, list[list[dict[str, object]]]]] = {}
    for queries_file in sorted((STUDY / "queries").glob("*.json")):
        name = queries_file.stem
        queries = json.loads(queries_file.read_text())
        report = index_folder(store, STUDY / name / "corpus", IndexOptions(name=name,
                                                                           index_kind="flat"))
        print(name, "encoded", report.chunks_encoded, flush=True)
        collection = store.open(name)
        out[name] = {}
        for mode in ("hybrid", "dense", "lexical"):
            out[name][mode] = [
                [{"path": h.path, "start_line": h.start_line, "end_line": h.end_line,
                  "head": "\n".join(h.text.split("\n")[: max(1, q["def_line"] - h.start_line + 1)])}
                 for h in search(collection, q["query"], 10, mode=mode)]
                for q in queries
            ]
    HITS.write_text(json.dumps(out))


if __name__ == "__main__":
    main()
