"""Does looping pay? Four small PLTs, R = 1, 2, 3, 4, distilled and compared on retrieval.

    nice -n 10 python bench/plt_loops.py [--steps 600] [--loops 1 2 3 4] > plt_loops.log

The standard library's Python files are split by a hash of their path into a
training part and a held-out part, so no evaluated function is trained on.
Every model has the same size, data, seed and number of steps; only R
differs. Each is distilled from all-MiniLM-L6-v2 on chunks (and docstring ->
code pairs) of the training part, then scored on docstring -> code retrieval
over the held-out part (MRR@10, Recall@10, dense search, exact index, `eval --strict`'s
tight rule: a hit is the function itself), with
time per training step, encoding chunks/s and the per-loop diagnostics.
Results go to bench/results/plt_loops.{md,json}; models to bench/work/plt/.
A re-run resumes finished or interrupted models from their checkpoints.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import math
import os
import platform
import shutil
import time
from pathlib import Path
from typing import Any

import torch
from stdlib_corpus import stdlib_copy

from embedstore.encoders.plt.diagnostics import diagnose
from embedstore.encoders.plt.embedder import token_counter
from embedstore.encoders.plt.encoder import PLTEncoder
from embedstore.encoders.plt.family import load_plt
from embedstore.encoders.registry import load_encoder, register_family
from embedstore.evaluation.runner import run_eval
from embedstore.ingest.indexer import embedding_text
from embedstore.tuning.plt_data import build_training_corpus
from embedstore.tuning.plt_train import StepLog, TrainConfig, fit, prepare

HERE = Path(__file__).resolve().parent
WORK = HERE / "work" / "plt"
RESULTS = HERE / "results"
HELD_OUT_EVERY = 5  # one file in five is held out, by hash of its path


class LogProgress:
    """Progress as log lines: one at each stage's start and end."""

    def __init__(self) -> None:
        self._began: dict[str, float] = {}

    def start(self, stage: str, total: int | None = None) -> None:
        self._began[stage] = time.perf_counter()
        print(f"  {stage}: {total if total is not None else '?'} to do", flush=True)

    def advance(self, stage: str, n: int = 1) -> None:
        pass

    def finish(self, stage: str) -> None:
        print(f"  {stage}: done in {time.perf_counter() - self._began[stage]:.0f}s", flush=True)


def split_corpus(lib: Path, train_files: int, held_out_files: int) -> tuple[Path, Path]:
    """Copy a hash-chosen sample of Lib's .py files into train/ and held_out/ folders."""
    keyed = sorted(
        (hashlib.sha256(p.relative_to(lib).as_posix().encode()).hexdigest(), p)
        for p in lib.rglob("*.py")
    )
    parts = {"train": WORK / "train_lib", "held_out": WORK / "held_out_lib"}
    caps = {"train": train_files, "held_out": held_out_files}
    counts = dict.fromkeys(parts, 0)
    for part in parts.values():
        shutil.rmtree(part, ignore_errors=True)
    for digest, path in keyed:
        part = "held_out" if int(digest[:8], 16) % HELD_OUT_EVERY == 0 else "train"
        if counts[part] >= caps[part]:
            continue
        target = parts[part] / path.relative_to(lib)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
        counts[part] += 1
    return parts["train"], parts["held_out"]


def retrieval(held_out: Path, encoder: str | None, max_queries: int) -> dict[str, Any]:
    report = run_eval(held_out, encoder=encoder, max_queries=max_queries, modes=("dense",),
                      index_kinds=("flat",), strict=True)
    return {"queries": report.queries, "chunks": report.chunks, **report.rows[0].metrics}


