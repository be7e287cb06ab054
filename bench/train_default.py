"""Train a code adapter for the default model (issue 20): LoRA over the stock all-MiniLM-L6-v2.

    python bench/train_default.py [--steps 400] [--resume] [--seed 0]

Data: docstring -> definition pairs (`embedstore.tuning.pairs`, as `tune` builds
them) from the standard library `Lib/` (tests excluded) and the training set
(`python ../shared/eval/fetch_repos.py bench/work/train --set train`); never the
validation set. A fifth of the files (`pairs.held_out`) is never trained on. The
sample interleaves the repositories, so small ones give all their pairs and no
large one dominates; each pair gets one hard negative, mined within its own
repository by the stock model. Training: MultipleNegativesRankingLoss, LoRA on
every attention and feed-forward layer, factors and optimizer saved every 25 steps (--resume
continues a killed run). Writes the adapter to bench/work/default-adapter/adapter,
a merged model folder beside it (for `eval --encoder`), and run facts (wall time,
hardware, counts, held-out stdlib MRR@10 before/after) to
bench/results/train_default.json. `python bench/eval_default.py` then scores the
validation packages.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from stdlib_corpus import stdlib_copy

from embedstore.encoders.device import best_device
from embedstore.encoders.registry import DEFAULT_ENCODER, bundled_source, load_encoder
from embedstore.progress import NullProgress
from embedstore.tuning.lora import LoraSettings, add_lora, export_lora, merge_lora, train_lora
from embedstore.tuning.negatives import hard_negatives
from embedstore.tuning.pairs import Pair, mine_pairs, split_pairs
from embedstore.tuning.run import TuneReport, default_bf16, score_held_out

BENCH = Path(__file__).resolve().parent
WORK = BENCH / "work" / "default-adapter"


def cpu_name() -> str:
    info = Path("/proc/cpuinfo")
    names = [line.split(":", 1)[1].strip() for line in info.read_text().splitlines()
             if line.startswith("model name")] if info.exists() else []
    return names[0] if names else platform.processor() or platform.machine()


def interleaved(pairs: list[Pair], count: int, seed: int) -> list[Pair]:
    """``count`` pairs taking each repository in turn (shuffled within each)."""
    rng = random.Random(seed)
    by_repo: dict[str, list[Pair]] = defaultdict(list)
    for pair in pairs:
        by_repo[pair.path.split("/", 1)[0]].append(pair)
    queues = [rng.sample(group, len(group)) for _, group in sorted(by_repo.items())]
    chosen: list[Pair] = []
    while len(chosen) < count and any(queues):
        for queue in queues:
            if queue and len(chosen) < count:
                chosen.append(queue.pop())
    rng.shuffle(chosen)
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--train-set", type=Path, default=BENCH / "work" / "train")
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--learning-rate", type=float, default=2e-4)
    parser.add_argument("--rank", type=int, default=16)
    parser.add_argument("--alpha", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resume", action="store_true")
    args = parser.parse_args()
    from sentence_transformers import SentenceTransformer

    began = time.perf_counter()
    stdlib = stdlib_copy(BENCH / "work" / "Lib")
    repos = [stdlib, *sorted(p for p in args.train_set.iterdir() if p.is_dir())]
    stock = load_encoder(DEFAULT_ENCODER)
    pairs = mine_pairs(repos, max_tokens=stock.max_tokens, count_tokens=stock.count_tokens)
    trained, held = split_pairs(pairs)
    sample = interleaved(trained, args.steps * args.batch_size, args.seed)
    print(f"{len(pairs)} pairs, {len(trained)} in trained files; sample {len(sample)}", flush=True)
    negatives: dict[int, str] = {}
    by_repo: dict[str, list[int]] = defaultdict(list)
    for i, pair in enumerate(sample):
        by_repo[pair.path.split("/", 1)[0]].append(i)
    for indices in by_repo.values():
        mined = hard_negatives([sample[i] for i in indices], stock, seed=args.seed)
        negatives.update(zip(indices, mined, strict=True))
    print(f"negatives mined at {time.perf_counter() - began:.0f} s", flush=True)
    rows = {"anchor": [p.query for p in sample], "positive": [p.positive for p in sample],
            "negative": [negatives[i] for i in range(len(sample))]}
    folder = bundled_source(DEFAULT_ENCODER)
    model = SentenceTransformer(folder[0] if folder else DEFAULT_ENCODER, device=best_device())
    settings = LoraSettings(out=WORK / "adapter", steps=args.steps, batch_size=args.batch_size,
                            learning_rate=args.learning_rate, rank=args.rank, alpha=args.alpha,
                            seed=args.seed, bf16=default_bf16())
    if not args.resume:
        (settings.out / "checkpoint.pt").unlink(missing_ok=True)
    add_lora(model, settings)
    steps, train_seconds = train_lora(model, rows, settings, on_step=lambda step, loss: print(
        f"step {step}/{args.steps} loss {loss:.4f} at {time.perf_counter() - began:.0f} s",
        flush=True))
    layers = export_lora(model, settings, base=DEFAULT_ENCODER)
    merged = SentenceTransformer(folder[0] if folder else DEFAULT_ENCODER, device="cpu")
    merge_lora(merged[0], WORK / "adapter")  # the shipped path: stock weights + factors
    merged.save(str(WORK / "merged"))
    report = TuneReport(DEFAULT_ENCODER, str(WORK / "merged"))
    before, after, gain = score_held_out([stdlib], DEFAULT_ENCODER, WORK / "merged", report,
                                         NullProgress())
    facts = {
        "args": {k: str(v) for k, v in vars(args).items()},
        "repos": {r.name: sum(p.path.startswith(r.name + "/") for p in sample) for r in repos},
        "pairs_mined": len(pairs), "pairs_in_trained_files": len(trained),
        "pairs_held_out": len(held), "pairs_trained": len(sample), "steps": steps,
        "adapted_layers": layers, "precision": "bf16" if settings.bf16 else "fp32",
        "train_seconds": round(train_seconds), "wall_seconds": round(time.perf_counter() - began),
        "hardware": f"{cpu_name()}, {os.cpu_count()} cores, device {best_device()}",
        "held_out_stdlib_dense": {"files": report.files_held_out, "before": before,
                                  "after": after, "gain_ci": gain},
    }
    (BENCH / "results").mkdir(exist_ok=True)
    (BENCH / "results" / "train_default.json").write_text(json.dumps(facts, indent=2))
    print(json.dumps(facts, indent=2))


if __name__ == "__main__":
    main()
