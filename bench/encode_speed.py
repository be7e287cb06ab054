"""Encoding throughput: plain sentence-transformers against embedstore's paths, same texts.

    python bench/encode_speed.py [--sample 1000] [--naive-all]

1. The standard library (bench/stdlib_corpus.py) is indexed end to end with
   `index_folder` (the default, auto precision): chunks/s and stage seconds.
2. The exact texts that run embedded are read back from the collection
   (checked against their stored hashes) and encoded by plain
   `SentenceTransformer.encode` (fp32, batch 32) in the same run: all of
   them with --naive-all, else a random sample of --sample texts.
3. Side by side on the sample: naive, then each embedstore path (fp32 with
   token-budget batches, the auto fast path, the ONNX export) and the thread
   settings (one stream per core with one thread each, the default; one
   stream on every core; one stream on one thread), with texts/s, tokens/s,
   ratio to naive and mean cosine to naive's fp32 vectors.

Writes bench/results/encode_speed.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import sqlite3
import time
from functools import partial
from pathlib import Path

import numpy as np
import torch
from sentence_transformers import SentenceTransformer
from stdlib_corpus import stdlib_copy

from embedstore.encoders.adapter import merge_adapter
from embedstore.encoders.onnx_export import ensure_exported
from embedstore.encoders.onnx_model import load_exported
from embedstore.encoders.precision import candidate
from embedstore.encoders.registry import DEFAULT_ENCODER, load_encoder, model_source
from embedstore.encoders.streams import ENV as STREAMS_ENV
from embedstore.ingest.indexer import IndexOptions, index_folder, text_hash
from embedstore.store.store import Store

HERE = Path(__file__).resolve().parent
WORK = HERE / "work"


def embedded_texts(db_file: Path) -> list[str]:
    """Every chunk's embedded text (path header, context, code), as the index encoded it."""
    conn = sqlite3.connect(db_file)
    rows = conn.execute(
        "SELECT f.path, c.context, c.text, c.text_hash FROM chunks c "
        "JOIN units u ON u.id = c.unit_id JOIN files f ON f.id = u.file_id ORDER BY c.id"
    ).fetchall()
    texts = [f"{p}\n{ctx}\n{t}" if ctx else f"{p}\n{t}" for p, ctx, t, _ in rows]
    if any(text_hash(t) != h for t, (*_, h) in zip(texts, rows, strict=True)):
        raise SystemExit("the texts read back differ from what the index encoded")
    return texts


