"""In-process search latency on the standard-library collection, query encoding included.

    python bench/search_latency.py [--queries 300] [--store bench/work/store]

Needs the collection bench/encode_speed.py (or index_stdlib.py) builds. The
queries are the first lines of docstrings drawn from the collection itself,
so their words are the kind users type. For each mode, every query runs once
after a warm-up pass; prints p50/p95/p99 in ms, and the query encoder's own
share, and writes bench/results/search_latency.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import sqlite3
import statistics
import time
from pathlib import Path

from embedstore.retrieval.search import search
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
