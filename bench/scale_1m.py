"""A collection of a million units: size, build (local and Ray-local), open, search, re-index.

    python bench/scale_1m.py [--units 1000000] [--queries 200] [--noise 0.5] [--no-ray]

Needs the stdlib collection that bench/encode_speed.py builds
(bench/work/store/stdlib over bench/work/Lib: real all-MiniLM-L6-v2 vectors).

The collection: the source folder is replicated R times as hard-linked copies
(``tree/r00`` ... ``tree/rNN``), so every indexed file exists on disk, and
meta.sqlite is the stdlib database replicated the same way in SQL: files,
units, chunks and the FTS5 rows copied under new ids and ``rNN/`` paths. Unit
vectors are the real ones plus Gaussian noise of norm --noise, renormalised
(replica 0 keeps the originals); texts are the real texts, so lexical search
sees R copies of every term. No vector is encoded here: 1M units would take
the 2-core encoder four hours.

Then, each timed on its own: the IVF-PQ build the collection does itself
(sample training, shards read from SQLite on threads, merge: a subprocess, for
its peak memory); the add phase again on threads and as Ray tasks on a local
Ray cluster from the same trained index; opening the collection in a fresh
process; dense, hybrid and lexical ``Collection.search`` latency with real
docstring queries (query encoding included); recall@10 of the refined IVF-PQ
search against exact search for nprobe 16-128; the refine step's vector lookup
from SQLite against a float16 memmap; and ``embedstore index`` after one file
of the tree is edited, as a whole process. Writes bench/results/scale_1m.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import faiss
import numpy as np
import numpy.typing as npt

from embedstore.chunking.types import Chunk
from embedstore.indexes.shards import build_ivfpq_sharded
from embedstore.ingest import freshness
from embedstore.ingest.indexer import embedding_text, text_hash
from embedstore.ingest.sources import ScanStats, file_stamps
from embedstore.lexical import fts_query, query_terms
from embedstore.retrieval import search as search_module
from embedstore.retrieval.search import CANDIDATES
from embedstore.store import db, lexical_index
from embedstore.store.manifest import Manifest
from embedstore.store.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parent))
from search_latency import docstring_queries

HERE = Path(__file__).resolve().parent
SOURCE_STORE = HERE / "work" / "store"
SOURCE = "stdlib"
NAME = "big"
NPROBES = (16, 32, 64, 128)
K = 10
# The file the re-index step edits, in replica 1 (any replica would do).
EDITED = "json/decoder.py"
EDIT = (
    '\n\ndef scale_bench_marker(value):\n    """Added by bench/scale_1m.py."""\n    return value\n'
)

Vectors = npt.NDArray[np.float32]


def timed(step: Callable[[], Any]) -> tuple[Any, float]:
    began = time.perf_counter()
    result = step()
    return result, time.perf_counter() - began


def each_timed(call: Callable[[Any], Any], items: list[Any]) -> tuple[list[float], list[Any]]:
    """Seconds and results of ``call`` on each item, after a warm-up pass on the first 20."""
    for item in items[:20]:
        call(item)
    seconds, results = [], []
    for item in items:
        began = time.perf_counter()
        results.append(call(item))
        seconds.append(time.perf_counter() - began)
    return seconds, results


def percentiles(seconds: list[float]) -> dict[str, float]:
    cut = statistics.quantiles([s * 1000 for s in seconds], n=100)
    return {"p50_ms": round(cut[49], 2), "p95_ms": round(cut[94], 2)}


def say(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)


def replicate_tree(source_root: Path, tree: Path, replicas: int) -> None:
    """``tree/rNN`` for each replica: hard links to the source files, so nearly no disk."""
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir(parents=True)
    for r in range(replicas):
        subprocess.run(["cp", "-al", str(source_root), str(tree / f"r{r:02d}")], check=True)


def replicate_db(source: Path, target: Path, tree: Path, replicas: int, noise: float) -> None:
    """meta.sqlite of ``replicas`` copies of the source collection, in SQL (see module doc)."""
    target.mkdir(parents=True)
    with sqlite3.connect(f"file:{source}?mode=ro", uri=True) as src:
        src.backup(dst := sqlite3.connect(target / "meta.sqlite"))
    dst.close()
    conn = db.connect(target / "meta.sqlite")
    conn.execute("ATTACH ? AS src", (f"file:{source}?mode=ro",))
    offsets = {t: int(conn.execute(f"SELECT MAX(id) FROM src.{t}").fetchone()[0])
               for t in ("files", "units", "chunks")}
    unit_ids = np.array([r[0] for r in conn.execute("SELECT id FROM src.units ORDER BY id")])
    anchors = db.from_blobs([r[0] for r in conn.execute(
        "SELECT vector FROM src.units ORDER BY id")], 384)  # (u, d)
    rng = np.random.default_rng(0)
    row_of = {int(i): row for row, i in enumerate(unit_ids)}
    jittered: list[bytes] = []
    conn.create_function("jittered", 1, lambda i: jittered[row_of[i]], deterministic=False)
    # Each chunk's hash is that of its embedded text, which starts with its path:
    # with the replica's path, an edit re-encodes only what it changed, as in use.
    conn.create_function("rehash", 3, lambda path, context, text: text_hash(
        embedding_text(path, Chunk(text, 0, 0, "", context=context))), deterministic=True)
    with db.transaction(conn):
        conn.execute("UPDATE files SET path = 'r00/' || path")
        conn.execute(
            "UPDATE chunks SET text_hash = rehash((SELECT f.path FROM units u JOIN files f "
            "ON f.id = u.file_id WHERE u.id = chunks.unit_id), context, text)")
    for r in range(1, replicas):
        shift = anchors + rng.standard_normal(anchors.shape, dtype=np.float32) * (
            noise / math.sqrt(anchors.shape[1]))  # (u, d)
        shift /= np.linalg.norm(shift, axis=1, keepdims=True)
        jittered[:] = [db.to_blob(v) for v in shift]
        f, u, c = (r * offsets[t] for t in ("files", "units", "chunks"))
        with db.transaction(conn):
            conn.execute(
                "INSERT INTO files(id, path, language, sha256, size, doc_id, metadata, content) "
                f"SELECT id + {f}, printf('r%02d/', {r}) || path, language, sha256, size, "
                "doc_id, metadata, content FROM src.files")
            conn.execute(
                "INSERT INTO units(id, file_id, start_line, end_line, kind, symbol, text, vector) "
                f"SELECT id + {u}, file_id + {f}, start_line, end_line, kind, symbol, text, "
                "jittered(id) FROM src.units")
            conn.execute(
                "INSERT INTO chunks(id, unit_id, start_line, end_line, context, text, text_hash, "
                f"vector) SELECT c.id + {c}, c.unit_id + {u}, c.start_line, c.end_line, "
                f"c.context, c.text, rehash(printf('r%02d/', {r}) || f.path, c.context, c.text), "
                "c.vector FROM src.chunks c JOIN src.units u ON u.id = c.unit_id "
                "JOIN src.files f ON f.id = u.file_id")
            conn.execute(
                "INSERT INTO units_fts(rowid, name_terms, owner_terms, terms) "
                f"SELECT rowid + {u}, name_terms, owner_terms, terms FROM src.units_fts")
        if r % 10 == 0:
            say(f"  replica {r}/{replicas - 1}")
    conn.execute("DETACH src")
    manifest = Manifest.from_json(db.get_meta(conn, "manifest") or "")
    data = json.loads(manifest.to_json())
    data["source_root"] = str(tree)
    data["index"] = {}
    data["index_kind"] = "auto"
    with db.transaction(conn):
        db.set_meta(conn, "manifest", json.dumps(data))
        db.set_meta(conn, "generation", str(db.generation(conn) + 1))  # no index matches
    stats = ScanStats(stamps=file_stamps(tree), started_ns=time.time_ns())
    freshness.record(conn, stats, None)
    db.checkpoint(conn)
    conn.close()
    (target / "collection.json").write_text(json.dumps(data, indent=2, sort_keys=True))


def in_subprocess(code: str) -> dict[str, Any]:
    """Run ``code`` in a fresh Python; it prints one JSON object as its last line."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


