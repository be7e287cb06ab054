"""In-process search latency on the standard-library collection, query encoding included.

    python bench/search_latency.py [--queries 300] [--store bench/work/store]

Needs the collection bench/encode_speed.py (or index_stdlib.py) builds. The
queries are the first lines of docstrings drawn from the collection itself,
so their words are the kind users type. For each mode, every query runs once
after a warm-up pass; prints p50/p95/p99 in ms, and the query encoder's own
share, and writes bench/results/search_latency.{json,md}.

Two more sets of rows:
- many collections: hybrid search over 1, 4 and 16 collections of the standard
  library's size (copies of it, made once in the store as stdlib-copy-N), fanned out
  in parallel and merged (embedstore.retrieval.federation);
- code-at-cursor context at 2,048 tokens: a cursor at the start of a random line
  of a random file of the collection, the file's text before it as ``code``; once for
  the first answers after start (no line's token count known yet), once for as many
  new cursors after them (a server that has been answering).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import shutil
import sqlite3
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from embedstore.retrieval.code_context import context_for_code
from embedstore.retrieval.federation import LocalMember, search_members
from embedstore.retrieval.search import search
from embedstore.store import symbol_table
from embedstore.store.collection import Collection
from embedstore.store.store import Store

HERE = Path(__file__).resolve().parent
DOCSTRING = re.compile(r'"""\s*([A-Z][^\n"]{15,80})')


def percentiles(ms: list[float]) -> dict[str, float]:
    cut = statistics.quantiles(ms, n=100)
    return {"p50_ms": round(cut[49], 2), "p95_ms": round(cut[94], 2), "p99_ms": round(cut[98], 2)}


def docstring_queries(conn: sqlite3.Connection, count: int, seed: int = 0) -> list[str]:
    """``count`` distinct docstring first lines from the collection's units, drawn with ``seed``."""
    texts = [r[0] for r in conn.execute("SELECT text FROM units")]
    found = sorted({m.group(1).strip() for t in texts for m in DOCSTRING.finditer(t)})
    return random.Random(seed).sample(found, min(count, len(found)))


def timed(calls: list[Callable[[], object]]) -> list[float]:
    ms = []
    for call in calls:
        began = time.perf_counter()
        call()
        ms.append((time.perf_counter() - began) * 1000)
    return ms


def copies(store: Store, name: str, count: int) -> list[Collection]:
    """``name`` and count - 1 copies of it in the store (made once, kept for later runs)."""
    out = [store.open(name)]
    for i in range(1, count):
        copy = f"{name}-copy-{i}"
        if not store.exists(copy):
            shutil.copytree(store.root / name, store.root / copy)
        out.append(store.open(copy))
    return out


def cursors(collection: Collection, count: int, seed: int = 0) -> list[tuple[str, str]]:
    """(path, text before a random line) of random files: the code before a cursor."""
    rng = random.Random(seed)
    paths = sorted(p for p in symbol_table.paths(collection.conn) if p.endswith(".py"))
    found = []
    for path in rng.sample(paths, min(count, len(paths))):
        lines = [line for _, line in sorted(symbol_table.file_lines(collection.conn, path).items())]
        cut = rng.randrange(1, max(2, len(lines)))
        found.append((path, "\n".join(lines[:cut]) + "\n"))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--store", type=Path, default=HERE / "work" / "store")
    parser.add_argument("--collection", default="stdlib")
    args = parser.parse_args()
    collection = Store(args.store).open(args.collection)
    queries = docstring_queries(collection.conn, args.queries)
    encoder = collection.query_encoder
    rows = []
    for q in queries[:20]:  # warm-up: model, FAISS index, SQLite pages
        search(collection, q, 10)
    encode_ms = []
    for q in queries:
        began = time.perf_counter()
        encoder.encode([q], kind="query")
        encode_ms.append((time.perf_counter() - began) * 1000)
    rows.append({"what": f"query encode ({type(encoder).__name__})", **percentiles(encode_ms)})
    for mode in ("hybrid", "dense", "lexical"):
        ms = []
        for q in queries:
            began = time.perf_counter()
            search(collection, q, 10, mode=mode)
            ms.append((time.perf_counter() - began) * 1000)
        rows.append({"what": f"search, {mode}, k=10", **percentiles(ms)})
    store = Store(args.store)
    members = [LocalMember(c) for c in copies(store, args.collection, 16)]
    for count in (1, 4, 16):
        chosen = members[:count]
        for q in queries[:10]:
            search_members(chosen, q, 10)
        ms = timed([lambda q=q, m=chosen: search_members(m, q, 10) for q in queries])
        rows.append({"what": f"search, hybrid, k=10, {count} collection(s) of this size",
                     **percentiles(ms)})
    # Two passes of new cursors: the first answers after start, when no line's token count is
    # known yet; then as many more, as a server that has been answering meets them.
    first = cursors(collection, min(len(queries), 200), seed=0)
    later = cursors(collection, min(len(queries), 200), seed=1)
    for path, code in first[:10]:
        context_for_code(collection, code, path=path, max_tokens=2048)
    for name, cases in (("first answers", first), ("after as many others", later)):
        ms = timed([lambda p=p, c=c: context_for_code(collection, c, path=p, max_tokens=2048)
                    for p, c in cases])
        rows.append({"what": f"code-at-cursor context, 2048 tokens, {len(cases)} cursors: "
                             f"{name}", **percentiles(ms)})
    stats = collection.stats()
    units, chunks = stats.units, stats.chunks
    result = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cpus",
        "load_average_at_start": round(os.getloadavg()[0], 2),
        "collection": {"units": units, "chunks": chunks,
                       "index": collection.manifest.index.get("kind")},
        "queries": len(queries), "rows": rows,
    }
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    (out / "search_latency.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = [
        "# In-process search latency, query encoding included", "",
        f"`python bench/search_latency.py --queries {args.queries}`; {result['machine']}; "
        f"load average {result['load_average_at_start']}; {units:,} units / {chunks:,} chunks "
        f"({result['collection']['index']} index); {len(queries)} docstring queries.", "",
        "| what | p50 ms | p95 ms | p99 ms |", "|---|---|---|---|",
    ]
    lines += [f"| {r['what']} | {r['p50_ms']} | {r['p95_ms']} | {r['p99_ms']} |" for r in rows]
    (out / "search_latency.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
