"""In-process latency of both context forms on standard-library collections, search included.

    python bench/context_latency.py [--stores bench/work/completion/stdlib/default]
                                    [--queries 100] [--budget 2000]

Reads the collections bench/completion.py --set stdlib builds (one per package, named
``code``). Per package: ``context QUERY`` (hybrid search and packing) for docstring first
lines of the collection (as bench/search_latency.py draws them), and code-at-cursor at
2,048 tokens for cursors at random lines (search_latency.cursors), each after a warm-up
pass; prints p50/p95/p99 in ms over all packages and writes
bench/results/context_latency.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
from pathlib import Path

from search_latency import cursors, docstring_queries, percentiles, timed

from embedstore.retrieval.code_context import context_for_code
from embedstore.retrieval.context import context
from embedstore.store.store import Store

HERE = Path(__file__).resolve().parent
CURSOR_BUDGET = 2048


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stores", type=Path,
                        default=HERE / "work" / "completion" / "stdlib" / "default")
    parser.add_argument("--queries", type=int, default=100, help="per package")
    parser.add_argument("--budget", type=int, default=2000, help="context QUERY's tokens")
    args = parser.parse_args()
    packages = sorted(p.name for p in args.stores.iterdir() if (p / "store").is_dir())
    question: list[float] = []
    at_cursor: list[float] = []
    for name in packages:
        collection = Store(args.stores / name / "store").open("code")
        queries = docstring_queries(collection.conn, args.queries)
        places = cursors(collection, args.queries)
        asks = [lambda q=q, of=collection: context(of, q, args.budget) for q in queries]
        cursor_calls = [lambda p=p, c=c, of=collection: context_for_code(
                            of, c, path=p, max_tokens=CURSOR_BUDGET)
                        for p, c in places]
        timed(asks + cursor_calls)  # warm-up: models loaded, files read, lines counted
        question += timed(asks)
        at_cursor += timed(cursor_calls)
        collection.close()
    rows = [
        {"what": f"context QUERY, {args.budget} tokens, {len(question)} docstring queries",
         **percentiles(question)},
        {"what": f"code-at-cursor, {CURSOR_BUDGET} tokens, {len(at_cursor)} cursors",
         **percentiles(at_cursor)},
    ]
    result = {"packages": packages, "cpus": os.cpu_count(), "machine": platform.machine(),
              "rows": rows}
    lines = [
        "# Context latency, in process", "",
        "`python bench/context_latency.py`: the standard-library packages of the completion "
        f"benchmark ({', '.join(packages)}), one collection each; warm (second pass); "
        f"{os.cpu_count()} CPUs, shared with whatever else ran.", "",
        "| what | p50 ms | p95 ms | p99 ms |", "|---|---|---|---|",
        *(f"| {r['what']} | {r['p50_ms']} | {r['p95_ms']} | {r['p99_ms']} |" for r in rows),
    ]
    out = HERE / "results"
    (out / "context_latency.json").write_text(json.dumps(result, indent=2) + "\n")
    (out / "context_latency.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
