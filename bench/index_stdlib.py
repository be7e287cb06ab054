"""Index the Python standard library and report the cost of each stage.

    python bench/index_stdlib.py [--index auto|flat|ivfpq] [--batch-size 16]

Prints files, chunks, seconds per stage, encoding chunks/s, index size on disk
and peak memory, and writes them to bench/results/index_stdlib.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import time
from dataclasses import asdict
from pathlib import Path

import torch
from stdlib_corpus import stdlib_copy

from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.store.store import Store

HERE = Path(__file__).resolve().parent
WORK = HERE / "work"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", default="auto", help="auto, flat or ivfpq")
    parser.add_argument("--batch-size", type=int, default=IndexOptions().batch_size)
    args = parser.parse_args()

    corpus = stdlib_copy(WORK / "Lib")
    store_dir = WORK / "store"
    shutil.rmtree(store_dir, ignore_errors=True)
    store = Store(store_dir)
    began = time.perf_counter()
    options = IndexOptions(name="stdlib", index_kind=args.index, batch_size=args.batch_size)
    report = index_folder(store, corpus, options)
    total = time.perf_counter() - began
    collection = store.open("stdlib")
    sizes = {p.name: p.stat().st_size for p in collection.path.iterdir() if p.is_file()}
    encode_s = report.seconds.get("encode", 0.0)
    results = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cpus, "
        f"torch threads {torch.get_num_threads()}",
        "files": report.files_scanned,
        "chunks": report.chunks_total,
        "skipped": report.skipped,
        "seconds": {**report.seconds, "total_with_model_load": round(total, 1)},
        "encode_chunks_per_s": round(report.chunks_encoded / encode_s, 1) if encode_s else None,
        "index": collection.manifest.index,
        "disk_bytes": sizes,
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "report": asdict(report),
    }
    out = HERE / "results" / "index_stdlib.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    for key in ("machine", "files", "chunks", "skipped", "seconds", "encode_chunks_per_s",
                "index", "disk_bytes", "peak_rss_mib"):
        print(f"{key:>20}: {results[key]}")
    print(f"written to {out}")


if __name__ == "__main__":
    main()
