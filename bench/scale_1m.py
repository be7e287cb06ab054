"""IVF-PQ at a million vectors: size, build time (one add vs sharded), latency, recall.

    python bench/scale_1m.py [--n 1000000] [--dim 384] [--shards 4] [--queries 300]

Vectors: if bench/work/store/stdlib/meta.sqlite exists (and --dim is its 384),
its real unit vectors are replicated to n, each copy with Gaussian noise of
norm --noise and normalised again; otherwise clustered Gaussian vectors around
n/500 centres on the unit sphere. Queries are fresh draws of the same kind,
not in the index. The index is the one the library builds (``ivfpq_params`` for
n, trained on its sample once); "single" adds everything in one ``add``,
"sharded" adds --shards slices on threads and merges them
(``embedstore.indexes.shards``). Search is the dense path: IVF-PQ candidates
re-scored against float16 vectors in a memmap that stands in for SQLite, one
query at a time on one FAISS thread, as ``Collection.search`` does. Recall@10
is against exact inner-product search over the float32 vectors. Writes
bench/results/scale_1m.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sqlite3
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import faiss
import numpy as np
import numpy.typing as npt

from embedstore.indexes import refine_candidates, search_refined, set_search_threads
from embedstore.indexes.params import training_sample_size
from embedstore.indexes.shards import build_ivfpq_sharded, train_ivfpq
from embedstore.store.db import from_blobs

HERE = Path(__file__).resolve().parent
STDLIB_DB = HERE / "work" / "store" / "stdlib" / "meta.sqlite"
NPROBES = (16, 32, 64, 128)
BLOCK = 100_000  # rows generated at a time, to bound the temporaries

Vectors = npt.NDArray[np.float32]


def normalised(x: Vectors) -> Vectors:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def around(anchors: Vectors, n: int, noise: float, rng: np.random.Generator) -> Vectors:
    """``n`` unit vectors, each a random anchor plus Gaussian noise of norm about ``noise``."""
    d = anchors.shape[1]
    out = np.empty((n, d), dtype=np.float32)
    for start in range(0, n, BLOCK):
        stop = min(n, start + BLOCK)
        picked = anchors[rng.integers(0, anchors.shape[0], stop - start)]  # (b, d)
        jitter = rng.standard_normal((stop - start, d), dtype=np.float32) * (noise / np.sqrt(d))
        out[start:stop] = normalised(picked + jitter)
    return out


def vectors(
    n: int, queries: int, dim: int, noise: float, seed: int, source: str
) -> tuple[Vectors, Vectors, str]:
    """Base (n, dim) and query (queries, dim) unit vectors, and where they came from."""
    rng = np.random.default_rng(seed)
    real = STDLIB_DB.exists() and dim == 384
    if source == "stdlib" and not real:
        raise SystemExit(f"--source stdlib needs {STDLIB_DB} and --dim 384")
    if real and source != "synthetic":
        # Read-only: the benchmark must not take the collection's write lock.
        with sqlite3.connect(f"file:{STDLIB_DB}?mode=ro", uri=True) as conn:
            blobs = [row[0] for row in conn.execute("SELECT vector FROM units ORDER BY id")]
        anchors = normalised(from_blobs(blobs, dim))  # (r, dim)
        source = (f"{anchors.shape[0]:,} real all-MiniLM-L6-v2 unit vectors (stdlib collection) "
                  f"replicated with Gaussian noise of norm {noise}, renormalised")
    else:
        # Clusters of about 500: like chunks of one topic, not near-duplicates.
        anchors = normalised(rng.standard_normal((max(1, n // 500), dim), dtype=np.float32))
        noise = 1.0
        source = (f"clustered Gaussian: {anchors.shape[0]:,} centres on the unit sphere, "
                  "noise of norm 1, renormalised")
    return around(anchors, n, noise, rng), around(anchors, queries, noise, rng), source


def timed(step: Callable[[], object]) -> tuple[object, float]:
    began = time.perf_counter()
    result = step()
    return result, time.perf_counter() - began


def percentiles(seconds: list[float]) -> dict[str, float]:
    cut = statistics.quantiles([s * 1000 for s in seconds], n=100)
    return {"p50_ms": round(cut[49], 2), "p95_ms": round(cut[94], 2)}


def recall(found: npt.NDArray[np.int64], truth: npt.NDArray[np.int64]) -> float:
    hits = sum(np.intersect1d(f, t).size for f, t in zip(found, truth, strict=True))
    return round(hits / truth.size, 4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--noise", type=float, default=0.5,
                        help="noise norm added to each copy of a real vector")
    parser.add_argument("--source", choices=("auto", "stdlib", "synthetic"), default="auto",
                        help="auto: the stdlib vectors when they exist, else synthetic")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", type=Path, default=HERE / "work" / "scale_1m")
    parser.add_argument("--note", default="", help="a sentence added to the markdown report")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    k = 10
    began = time.perf_counter()
    load_average = round(os.getloadavg()[0], 2)

    (base, queries, source), gen_s = timed(
        lambda: vectors(args.n, args.queries, args.dim, args.noise, args.seed, args.source))
    ids = np.arange(args.n, dtype=np.int64)  # (n,)
    print(f"{args.n:,} vectors in {gen_s:.1f} s: {source}", flush=True)

    faiss.omp_set_num_threads(os.cpu_count() or 1)
    (_, truth), exact_s = timed(
        lambda: faiss.knn(queries, base, k, metric=faiss.METRIC_INNER_PRODUCT))
    print(f"exact top-{k} of {args.queries} queries: {exact_s:.1f} s", flush=True)

    # The float16 copy the refine step reads, on disk as SQLite would hold it.
    store_path = args.work / "vectors.f16"
    store = np.lib.format.open_memmap(store_path, mode="w+", dtype=np.float16,
                                      shape=base.shape)  # (n, dim)
    for start in range(0, args.n, BLOCK):
        store[start:start + BLOCK] = base[start:start + BLOCK]
    store.flush()

    trained, train_s = timed(lambda: train_ivfpq(base, seed=args.seed))
    print(f"trained {trained.params} in {train_s:.1f} s", flush=True)
    single, single_s = timed(lambda: build_ivfpq_sharded(ids, base, shards=1, trained=trained))
    print(f"single add: {single_s:.1f} s", flush=True)
    sharded, sharded_s = timed(
        lambda: build_ivfpq_sharded(ids, base, shards=args.shards, trained=trained))
    print(f"{args.shards} shards on threads + merge: {sharded_s:.1f} s", flush=True)
    # The merged index must answer exactly as the single one does.
    nprobe_all = {"nprobe": trained.params["nlist"]}
    same = all(
        np.array_equal(a, b)
        for a, b in zip(single.search(queries, k), sharded.search(queries, k), strict=True)
    ) and np.array_equal(single.search(queries[:20], k, **nprobe_all)[1],
                         sharded.search(queries[:20], k, **nprobe_all)[1])
    del single

    payload = faiss.serialize_index(sharded._index)  # what the index takes in RAM
    index_path = args.work / "vectors.faiss"
    sharded.save(index_path)

    def lookup(wanted: npt.NDArray[np.int64]) -> npt.NDArray[np.float16]:
        return store[wanted]

    set_search_threads(1)  # as Collection.search does for a single query
    rows = []
    default = trained.params["nprobe"]
    for nprobe in sorted({*NPROBES, default}):
        for q in queries[:20]:  # warm-up: lists and memmap pages
            search_refined(sharded, q[None, :], k, lookup, nprobe=nprobe)
        seconds, found = [], []
        for q in queries:
            t0 = time.perf_counter()
            _, hit = search_refined(sharded, q[None, :], k, lookup, nprobe=nprobe)
            seconds.append(time.perf_counter() - t0)
            found.append(hit[0])
        _, pq_only = sharded.search(queries, k, nprobe=nprobe)
        rows.append({
            "nprobe": nprobe, **percentiles(seconds),
            "recall_at_10_refined": recall(np.array(found), truth),
            "recall_at_10_pq_only": recall(pq_only, truth),
        })
        print(rows[-1], flush=True)

    ram_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    result = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cpus, {ram_gib:.0f} GiB RAM, "
                   f"{platform.processor() or platform.system()}, faiss {faiss.__version__}",
        "load_average_at_start": load_average,
        "n": args.n, "dim": args.dim, "queries": args.queries, "vectors": source,
        "params": trained.params,
        "refine_candidates": refine_candidates(k),
        "index_ram_bytes": int(payload.nbytes),
        "index_file_bytes": index_path.stat().st_size,
        "float16_vectors_bytes": store_path.stat().st_size,
        "generate_s": round(gen_s, 1), "exact_knn_s": round(exact_s, 1),
        "train_s": round(train_s, 1), "add_single_s": round(single_s, 1),
        "add_sharded_s": round(sharded_s, 1), "shards": args.shards,
        "sharded_equals_single": bool(same),
        "search": rows,
        "total_s": round(time.perf_counter() - began, 1),
    }
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    (out / "scale_1m.json").write_text(json.dumps(result, indent=2) + "\n")
    mib = 2**20
    lines = [
        f"# IVF-PQ at {args.n:,} vectors (d = {args.dim})", "",
        f"`python bench/scale_1m.py --n {args.n} --dim {args.dim} --shards {args.shards} "
        f"--queries {args.queries}`; {result['machine']}; load average {load_average} at start; "
        f"{result['total_s']:.0f} s in all.", "",
    ]
    if args.note:
        lines += [args.note, ""]
    lines += [
        f"Vectors: {source}. Queries: {args.queries} fresh draws of the same kind.", "",
        f"Parameters (`ivfpq_params`): {trained.params}.", "",
        "| what | value |", "|---|---|",
        f"| IVF-PQ index in RAM (serialised) | {result['index_ram_bytes'] / mib:.1f} MiB |",
        f"| IVF-PQ index file | {result['index_file_bytes'] / mib:.1f} MiB |",
        f"| float16 vectors for refine (SQLite stand-in) | "
        f"{result['float16_vectors_bytes'] / mib:.1f} MiB |",
        f"| train (once, on {training_sample_size(args.n, trained.params):,} samples) "
        f"| {train_s:.1f} s |",
        f"| add, one `add` | {single_s:.1f} s |",
        f"| add, {args.shards} shards on threads + `merge_from` | {sharded_s:.1f} s |",
        f"| sharded index answers as the single one | {'yes' if same else 'NO'} |",
        f"| exact top-10 for {args.queries} queries (ground truth, all cores) | {exact_s:.1f} s |",
        "",
        f"Dense search, k = 10, one query at a time on one FAISS thread, "
        f"{refine_candidates(k)} candidates re-scored from the float16 memmap:", "",
        "| nprobe | p50 ms | p95 ms | recall@10 refined | recall@10 PQ only |",
        "|---|---|---|---|---|",
        *(f"| {r['nprobe']}{' (default)' if r['nprobe'] == default else ''} | {r['p50_ms']} | "
          f"{r['p95_ms']} | {r['recall_at_10_refined']} | {r['recall_at_10_pq_only']} |"
          for r in rows),
    ]
    (out / "scale_1m.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
