"""Bounded load test of `embedstore serve` on loopback, with and without the dynamic batcher.

    python bench/api_load.py [--clients 20] [--duration 30]

Needs the standard-library collection of bench/index_stdlib.py (bench/work/store).
For each server mode (batching on, off) and each endpoint (search by one client, then
by N; embeddings; POST /v1/search over 4 and 16 copies of the collection, made by
bench/search_latency.py),
warms the server up with one pass over the queries, then runs N concurrent
clients against 127.0.0.1 only: their first WARMUP_S seconds (connections
opened, the search pool's threads and their SQLite connections made) are
reported apart as the burst, then a fixed time is measured; prints requests/s,
p50/p95/p99 latency and errors; writes bench/results/api_load.{json,md}.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent
# The clients' first seconds, reported apart: 20 connections opened at once and
# first calls on every server thread made the first 30 s window's p99 415 ms
# where the next window's was 217 ms (same server, same clients).
WARMUP_S = 5.0
STORE = HERE / "work" / "store"
QUERIES = [
    "parse a configuration file", "split a string using shell-like syntax",
    "open a file and read its lines", "compute a checksum of bytes", "send an HTTP request",
    "decode a JSON document", "match a filename against a pattern", "format a date as text",
    "create a temporary directory", "compress data with zlib",
]


def start_server(port: int, batching: bool, store: Path) -> subprocess.Popen[bytes]:
    args = [sys.executable, "-m", "embedstore", "serve", "--port", str(port),
            "--store", str(store)]
    if not batching:
        args.append("--no-batching")
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    process = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(600):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).json()["ready"]:
                return process
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    process.kill()
    raise RuntimeError("server did not start")


def request(endpoint: str, collection: str, query: str) -> tuple[str, dict[str, object]]:
    """(path, body) of one request: search one collection, N of them, or embed."""
    if endpoint == "search":
        return f"/v1/collections/{collection}/search", {"query": query, "k": 10}
    if endpoint.startswith("search x"):  # POST /v1/search over N copies of the collection
        count = int(endpoint.removeprefix("search x"))
        names = [collection] + [f"{collection}-copy-{i}" for i in range(1, count)]
        return "/v1/search", {"query": query, "k": 10, "collections": names}
    return "/v1/embeddings", {"input": query}


async def run_load(
    url: str, endpoint: str, clients: int, duration: float, collection: str
) -> dict[str, object]:
    latencies: list[float] = []
    burst: list[float] = []
    errors = 0
    kinds: dict[str, int] = {}

    async def client(worker: int) -> None:
        nonlocal errors
        async with httpx.AsyncClient(base_url=url, timeout=30) as http:
            i = worker
            while time.monotonic() < deadline:
                measured = time.monotonic() >= measure_from
                query = QUERIES[i % len(QUERIES)]
                i += 1
                began = time.perf_counter()
                try:
                    path, body = request(endpoint, collection, query)
                    r = await http.post(path, json=body)
                    failure = None if r.status_code == 200 else f"HTTP {r.status_code}"
                except httpx.HTTPError as exc:
                    failure = type(exc).__name__
                (latencies if measured else burst).append(time.perf_counter() - began)
                if failure is not None:
                    errors += 1
                    kinds[failure] = kinds.get(failure, 0) + 1

    # Warm-up, not timed: the first search loads the query encoder and the FAISS index.
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        for query in QUERIES:
            path, body = request(endpoint, collection, query)
            await http.post(path, json=body)
    measure_from = time.monotonic() + WARMUP_S
    deadline = measure_from + duration
    await asyncio.gather(*(client(w) for w in range(clients)))
    ms = sorted(x * 1000 for x in latencies)
    cut = statistics.quantiles(ms, n=100)
    return {
        "requests": len(ms), "errors": errors, "error_kinds": kinds,
        "rps": round(len(ms) / duration, 1),
        "p50_ms": round(cut[49], 1), "p95_ms": round(cut[94], 1), "p99_ms": round(cut[98], 1),
        "burst_requests": len(burst),
        "burst_p99_ms": round(statistics.quantiles([x * 1000 for x in burst], n=100)[98], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description="bounded loopback load test")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--store", type=Path, default=STORE)
    parser.add_argument("--collection", default="stdlib")
    args = parser.parse_args()
    if not (args.store / args.collection).exists():
        sys.exit("run bench/index_stdlib.py first: it builds the stdlib collection")
    rows = []
    for batching in (True, False):
        server = start_server(args.port, batching, args.store)
        try:
            url = f"http://127.0.0.1:{args.port}"
            # One client alone (the batcher must not make it wait), then the load; the
            # copies of search_latency.py stand in for 4 and 16 repositories.
            plan = [("search", 1), ("search", args.clients), ("embeddings", args.clients)]
            plan += [(f"search x{n}", args.clients) for n in (4, 16)
                     if (args.store / f"{args.collection}-copy-{n - 1}").exists()]
            for endpoint, clients in plan:
                stats = asyncio.run(
                    run_load(url, endpoint, clients, args.duration, args.collection)
                )
                row = {"batching": batching, "endpoint": endpoint, "clients": clients, **stats}
                print(json.dumps(row))
                rows.append(row)
        finally:
            server.terminate()
            server.wait(timeout=30)
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    meta = {"clients": args.clients, "duration_s": args.duration, "cpus": os.cpu_count()}
    (out / "api_load.json").write_text(json.dumps({**meta, "rows": rows}, indent=2) + "\n")
    lines = [f"`python bench/api_load.py`: clients {args.clients}, {args.duration:.0f} s per row "
             f"after a warm-up pass and {WARMUP_S:.0f} s of the clients' burst (its p99 apart), "
             f"{os.cpu_count()} cpus, the load generator on the same machine; load average "
             f"{os.getloadavg()[0]:.2f} at the end", "",
             "| batching | endpoint | clients | req/s | p50 ms | p95 ms | p99 ms | errors "
             "| burst p99 ms |",
             "|---|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r['batching']} | {r['endpoint']} | {r['clients']} | {r['rps']} | {r['p50_ms']} "
              f"| {r['p95_ms']} | {r['p99_ms']} | {r['errors']} | {r['burst_p99_ms']} |"
              for r in rows]
    (out / "api_load.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
