"""Issue 20's before/after: a code-tuned LoRA adapter against the stock default model.

    python bench/eval_default.py [--adapter-model bench/work/default-adapter/merged]

`embedstore eval --strict` (flat index, docstring queries) of the 12 validation packages
(`python ../shared/eval/fetch_repos.py bench/work/validation`), dense and hybrid, with
the stock all-MiniLM-L6-v2 and with the adapted model; paired bootstrap CIs over the
same queries. The adapted model is read from the merged folder that
bench/train_default.py writes (the stock weights plus the adapter, as embedstore loads
it would load the default), so a candidate adapter is scored before it is shipped. The held-out
stdlib figures come from bench/results/train_default.json. Writes
bench/results/default_encoder.md and .json.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tune import cross_repo

from embedstore.encoders.registry import DEFAULT_ENCODER
from embedstore.evaluation.bootstrap import paired_bootstrap_ci

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--adapter-model", type=Path,
                        default=BENCH / "work" / "default-adapter" / "merged")
    parser.add_argument("--validation", type=Path, default=BENCH / "work" / "validation")
    args = parser.parse_args()
    repos = sorted(p for p in args.validation.iterdir() if p.is_dir())
    began = time.perf_counter()
    stock, stock_rr = cross_repo(repos, DEFAULT_ENCODER, BENCH / "work" / "study")
    tuned, tuned_rr = cross_repo(repos, str(args.adapter_model.resolve()),
                                 BENCH / "work" / "default-eval")
    rows = []
    for mode in ("dense", "hybrid"):
        diff = [100 * x for x in paired_bootstrap_ci(tuned_rr[mode], stock_rr[mode])]
        rows.append({"mode": mode, "stock": stock[mode]["mrr@10"],
                     "adapted": tuned[mode]["mrr@10"], "gain_ci": diff,
                     "queries": len(tuned_rr[mode])})
    trained = json.loads((RESULTS / "train_default.json").read_text())
    held = trained["held_out_stdlib_dense"]
    lines = [
        "# A code-tuned LoRA adapter against the stock default model (issue 20)",
        "",
        "`python bench/train_default.py` then `python bench/eval_default.py`, 2-core CPU. "
        "MRR@10 in points, strict rule (a hit must be the documented definition itself), "
        "flat index; Δ = adapted - stock with a paired bootstrap 95% CI over the same queries.",
        "",
        "| set | mode | stock | adapted | Δ [95% CI] |",
        "|---|---|---|---|---|",
        f"| stdlib held-out files ({held['files']} files, never trained on) | dense | "
        f"{held['before']['mrr@10']:.1f} | {held['after']['mrr@10']:.1f} | "
        f"{held['gain_ci'][0]:+.1f} [{held['gain_ci'][1]:+.1f}, {held['gain_ci'][2]:+.1f}] |",
    ]
    for row in rows:
        d, lo, hi = row["gain_ci"]
        lines.append(f"| 12 validation packages, pooled ({row['queries']:,} queries) | "
                     f"{row['mode']} | {row['stock']:.1f} | {row['adapted']:.1f} | "
                     f"{d:+.1f} [{lo:+.1f}, {hi:+.1f}] |")
    lines += ["", f"Training: {trained['pairs_trained']:,} pairs, {trained['steps']} steps, "
              f"{trained['train_seconds'] / 60:.0f} min on {trained['hardware']}; scoring "
              f"both models here took {(time.perf_counter() - began) / 60:.1f} min."]
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "default_encoder.json").write_text(json.dumps(
        {"validation": rows, "stdlib_held_out": held}, indent=2))
    (RESULTS / "default_encoder.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
