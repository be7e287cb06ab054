"""Issue 13's tune numbers: within the standard library and across to the validation packages.

    python bench/tune.py [--minutes 15] [--validation DIR]

1. `embedstore tune` on stdlib `Lib/` (tests excluded): one epoch or --minutes,
   whichever ends first; it holds out a fifth of the files and scores them
   (dense, strict rule) before and after: the within-repo number.
2. `embedstore eval` (strict, flat index) of the 12 validation packages with
   the base and the tuned model: the cross-repo number, dense and hybrid.
Writes bench/results/tune.md and tune.json. Needs bench/work/study/ from
bench/retrieval_study.py for the base model's validation collections (else it
encodes them again).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from stdlib_corpus import stdlib_copy

from embedstore.encoders.registry import DEFAULT_ENCODER
from embedstore.evaluation.bootstrap import paired_bootstrap_ci, reciprocal_ranks
from embedstore.evaluation.metrics import CUTOFF
from embedstore.evaluation.runner import POOLED, run_eval
from embedstore.tuning.run import default_bf16, run_tune
from embedstore.tuning.train import TrainSettings

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results"


def cross_repo(
    repos: list[Path], encoder: str | None, work: Path
) -> tuple[dict[str, dict[str, float]], dict[str, list[float]]]:
    """Pooled metrics per mode, and per-query reciprocal ranks per mode (for paired CIs)."""
    per_query = work / "per-query-tune.jsonl"
    report = run_eval(repos, encoder=encoder, modes=("hybrid", "dense"), index_kinds=("flat",),
                      strict=True, baseline=False, work=work, per_query=per_query)
    rows = {r.mode: r.metrics for r in report.rows if r.repo == POOLED}
    lines = [json.loads(line) for line in per_query.read_text().splitlines()]
    ranks = {m: reciprocal_ranks([x["rank"] for x in lines if x["mode"] == m], CUTOFF)
             for m in rows}
    return rows, ranks


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=15.0)
    parser.add_argument("--validation", type=Path, default=BENCH / "work" / "validation")
    args = parser.parse_args()
    out = BENCH / "work" / "tuned-stdlib"
    settings = TrainSettings(out=out, minutes=args.minutes, bf16=default_bf16())
    report = run_tune([stdlib_copy(BENCH / "work" / "stdlib")], settings)
    print(json.dumps(report.__dict__, indent=2), flush=True)
    validation = sorted(p for p in args.validation.iterdir() if p.is_dir())
    began = time.perf_counter()
    # The model tune starts from: the shipped default (stock collections live in work/study).
    base, base_rr = cross_repo(validation, DEFAULT_ENCODER, BENCH / "work" / "study-default")
    tuned, tuned_rr = cross_repo(validation, str(out), BENCH / "work" / "tune-eval")
    cross_seconds = time.perf_counter() - began
    result = {"within": report.__dict__, "cross": {"base": base, "tuned": tuned}}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "tune.json").write_text(json.dumps(result, indent=2, default=str))
    gain = report.gain
    lines = [
        "# `embedstore tune` (issue 13)",
        "",
        f"`python bench/tune.py --minutes {args.minutes:g}` on the 2-core CPU "
        f"({report.precision} training).",
        "",
        f"Trained on stdlib `Lib/` (tests excluded): {report.pairs_trained:,} pairs, "
        f"{report.steps:,} steps (batch 32, one hard negative per pair, "
        f"MultipleNegativesRankingLoss), {report.train_seconds / 60:.1f} min training, "
        f"{report.total_seconds / 60:.1f} min in all (mining, negatives, held-out scoring).",
        "",
        "| set | rule | base MRR@10 | tuned MRR@10 | Δ [95% CI] |",
        "|---|---|---|---|---|",
        f"| within: stdlib held-out files ({report.pairs_held_out:,} queries, "
        f"{report.files_held_out} files) | dense, strict | {report.before['mrr@10']:.1f} | "
        f"{report.after['mrr@10']:.1f} | {gain[0]:+.1f} [{gain[1]:+.1f}, {gain[2]:+.1f}] |",
    ]
    for mode in ("dense", "hybrid"):
        b, t = base[mode]["mrr@10"], tuned[mode]["mrr@10"]
        d, lo, hi = (100 * x for x in paired_bootstrap_ci(tuned_rr[mode], base_rr[mode]))
        lines.append(f"| across: 12 validation packages pooled | {mode}, strict | {b:.1f} | "
                     f"{t:.1f} | {d:+.1f} [{lo:+.1f}, {hi:+.1f}] |")
    lines.append(f"\nCross-repo scoring (both models, incl. encoding the packages with the "
                 f"tuned one) took {cross_seconds / 60:.1f} min.")
    (RESULTS / "tune.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