# VmHWM, not ru_maxrss: getrusage's peak survives execve, so a child would report ours.
PEAK_MIB = "int(open('/proc/self/status').read().split('VmHWM:')[1].split()[0]) / 1024"

BUILD = """
import json, time
from embedstore.store.store import Store
collection = Store({store!r}).open({name!r})
began = time.perf_counter()
index = collection.vector_index()
seconds = time.perf_counter() - began
print(json.dumps({{"build_s": seconds, "peak_rss_mib": {peak}, "params": index.params}}))
"""

LEXICAL = """
import json, time
from embedstore.store.store import Store
collection = Store({store!r}).open({name!r})
began = time.perf_counter()
collection.lexical_view()
seconds = time.perf_counter() - began
print(json.dumps({{"build_s": seconds, "peak_rss_mib": {peak}}}))
"""

OPEN = """
import json, time
began = time.perf_counter()
from embedstore.retrieval.search import search
from embedstore.store.store import Store
imported = time.perf_counter()
collection = Store({store!r}).open({name!r})
index = collection.vector_index()
opened = time.perf_counter()
hits = search(collection, {query!r}, 10)
first = time.perf_counter()
print(json.dumps({{"import_s": imported - began, "open_s": opened - imported,
    "first_query_s": first - opened, "rss_mib": {peak}, "hits": len(hits)}}))
"""