def timed(encode, texts: list[str]) -> tuple[float, np.ndarray]:  # type: ignore[no-untyped-def]
    began = time.perf_counter()
    vectors = encode(texts)
    return time.perf_counter() - began, np.asarray(vectors, dtype=np.float32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=1000)
    parser.add_argument("--naive-all", action="store_true", help="naive encodes every text")
    args = parser.parse_args()
    load = os.getloadavg()[0]

    # 1. The whole index, as a user runs it.
    corpus = stdlib_copy(WORK / "Lib")
    store_dir = WORK / "store"  # where bench/api_load.py and search_latency.py look
    shutil.rmtree(store_dir, ignore_errors=True)
    encoder = load_encoder()  # loaded before the clock starts, as naive's model is
    began = time.perf_counter()
    report = index_folder(Store(store_dir), corpus, IndexOptions(name="stdlib"))
    index_s = time.perf_counter() - began
    chunks = report.chunks_total
    texts = embedded_texts(store_dir / "stdlib" / "meta.sqlite")

    # 2. Naive on the same texts.
    source = model_source(DEFAULT_ENCODER)
    naive = SentenceTransformer(source.source, device="cpu")
    if source.adapter is not None:  # the weights embedstore encodes with, base plus adapter
        merge_adapter(naive[0], source.adapter)
    random.seed(0)
    sample = random.sample(texts, min(args.sample, len(texts)))
    naive_texts = texts if args.naive_all else sample
    naive_s, reference_all = timed(lambda t: naive.encode(t, batch_size=32), naive_texts)
    naive_rate = len(naive_texts) / naive_s

    # 3. Each path on the sample.
    tokens = sum(encoder.count_tokens(sample))
    reference = reference_all if not args.naive_all else naive.encode(sample, batch_size=32)
    exact = load_encoder(precision="fp32")
    ensure_exported(exact, store_dir)
    onnx = load_exported(store_dir, exact.name, exact.pooling)
    bs = IndexOptions().batch_size  # as index encodes
    threads = torch.get_num_threads()
    auto = f"embedstore auto ({encoder.precision})"
    paths = {
        "naive sentence-transformers fp32 (batch 32)": lambda t: naive.encode(t, batch_size=32),
        f"embedstore fp32, {threads} streams x 1 thread": partial(exact.encode, batch_size=bs),
        f"{auto}, {threads} streams x 1 thread (default)": partial(encoder.encode, batch_size=bs),
        f"{auto}, 1 stream x {threads} threads": partial(encoder.encode, batch_size=bs),
        f"{auto}, 1 stream x 1 thread": partial(encoder.encode, batch_size=bs),
        "embedstore ONNX Runtime fp32": partial((onnx or exact).encode, batch_size=bs),
    }
    fast = candidate("cpu")
    if fast != encoder.precision:  # the path auto passed over, timed for the record
        by_name = load_encoder(precision=fast)
        paths[f"embedstore {fast} asked for by name, {threads} streams x 1 thread"] = partial(
            by_name.encode, batch_size=bs)
    rows = []
    for name, encode in paths.items():
        if "1 stream" in name:
            os.environ[STREAMS_ENV] = "1"
        if name.endswith("1 stream x 1 thread"):
            torch.set_num_threads(1)
        try:
            seconds, vectors = timed(encode, sample)
        finally:
            torch.set_num_threads(threads)
            os.environ.pop(STREAMS_ENV, None)
        rows.append({
            "path": name, "texts_per_s": round(len(sample) / seconds, 1),
            "tokens_per_s": round(tokens / seconds), "seconds": round(seconds, 1),
            "cosine_to_fp32": round(float(np.mean(np.sum(vectors * reference, axis=1))), 5),
        })
    base = rows[0]["texts_per_s"]
    for row in rows:
        row["ratio"] = round(float(row["texts_per_s"]) / float(base), 2)

    result = {
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cpus, "
        f"torch {torch.__version__}, {threads} torch threads",
        "load_average_at_start": round(load, 2),
        "load_average_at_end": round(os.getloadavg()[0], 2),
        "index": {
            "files": report.files_scanned, "chunks": chunks, "encoded": report.chunks_encoded,
            "seconds": round(index_s, 1), "stages": report.seconds,
            "chunks_per_s": round(chunks / index_s, 1), "precision": encoder.precision,
        },
        "naive_on_index_texts": {
            "texts": len(naive_texts), "seconds": round(naive_s, 1),
            "chunks_per_s": round(naive_rate, 1),
        },
        "index_speedup_over_naive": round(chunks / index_s / naive_rate, 2),
        "sample": {"texts": len(sample), "tokens": tokens, "rows": rows},
    }
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    (out / "encode_speed.json").write_text(json.dumps(result, indent=2) + "\n")
    idx, nv = result["index"], result["naive_on_index_texts"]
    lines = [
        "# Encoding throughput: plain sentence-transformers vs embedstore", "",
        f"`python bench/encode_speed.py --sample {args.sample}"
        f"{' --naive-all' if args.naive_all else ''}`; {result['machine']}; "
        f"load average {result['load_average_at_start']} at start, "
        f"{result['load_average_at_end']} at the end.", "",
        "## Whole `index` of the standard library against naive on the same texts", "",
        "| what | chunks | seconds | chunks/s |", "|---|---|---|---|",
        f"| `index_folder` end to end ({idx['precision']}; stages {idx['stages']}) "
        f"| {idx['chunks']:,} | {idx['seconds']} | {idx['chunks_per_s']} |",
        f"| naive `SentenceTransformer.encode`, fp32, batch 32 | {nv['texts']:,} "
        f"| {nv['seconds']} | {nv['chunks_per_s']} |", "",
        f"**Index end to end: x{result['index_speedup_over_naive']} naive's chunks/s.**", "",
        f"## Each path on the same {len(sample):,} texts ({tokens:,} tokens)", "",
        "| path | texts/s | tokens/s | ratio | cosine to fp32 |", "|---|---|---|---|---|",
    ]
    lines += [f"| {r['path']} | {r['texts_per_s']} | {r['tokens_per_s']:,} | x{r['ratio']} "
              f"| {r['cosine_to_fp32']} |" for r in rows]
    (out / "encode_speed.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