def encode_speed(encode: Any, texts: list[str]) -> float:
    began = time.perf_counter()
    encode(texts, batch_size=32)
    return len(texts) / (time.perf_counter() - began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loops", type=int, nargs="+", default=[1, 2, 3, 4])
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--d-model", type=int, default=128)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--pair-batch-size", type=int, default=8)
    parser.add_argument("--train-files", type=int, default=150)
    parser.add_argument("--held-out-files", type=int, default=40)
    parser.add_argument("--max-chunks", type=int, default=3000)
    parser.add_argument("--max-pairs", type=int, default=1000)
    parser.add_argument("--max-queries", type=int, default=300)
    # 0: at this scale the contrastive term cost retrieval (R=1, 200 steps, held-out
    # MRR@10: 14.3 with weight 0, 7.0 with 0.05, 3.8 with 0.2 at temperature 0.1).
    parser.add_argument("--contrastive-weight", type=float, default=0.0)
    # On a shared 2-core machine two torch threads spin waiting for each other's
    # core: one training step measured 2.8 s with two threads, 0.28 s with one.
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    register_family("plt", load_plt)
    began = time.perf_counter()

    train_root, held_out = split_corpus(
        stdlib_copy(HERE / "work" / "Lib"), args.train_files, args.held_out_files
    )
    base = TrainConfig(
        loops=1, d_model=args.d_model, n_layers=args.layers, n_heads=4, n_kv_heads=2,
        ffn_size=args.d_model * 8 // 3, max_tokens=args.max_tokens, pooling="weighted_mean",
        steps=args.steps, batch_size=args.batch_size, pair_batch_size=args.pair_batch_size,
        lr=2e-3, warmup_steps=max(1, args.steps // 10), max_chunks=args.max_chunks,
        contrastive_weight=args.contrastive_weight,
        max_pairs=args.max_pairs, checkpoint_every=50,
    )
    print(f"preparing data ({time.perf_counter() - began:.0f}s)", flush=True)
    prepared = prepare(
        train_root, base, text_of=embedding_text, cache_dir=WORK / "cache",
        progress=LogProgress(),
    )

    sample = build_training_corpus(
        held_out, count_tokens=token_counter(prepared.tokenizer), max_tokens=args.max_tokens,
        text_of=embedding_text, max_chunks=256, max_pairs=0,
    ).texts
    results: dict[str, Any] = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cpus, "
        f"torch threads {torch.get_num_threads()}, load average at start {os.getloadavg()[0]:.1f}",
        "args": vars(args),
        "train_config": dataclasses.asdict(base),
        "train_texts": len(prepared.corpus.texts),
        "train_pairs": len(prepared.corpus.pairs),
        "models": [],
    }
    print(f"teacher on held-out ({time.perf_counter() - began:.0f}s)", flush=True)
    teacher = load_encoder(base.teacher)
    results["teacher"] = {
        **retrieval(held_out, base.teacher, args.max_queries),
        "encode_chunks_per_s": encode_speed(teacher.encode, sample),
    }
    print(f"  {results['teacher']}", flush=True)

    for loops in args.loops:
        config = dataclasses.replace(base, loops=loops)
        folder = WORK / f"r{loops}"
        print(f"R={loops}: training ({time.perf_counter() - began:.0f}s)", flush=True)

        def log(step: StepLog) -> None:
            if step.step % 10 == 0 or step.step == 1:
                print(f"  step {step.step}: loss {step.loss:.4f} (distil {step.distill:.4f}, "
                      f"contrastive {step.contrastive:.3f}) {step.seconds:.2f}s", flush=True)

        trained = fit(prepared, config, folder, on_step=log)
        encoder = PLTEncoder.from_folder(folder, device="cpu")
        diagnostics = diagnose(encoder.embedder, encoder.tokenizer, sample[:64],
                               seq_len=args.max_tokens)
        print(f"R={loops}: evaluating ({time.perf_counter() - began:.0f}s)", flush=True)
        row = {
            "loops": loops,
            "params": sum(p.numel() for p in encoder.embedder.parameters()),
            "seconds_per_step": trained.seconds_per_step,
            "final_loss": sum(s.loss for s in trained.history[-10:]) / 10,
            "encode_chunks_per_s": encode_speed(encoder.encode, sample),
            **retrieval(held_out, f"plt:{folder}", args.max_queries),
            "diagnostics": dataclasses.asdict(diagnostics),
        }
        print(f"  {json.dumps({k: v for k, v in row.items() if k != 'diagnostics'})}", flush=True)
        results["models"].append(row)
        write_results(results)  # after every model: an interrupted run still reports
    results["total_seconds"] = time.perf_counter() - began
    write_results(results)
    print((RESULTS / "plt_loops.md").read_text())


def write_results(results: dict[str, Any]) -> None:
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "plt_loops.json").write_text(json.dumps(results, indent=2) + "\n")
    (RESULTS / "plt_loops.md").write_text(markdown(results))


def recall_error(recall: float, queries: int) -> float:
    """One binomial standard error of a Recall@k percentage: how much is noise."""
    share = recall / 100
    return 100 * math.sqrt(share * (1 - share) / queries)


def _fmt(value: float | None, spec: str = ".3f") -> str:
    return "—" if value is None else format(value, spec)


def markdown(results: dict[str, Any]) -> str:
    teacher = results["teacher"]
    teacher_name = results["train_config"]["teacher"].rsplit("/", 1)[-1]
    lines = [
        "# PLT loops R = 1..4: distilled on the standard library, scored on held-out files",
        "",
        f"Machine: {results['machine']}. Same model size, data, seed and steps for every R; "
        f"{results['train_texts']:,} training texts ({results['train_pairs']:,} docstring/code "
        f"pairs); held-out docstring -> code retrieval, {teacher['queries']} queries over "
        f"{teacher['chunks']:,} chunks, dense search, exact index, tight rule (a hit is the "
        f"function itself, as `eval --strict`). Arguments: `{results['args']}`.",
        "",
        "| model | MRR@10 | Recall@10 (± 1 s.e.) | s/step | encode chunks/s | final loss | "
        "KV bytes at max tokens (shared / sequential) |",
        "|---|---|---|---|---|---|---|",
        f"| teacher {teacher_name} | {teacher['mrr@10']:.1f} "
        f"| {teacher['recall@10']:.1f} "
        f"(± {recall_error(teacher['recall@10'], teacher['queries']):.1f}) | — "
        f"| {teacher['encode_chunks_per_s']:.0f} | — | — |",
    ]
    for row in results["models"]:
        diag = row["diagnostics"]
        error = recall_error(row["recall@10"], row["queries"])
        lines.append(
            f"| PLT R={row['loops']} | {row['mrr@10']:.1f} | "
            f"{row['recall@10']:.1f} (± {error:.1f}) | "
            f"{row['seconds_per_step']:.2f} | {row['encode_chunks_per_s']:.0f} | "
            f"{row['final_loss']:.4f} | {diag['kv_cache_bytes']:,} / "
            f"{diag['sequential_kv_bytes']:,} |"
        )
    lines += [
        "",
        "Per loop (64 held-out chunks): offset cost Ω^r, step size ‖h^r - h^{r-1}‖, mean gate "
        "(share of the global branch), effective rank of the pooled states.",
        "",
        "| model | loop | Ω^r | step size | gate | effective rank |",
        "|---|---|---|---|---|---|",
    ]
    for row in results["models"]:
        for loop in row["diagnostics"]["loops"]:
            lines.append(
                f"| R={row['loops']} | {loop['loop']} | {_fmt(loop['offset_cost'])} | "
                f"{_fmt(loop['step_size'])} | {_fmt(loop['gate_mean'])} | "
                f"{loop['effective_rank']:.1f} |"
            )
    if "total_seconds" in results:
        lines += ["", f"Whole run: {results['total_seconds'] / 60:.1f} minutes."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