def ray_add(
    trained: Any, ids: npt.NDArray[np.int64], vectors: Vectors, shards: int
) -> dict[str, float]:
    """Seconds to start a local Ray cluster and to add the shards as Ray tasks."""
    import ray

    from embedstore.ingest.ray_index import build_ivfpq_on_ray

    _, start_s = timed(lambda: ray.init(num_cpus=os.cpu_count(), include_dashboard=False,
                                        log_to_driver=False))
    try:
        index, add_s = timed(lambda: build_ivfpq_on_ray(trained, ids, vectors, shards=shards))
    finally:
        ray.shutdown()
    return {"ray_start_s": round(start_s, 1), "ray_add_s": round(add_s, 1), "ntotal": index.ntotal}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--noise", type=float, default=0.5,
                        help="norm of the Gaussian noise added to each replica's vectors")
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--no-ray", action="store_true", help="skip the Ray-local build")
    parser.add_argument("--work", type=Path, default=HERE / "work" / "scale_1m")
    args = parser.parse_args()
    began = time.perf_counter()
    load_average = round(os.getloadavg()[0], 2)
    source = Store(SOURCE_STORE).open(SOURCE)
    source_units = source.stats().units
    source_root = Path(source.manifest.source_root or "")
    replicas = math.ceil(args.units / source_units)
    store_root = args.work / "store"
    tree = args.work / "tree"
    result: dict[str, Any] = {"load_average_at_start": load_average, "replicas": replicas}

    say(f"{replicas} replicas of {source_units:,} units from {source_root}")
    shutil.rmtree(store_root, ignore_errors=True)
    _, result["tree_s"] = timed(lambda: replicate_tree(source_root, tree, replicas))
    # The store's ONNX query encoder, so that no step here pays for exporting it.
    shutil.copytree(SOURCE_STORE / ".onnx", store_root / ".onnx")
    _, result["db_build_s"] = timed(lambda: replicate_db(
        source.path / "meta.sqlite", store_root / NAME, tree, replicas, args.noise))
    collection = Store(store_root).open(NAME)
    files, units, chunks = db.counts(collection.conn)
    result |= {"files": files, "units": units, "chunks": chunks,
               "sqlite_bytes": (store_root / NAME / "meta.sqlite").stat().st_size}
    say(f"database: {files:,} files, {units:,} units, {chunks:,} chunks, "
        f"{result['sqlite_bytes'] / 2**30:.2f} GiB in {result['db_build_s']:.0f} s")

    built = in_subprocess(BUILD.format(store=str(store_root), name=NAME, peak=PEAK_MIB))
    result["collection_build"] = built
    result["index_file_bytes"] = (store_root / NAME / "vectors.faiss").stat().st_size
    say(f"collection build (train + shards from SQLite): {built}")
    result["lexical_build"] = in_subprocess(LEXICAL.format(store=str(store_root), name=NAME,
                                                           peak=PEAK_MIB))
    result["lexical_file_bytes"] = (store_root / NAME / lexical_index.SEGMENT_FILE).stat().st_size
    say(f"BM25 segment build: {result['lexical_build']}")

    index = collection.vector_index()
    ids, vectors = db.all_vectors(collection.conn, collection.manifest.dim)  # (n,), (n, d)
    result["index_ram_bytes"] = int(faiss.serialize_index(index._index).nbytes)
    trained = type(index)(index.kind, index.dim, index.params, faiss.clone_index(index._index))
    trained._index.reset()  # keeps the coarse centroids and PQ codebooks, drops the lists
    faiss.omp_set_num_threads(os.cpu_count() or 1)
    _, threads_s = timed(lambda: build_ivfpq_sharded(ids, vectors, shards=args.shards,
                                                     trained=trained))
    result["add_threads_s"] = round(threads_s, 1)
    if not args.no_ray:
        result |= ray_add(trained, ids, vectors, args.shards)
    say(f"add on {args.shards} threads {threads_s:.1f} s; Ray: {result.get('ray_add_s')}")

    queries = docstring_queries(source.conn, args.queries)
    opened = [in_subprocess(OPEN.format(store=str(store_root), name=NAME, query=q, peak=PEAK_MIB))
              for q in queries[:3]]
    result["open"] = {key: round(statistics.median(o[key] for o in opened), 3)
                      for key in ("import_s", "open_s", "first_query_s", "rss_mib")}
    say(f"open in a fresh process (median of 3): {result['open']}")

    encoder = collection.query_encoder
    query_vectors = encoder.encode(queries, kind="query")  # (q, d)
    _, rows_found = faiss.knn(query_vectors, vectors, K, metric=faiss.METRIC_INNER_PRODUCT)
    truth = ids[rows_found]  # (q, K) unit ids
    rows = []
    for nprobe in sorted({*NPROBES, index.params["nprobe"]}):
        def dense(q: Vectors, nprobe: int = nprobe) -> npt.NDArray[np.int64]:
            return collection.search_vectors(q[None, :], K, nprobe=nprobe)[1][0]

        seconds, hits = each_timed(dense, list(query_vectors))
        recall = sum(np.intersect1d(h, t).size for h, t in zip(hits, truth, strict=True))
        rows.append({"nprobe": nprobe, **percentiles(seconds),
                     "recall_at_10": round(recall / truth.size, 4)})
        say(f"  {rows[-1]}")
    result["vector_search"] = rows

    modes = {}
    for mode in ("dense", "hybrid", "lexical"):
        def search(q: str, mode: str = mode) -> object:
            return search_module.search(collection, q, K, mode=mode)

        modes[mode] = percentiles(each_timed(search, queries)[0])
        say(f"  search {mode}: {modes[mode]}")
    result["search"] = modes
    result["fts5"] = fts5_against_segment(collection, queries)
    say(f"  FTS5 alone: {result['fts5']}")

    result["refine_lookup"] = refine_lookups(collection, ids, vectors, args.work)
    result["reindex"] = reindex(store_root, tree)
    collection.close()
    result["total_s"] = round(time.perf_counter() - began, 1)
    write_results(result, args)


