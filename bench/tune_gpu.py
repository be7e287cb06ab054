"""`embedstore tune` on a CUDA GPU: one short run per training precision, timed.

Calls ``embedstore.tuning.run.run_tune`` (the code behind `embedstore tune`)
on a subset of this Python's standard library: the ``--files`` largest
top-level ``Lib/*.py`` files, copied into ``<work>/stdlib<N>`` (the folder
name keys the held-out split, so it is the same on every machine with the
same stdlib). For each precision in ``--precisions`` (fp32 is what the CLI
picks on CUDA; bf16 is `--bf16`) it records the TuneReport (pairs, steps,
train seconds, held-out MRR@10 before/after with its paired bootstrap CI),
the time of each stage and of each training step (through run_tune's
progress hooks), and the peak GPU memory. Writes tune_gpu.json and
tune_gpu.md to --out, or $OUT when that is set (the device machine).

    python3 bench/tune_gpu.py --model-dir DIR                    # on a CUDA machine
    python bench/tune_gpu.py --model-dir DIR --allow-cpu --files 10 --steps 2 \\
        --batch-size 4 --out /tmp/tg                             # logic test on CPU

``--model-dir`` may hold float16 weights (the carried archive, see
bench/results/gpu_check.md): they are up-cast to a float32 copy first, since
sentence-transformers would otherwise load, and train, the model in float16.
FAISS: a GPU build set up the way bench/gpu_check.py does it, else any faiss.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import statistics
import sys
import sysconfig
import time
import traceback
from dataclasses import asdict
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
sys.path.insert(0, str(BENCH))

from gpu_check import (  # noqa: E402  (bench/ is on sys.path now)
    environment,
    import_project,
    merge_nvidia_namespace,
    point_cublas12_shim_at_cublas13,
)
from stdlib_corpus import TEST_FOLDERS  # noqa: E402

WARMUP_STEPS = 5  # steps left out of the steady-state step time


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


class Timeline:
    """A Progress that records when each stage starts and finishes and when each step ends."""

    def __init__(self) -> None:
        self.stages: list[dict[str, Any]] = []
        self.train_ticks: list[float] = []
        self._open: dict[str, float] = {}
        self._sync: Any = lambda: None
        self._evals = 0  # run_eval's "scan" stages seen: 1 = base model, 2 = tuned model

    def _label(self, stage: str) -> str:
        names = {1: "base eval: ", 2: "tuned eval: "}
        return names.get(self._evals, f"eval {self._evals}: ") + stage if self._evals else stage

    def start(self, stage: str, total: int | None = None) -> None:
        self._sync()
        if stage == "scan":
            self._evals += 1
        self._open[stage] = time.perf_counter()
        if stage == "train":
            self.train_ticks = [self._open[stage]]
        log(f"  stage {stage} ...")

    def advance(self, stage: str, n: int = 1) -> None:
        if stage == "train":
            self._sync()
            self.train_ticks.append(time.perf_counter())

    def add_total(self, stage: str, n: int) -> None:
        pass  # totals learnt as a stage runs (encoding's) time nothing

    def finish(self, stage: str) -> None:
        self._sync()
        began = self._open.pop(stage, None)
        if began is not None:
            seconds = time.perf_counter() - began
            self.stages.append({"stage": self._label(stage), "seconds": seconds})
            log(f"  stage {self._label(stage)}: {seconds:.2f} s")


def stdlib_subset(work: Path, files: int) -> Path:
    """The ``files`` largest top-level Lib/*.py of this Python, copied to work/stdlib<N>."""
    src = Path(sysconfig.get_paths()["stdlib"])
    chosen = sorted(
        (
            p
            for p in src.glob("*.py")
            if not p.name.startswith("_sysconfigdata") and p.stem not in TEST_FOLDERS
        ),
        key=lambda p: (-p.stat().st_size, p.name),
    )[:files]
    dest = work / f"stdlib{files}"
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    for path in chosen:
        shutil.copyfile(path, dest / path.name)
    return dest


def fp32_copy(model_dir: Path, dest: Path) -> tuple[Path, str]:
    """``model_dir`` with its float16/bfloat16 safetensors up-cast to float32, and what was done."""
    import torch
    from safetensors.torch import load_file, save_file

    weights = model_dir / "model.safetensors"
    tensors = load_file(str(weights))
    low = {k for k, v in tensors.items() if v.dtype in (torch.float16, torch.bfloat16)}
    if not low:
        return model_dir, "float32 already, used as is"
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(model_dir, dest, ignore=shutil.ignore_patterns("model.safetensors"))
    save_file(
        {k: (v.float() if k in low else v) for k, v in tensors.items()},
        str(dest / "model.safetensors"),
        metadata={"format": "pt"},
    )
    return dest, f"{len(low)} of {len(tensors)} tensors up-cast from 16-bit floats to float32"


def setup_faiss(torch: Any) -> Any:
    """faiss, with the CUDA 13 cuBLAS shim pointed at, as bench/gpu_check.py does it."""
    if torch.cuda.is_available():
        # Load cuBLAS 13 through torch before FAISS, for a cuBLAS 12 shim to find.
        torch.ones(8, 8, device="cuda") @ torch.ones(8, 8, device="cuda")
    point_cublas12_shim_at_cublas13()
    merge_nvidia_namespace()
    import faiss

    return faiss


def versions(torch: Any, faiss: Any) -> dict[str, Any]:
    """gpu_check's environment, plus the training stack's package versions."""
    from importlib import metadata

    env = environment(torch, faiss)
    for package in (
        "sentence-transformers", "transformers", "accelerate", "datasets", "tokenizers",
        "numpy", "pyarrow", "fsspec", "huggingface-hub", "dill", "multiprocess", "tree-sitter",
    ):
        try:
            env[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            env[package] = None
    if env["gpu"] is not None:
        env["bf16_supported"] = bool(torch.cuda.is_bf16_supported())
    return env


def step_figures(ticks: list[float]) -> dict[str, Any]:
    """Per-step intervals (from the trainer's step-end hook) -> summary figures."""
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    if not gaps:
        return {}
    steady = gaps[WARMUP_STEPS:] or gaps
    median = statistics.median(steady)
    return {
        "first_step_s": gaps[0],
        "steady_steps": len(steady),
        "steady_median_step_s": median,
        "steady_mean_step_s": statistics.fmean(steady),
        "steady_max_step_s": max(steady),
        "steady_steps_per_s_median": 1.0 / median if median > 0 else None,
        "first_to_last_step_s": ticks[-1] - ticks[1] if len(ticks) > 2 else None,
    }


def one_run(
    torch: Any, corpus: Path, base: Path, args: argparse.Namespace, precision: str
) -> dict[str, Any]:
    from embedstore.encoders.registry import load_encoder
    from embedstore.tuning.run import run_tune
    from embedstore.tuning.train import TrainSettings

    cuda = torch.cuda.is_available()
    out = Path(args.work) / f"tuned-{precision}"  # one folder per run: load_encoder caches by path
    shutil.rmtree(out, ignore_errors=True)
    settings = TrainSettings(
        out=out, steps=args.steps, batch_size=args.batch_size, bf16=precision == "bf16"
    )
    timeline = Timeline()
    if cuda:
        timeline._sync = torch.cuda.synchronize
        torch.cuda.reset_peak_memory_stats()
    log(f"run_tune {precision}: corpus {corpus}, {settings}")
    began = time.perf_counter()
    report = run_tune([corpus], settings, base=str(base), progress=timeline)
    wall = time.perf_counter() - began
    saved = json.loads((out / "embedstore-tune.json").read_text())
    encoder = load_encoder(str(base))
    from safetensors import safe_open

    with safe_open(str(out / "model.safetensors"), "pt") as tuned:
        dtypes = sorted({str(tuned.get_slice(k).get_dtype()) for k in tuned.keys()})  # noqa: SIM118
    result = {
        "precision": precision,
        "settings": {k: str(v) for k, v in asdict(settings).items()},
        "report": asdict(report),
        "below_noise": report.below_noise,
        "wall_s": wall,
        "steps_per_s": report.steps / report.train_seconds if report.train_seconds else None,
        "steps": step_figures(timeline.train_ticks),
        "stages": timeline.stages,
        "peak_gpu_memory_gib": round(torch.cuda.max_memory_allocated() / 2**30, 2)
        if cuda
        else None,
        "base_encoder": {"device": encoder.device, "precision": encoder.precision},
        "tuned_weight_dtypes": dtypes,
        "tuned_files": sorted(p.name for p in out.iterdir()),
        "tuned_card_matches_report": saved["steps"] == report.steps,
    }
    log(f"run_tune {precision}: {json.dumps(result, default=str)}")
    return result


def markdown(result: dict[str, Any]) -> str:
    env = result["environment"]
    lines = [
        "# `embedstore tune` on a GPU (driver output)",
        "",
        f"GPU: {env.get('gpu')} ({env.get('gpu_memory_gib')} GiB, compute "
        f"{env.get('compute_capability')}, bf16 {env.get('bf16_supported')}); "
        f"{env['cpu_count']} CPU cores; Python {env['python']}; torch {env['torch']} "
        f"(CUDA {env['torch_cuda']}); sentence-transformers {env['sentence-transformers']}; "
        f"transformers {env['transformers']}; accelerate {env['accelerate']}; "
        f"datasets {env['datasets']}; faiss {env['faiss']} ({env['faiss_gpus']} GPU)",
        f"Command: `{env['command']}`; {env['when']}",
        f"Corpus: {result['corpus']} ({result['corpus_files']} files). Base: {result['base']} "
        f"({result['base_note']}).",
        "",
        "| training | pairs trained / held out (files) | steps | train s | steps/s | "
        "median step s (steady) | MRR@10 before | after | gain [95% CI] | "
        "peak GPU GiB | run_tune s |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |",
    ]
    for run in result["runs"]:
        if "error" in run:
            lines.append(f"| {run['precision']} | failed: {run['error']} | | | | | | | | | |")
            continue
        r, s = run["report"], run["steps"]
        gain = r["gain"]
        lines.append(
            f"| {run['precision']} | {r['pairs_trained']:,} / {r['pairs_held_out']:,} "
            f"({r['files_held_out']}) | {r['steps']} | {r['train_seconds']:.2f} | "
            f"{run['steps_per_s']:.2f} | {s.get('steady_median_step_s', 0):.4f} | "
            f"{r['before'].get('mrr@10', 0):.1f} | {r['after'].get('mrr@10', 0):.1f} | "
            f"{gain[0]:+.1f} [{gain[1]:+.1f}, {gain[2]:+.1f}] | "
            f"{run['peak_gpu_memory_gib']} | {r['total_seconds']:.1f} |"
        )
    lines += ["", "Stages (s):"]
    for run in result["runs"]:
        if "stages" in run:
            stages = ", ".join(f"{x['stage']} {x['seconds']:.2f}" for x in run["stages"])
            lines.append(f"- {run['precision']}: {stages}")
    lines.append(f"\nTotal wall time: {result.get('total_s', 0):.1f} s.")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model-dir", required=True, help="the default model's folder")
    parser.add_argument("--corpus", help="a folder to tune on (default: a stdlib subset)")
    parser.add_argument("--files", type=int, default=40, help="stdlib subset size")
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--precisions", default="fp32,bf16", help="comma-separated: fp32, bf16")
    parser.add_argument("--work", default="/tmp/tune_gpu", help="scratch folder")
    parser.add_argument("--out", help="folder for tune_gpu.json / .md (default: $OUT)")
    parser.add_argument("--allow-cpu", action="store_true", help="logic test without a GPU")
    args = parser.parse_args(argv)
    started = time.perf_counter()

    import torch

    if not torch.cuda.is_available() and not args.allow_cpu:
        message = "tune_gpu: no CUDA GPU visible to torch; --allow-cpu tests the logic"
        print(message, file=sys.stderr)
        return 1
    faiss = setup_faiss(torch)
    import_project()
    out_dir = Path(args.out or os.environ.get("OUT") or "/tmp/tune_gpu_out")
    out_dir.mkdir(parents=True, exist_ok=True)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    env = versions(torch, faiss)
    log(json.dumps(env))

    base, note = fp32_copy(Path(args.model_dir).resolve(), work / "base-fp32")
    corpus = Path(args.corpus).resolve() if args.corpus else stdlib_subset(work, args.files)
    result: dict[str, Any] = {
        "environment": env,
        "base": str(base),
        "base_note": note,
        "corpus": str(corpus),
        "corpus_files": sum(1 for _ in corpus.rglob("*.py")),
        "runs": [],
    }
    log(f"base {base} ({note}); corpus {corpus} ({result['corpus_files']} .py files)")

    def save() -> None:
        result["total_s"] = time.perf_counter() - started
        (out_dir / "tune_gpu.json").write_text(json.dumps(result, indent=2, default=str) + "\n")
        (out_dir / "tune_gpu.md").write_text(markdown(result))

    status = 0
    for precision in args.precisions.split(","):
        try:
            result["runs"].append(one_run(torch, corpus, base, args, precision.strip()))
        except Exception as err:  # keep the other run's figures
            traceback.print_exc()
            result["runs"].append({"precision": precision, "error": repr(err)[:300]})
            status = 1
        save()
    print("\n" + markdown(result), flush=True)
    log(f"wrote {out_dir / 'tune_gpu.json'} and {out_dir / 'tune_gpu.md'}")
    return status


if __name__ == "__main__":
    sys.exit(main())
