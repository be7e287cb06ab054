"""Train the shipped code adapter (issues 20, 29): a full fine-tune, kept as a low-rank adapter.

    python bench/train_default.py [--sets DIR ...] [--per-language 960] [--steps 120]
        [--rank 32] [--seed 0] [--resume] [--ship]

1. `embedstore tune`'s recipe (`embedstore.tuning.run.run_tune`) from the stock
   all-MiniLM-L6-v2 on the standard library's `Lib/` (tests excluded) and every repository
   under each --sets folder (the training sets, `../shared/eval/fetch_repos.py DIR --set
   train` and `--set train-multi`; never the validation sets): doc comment -> definition
   pairs as the indexer embeds them (Python docstrings, JSDoc, rustdoc, Go doc), at most
   --per-language of each language (a seeded sample), one hard negative each,
   MultipleNegativesRankingLoss, lr 2e-5, batch 32, bf16 where the CPU has it. A fifth of
   the files (`pairs.held_out`) is never trained on. Seeded; checkpoints every 50 steps,
   so --resume continues a killed run.
2. The change from the stock weights as a rank-r adapter (`embedstore.tuning.low_rank`).
3. The held-out stdlib files scored (dense, strict rule) with the stock model and the
   stock model plus the adapter (as embedstore loads the default).

Writes bench/work/default-adapter/{full,adapter,merged} and the run's facts (wall time,
hardware, counts, scores) to bench/results/train_default.json. --ship copies the
adapter into embedstore/encoders/code_adapter/ (its model card is kept by hand).
`python bench/eval_default.py` then scores the validation packages.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from stdlib_corpus import stdlib_copy

from embedstore.encoders.adapter import merge_adapter, save_adapter
from embedstore.encoders.device import best_device
from embedstore.encoders.registry import DEFAULT_ENCODER, STOCK_ENCODER, model_source
from embedstore.encoders.sentence_transformer import open_model
from embedstore.progress import NullProgress
from embedstore.tuning.low_rank import low_rank_delta
from embedstore.tuning.run import TuneReport, default_bf16, run_tune, score_held_out
from embedstore.tuning.train import TrainSettings

BENCH = Path(__file__).resolve().parent
WORK = BENCH / "work" / "default-adapter"
SHIPPED = BENCH.parent / "embedstore" / "encoders" / "code_adapter"


def cpu_name() -> str:
    info = Path("/proc/cpuinfo")
    names = [line.split(":", 1)[1].strip() for line in info.read_text().splitlines()
             if line.startswith("model name")] if info.exists() else []
    return names[0] if names else platform.processor() or platform.machine()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sets", type=Path, nargs="*", default=[],
                        help="folders of training repositories (one repository a subfolder)")
    parser.add_argument("--per-language", type=int, default=None,
                        help="at most this many trained pairs of each language")
    parser.add_argument("--start", choices=("stock", "default"), default="stock",
                        help="train from the stock model or from the shipped default")
    parser.add_argument("--steps", type=int, default=120)
    parser.add_argument("--minutes", type=float, default=None,
                        help="stop training after this long (a guard on a shared machine)")
    parser.add_argument("--rank", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--ship", action="store_true")
    args = parser.parse_args()
    began = time.perf_counter()
    stdlib = stdlib_copy(BENCH / "work" / "Lib")
    settings = TrainSettings(out=WORK / "full", steps=args.steps, minutes=args.minutes,
                             seed=args.seed, resume=args.resume, bf16=default_bf16())
    start = STOCK_ENCODER if args.start == "stock" else DEFAULT_ENCODER
    repos = [stdlib, *(repo for folder in args.sets for repo in sorted(folder.iterdir())
                       if repo.is_dir())]
    # Scored below as shipped (stock + adapter), not as the full fine-tune as well: two
    # encodings of the held-out files fewer on a shared 2-core machine.
    full = run_tune(repos, settings, base=start, per_language=args.per_language,
                    scored=[])
    print(f"full fine-tune: {full.steps} steps, {full.train_seconds / 60:.1f} min; trained "
          f"pairs per language {full.trained_per_language}", flush=True)
    files = model_source(STOCK_ENCODER)
    stock, tuned = open_model(files.source, "cpu"), open_model(str(WORK / "full"), "cpu")
    tensors = low_rank_delta(stock[0], tuned[0], args.rank)
    digest = save_adapter(tensors, WORK / "adapter", base=STOCK_ENCODER, rank=args.rank,
                          alpha=args.rank)
    merge_adapter(stock[0], WORK / "adapter")  # the shipped path: stock weights + adapter
    stock.save(str(WORK / "merged"))
    report = TuneReport(STOCK_ENCODER, str(WORK / "merged"))
    before, after, gain = score_held_out([stdlib], STOCK_ENCODER, WORK / "merged", report,
                                         NullProgress())
    facts = {
        "args": {k: str(v) for k, v in vars(args).items()},
        "recipe": "embedstore tune (full fine-tune) on stdlib Lib/ and the --sets "
                  "repositories, then a rank-r SVD of each linear layer's change and the "
                  "whole change of each vector",
        "start": start, "repositories": [repo.name for repo in repos],
        "pairs_trained": full.pairs_trained, "pairs_held_out": full.pairs_held_out,
        "trained_per_language": full.trained_per_language,
        "steps": full.steps, "precision": full.precision,
        "train_seconds": round(full.train_seconds),
        "adapter_bytes": (WORK / "adapter" / "adapter.safetensors").stat().st_size,
        "adapter_sha256": digest,
        "wall_seconds": round(time.perf_counter() - began),
        "hardware": f"{cpu_name()}, {os.cpu_count()} cores, device {best_device()}",
        "held_out_stdlib_dense": {
            "files": report.files_held_out, "stock": before["mrr@10"],
            "adapter": after["mrr@10"], "adapter_gain_ci": gain,
        },
    }
    (BENCH / "results").mkdir(exist_ok=True)
    (BENCH / "results" / "train_default.json").write_text(json.dumps(facts, indent=2) + "\n")
    print(json.dumps(facts, indent=2))
    if args.ship:
        for name in ("adapter.safetensors", "adapter.json"):
            shutil.copyfile(WORK / "adapter" / name, SHIPPED / name)


if __name__ == "__main__":
    main()