def fts5_against_segment(collection: Any, queries: list[str]) -> dict[str, Any]:
    """FTS5's own bm25() ranking of the top CANDIDATES, timed, and whether the segment agrees."""
    view = collection.lexical_view()
    same = 0
    seconds = []
    for q in queries:
        match = fts_query(q)
        if match is None:
            continue
        began = time.perf_counter()
        expected = db.lexical_search(collection.conn, match, CANDIDATES)
        seconds.append(time.perf_counter() - began)
        same += view.top(query_terms(q), CANDIDATES) == expected
    return {**percentiles(seconds), "identical": same, "queries": len(seconds)}


def refine_lookups(
    collection: Any, ids: npt.NDArray[np.int64], vectors: Vectors, work: Path
) -> dict[str, Any]:
    """The refine step's lookup of 100 random units: SQLite rows against a float16 memmap."""
    path = work / "vectors.f16.npy"
    memmap = np.lib.format.open_memmap(path, mode="w+", dtype=np.float16, shape=vectors.shape)
    memmap[:] = vectors
    memmap.flush()
    rng = np.random.default_rng(1)
    draws = [ids[np.sort(rng.choice(len(ids), 100, replace=False))] for _ in range(300)]
    rows = {int(i): row for row, i in enumerate(ids)}
    dim = vectors.shape[1]

    def from_sqlite(wanted: npt.NDArray[np.int64]) -> object:
        return db.vectors_for(collection.conn, wanted, dim)

    def from_memmap(wanted: npt.NDArray[np.int64]) -> object:
        return np.asarray(memmap[[rows[int(i)] for i in wanted]], dtype=np.float32)

    sqlite_s, memmap_s = each_timed(from_sqlite, draws)[0], each_timed(from_memmap, draws)[0]
    return {"sqlite": percentiles(sqlite_s), "memmap": percentiles(memmap_s),
            "memmap_bytes": path.stat().st_size}


def reindex(store_root: Path, tree: Path) -> dict[str, Any]:
    """``embedstore index`` as a whole process: once with nothing changed, once after an edit."""
    command = [str(Path(sys.executable).with_name("embedstore")), "index", str(tree),
               "--name", NAME, "--store", str(store_root)]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    runs: dict[str, Any] = {}
    # Not timed: the first run settles what the bench wrote by hand (it rewrote the
    # manifest and saved the index again, 7 s, in the first 1M run).
    subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    for label in ("unchanged", "one file edited"):
        if label != "unchanged":
            edited = tree / "r01" / EDITED
            text = edited.read_text() + EDIT
            staged = edited.with_suffix(".tmp")
            staged.write_text(text)
            os.replace(staged, edited)  # a new inode: the other replicas' hard links keep theirs
        done, seconds = timed(lambda: subprocess.run(command, capture_output=True, text=True,
                                                     env=env, check=True))
        runs[label] = {"wall_s": round(seconds, 2), "output": done.stdout.strip().splitlines()[-3:]}
        say(f"  re-index, {label}: {seconds:.2f} s")
    check = Store(store_root).open(NAME)
    hits = search_module.search(check, "scale_bench_marker", 1, mode="lexical")
    runs["edit_found"] = bool(hits) and hits[0].path == f"r01/{EDITED}"
    check.close()
    return runs


def write_results(result: dict[str, Any], args: argparse.Namespace) -> None:
    ram_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    result["machine"] = (f"{platform.machine()}, {os.cpu_count()} cpus, {ram_gib:.0f} GiB RAM, "
                         f"faiss {faiss.__version__}")
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    (out / "scale_1m.json").write_text(json.dumps(result, indent=2) + "\n")
    mib = 2**20
    built, opened, lookup = result["collection_build"], result["open"], result["refine_lookup"]
    lines = [
        f"# A collection of {result['units']:,} units (d = 384)", "",
        f"`python bench/scale_1m.py --units {args.units} --queries {args.queries} "
        f"--noise {args.noise}`; {result['machine']}; load average "
        f"{result['load_average_at_start']} at start; {result['total_s']:.0f} s in all.", "",
        f"The stdlib collection replicated {result['replicas']} times: {result['files']:,} files "
        f"(hard-linked copies on disk), {result['units']:,} units, {result['chunks']:,} chunks. "
        f"Real texts; real all-MiniLM-L6-v2 unit vectors plus Gaussian noise of norm "
        f"{args.noise} (replica 0 unchanged). Queries: {args.queries} docstring first lines.", "",
        "| what | value |", "|---|---|",
        f"| SQLite (meta.sqlite) | {result['sqlite_bytes'] / 2**30:.2f} GiB |",
        f"| IVF-PQ parameters | {built['params']} |",
        f"| IVF-PQ index in RAM (serialised) | {result['index_ram_bytes'] / mib:.1f} MiB |",
        f"| IVF-PQ index file | {result['index_file_bytes'] / mib:.1f} MiB |",
        f"| collection build: sample training + shards from SQLite | {built['build_s']:.0f} s, "
        f"peak RSS {built['peak_rss_mib']:.0f} MiB |",
        f"| BM25 segment (lexical.bm25) build from SQLite | "
        f"{result['lexical_build']['build_s']:.0f} s, peak RSS "
        f"{result['lexical_build']['peak_rss_mib']:.0f} MiB |",
        f"| BM25 segment file | {result['lexical_file_bytes'] / mib:.0f} MiB |",
        f"| add phase, {args.shards} shards on threads (same trained index) | "
        f"{result['add_threads_s']} s |",
        f"| add phase, {args.shards} shards as Ray tasks, local cluster | "
        f"{result.get('ray_add_s', 'not run')} s (+ {result.get('ray_start_s', '-')} s start) |",
        f"| open in a fresh process: imports / open + index load / first query | "
        f"{opened['import_s']} / {opened['open_s']} / {opened['first_query_s']} s |",
        f"| that process's peak RSS | {opened['rss_mib']:.0f} MiB |",
        f"| refine lookup of 100 vectors, SQLite p50 / p95 | {lookup['sqlite']['p50_ms']} / "
        f"{lookup['sqlite']['p95_ms']} ms |",
        f"| the same from a float16 .npy memmap ({lookup['memmap_bytes'] / mib:.0f} MiB) | "
        f"{lookup['memmap']['p50_ms']} / {lookup['memmap']['p95_ms']} ms |",
    ]
    for label, run in result["reindex"].items():
        if isinstance(run, dict):
            lines.append(f"| `embedstore index` (whole process), {label} | {run['wall_s']} s |")
    lines += [
        f"| the edit is found afterwards | {'yes' if result['reindex']['edit_found'] else 'NO'} |",
        "", "`Collection.search`, k = 10, one query at a time, query encoding included:", "",
        "| mode | p50 ms | p95 ms |", "|---|---|---|",
        *(f"| {m} | {p['p50_ms']} | {p['p95_ms']} |" for m, p in result["search"].items()),
        f"| (FTS5's bm25() alone, top {CANDIDATES}: what lexical took before the segment) | "
        f"{result['fts5']['p50_ms']} | {result['fts5']['p95_ms']} |", "",
        f"The segment's top {CANDIDATES} equalled FTS5's (ids and scores) on "
        f"{result['fts5']['identical']} of {result['fts5']['queries']} queries.",
        "", "Dense vector search alone (`Collection.search_vectors`, refined), against exact:", "",
        "| nprobe | p50 ms | p95 ms | recall@10 |", "|---|---|---|---|",
        *(f"| {r['nprobe']} | {r['p50_ms']} | {r['p95_ms']} | {r['recall_at_10']} |"
          for r in result["vector_search"]),
    ]
    (out / "scale_1m.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
