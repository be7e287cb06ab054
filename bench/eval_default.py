"""Issue 20's before/after: the shipped code adapter against the stock all-MiniLM-L6-v2.

    python bench/eval_default.py [--model SPEC]

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
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from stdlib_corpus import stdlib_copy
from tune import cross_repo

from embedstore.encoders.registry import (
    DEFAULT_ENCODER,
    STOCK_ENCODER,
    canonical_spec,
    load_encoder,
)
from embedstore.evaluation.bootstrap import paired_bootstrap_ci

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results"


def encode_speed(model: str, rounds: int = 3) -> dict[str, float]:
    """Texts/s of the stock model and ``model`` on the same code (the standard library's
    email package in 25-line windows), rounds alternating."""
    package = stdlib_copy(BENCH / "work" / "Lib") / "email"
    lines = [line for f in sorted(package.rglob("*.py")) for line in f.read_text().split("\n")]
    sample = ["\n".join(lines[i : i + 25]) for i in range(0, len(lines), 25)]
    encoders = {"stock": load_encoder(STOCK_ENCODER), "adapted": load_encoder(model)}
    spent = dict.fromkeys(encoders, 0.0)
    for _ in range(rounds):
        for name, encoder in encoders.items():
            began = time.perf_counter()
            encoder.encode(sample)
            spent[name] += time.perf_counter() - began
    return {"texts": len(sample),
            **{name: rounds * len(sample) / seconds for name, seconds in spent.items()}}


def main() -> None:
    parser = argparse.ArgumentParser()
    # Default: the shipped default as embedstore loads it; before shipping a candidate,
    # bench/work/default-adapter/merged (the stock weights plus the adapter).
    parser.add_argument("--model", default=DEFAULT_ENCODER)
    parser.add_argument("--validation", type=Path, default=BENCH / "work" / "validation")
    args = parser.parse_args()
    repos = sorted(p for p in args.validation.iterdir() if p.is_dir())
    began = time.perf_counter()
    stock, stock_rr = cross_repo(repos, STOCK_ENCODER, BENCH / "work" / "study")
    model = canonical_spec(args.model)
    work = BENCH / "work" / "default-eval" / hashlib.sha256(model.encode()).hexdigest()[:8]
    tuned, tuned_rr = cross_repo(repos, model, work)
    speed = encode_speed(model)
    rows: list[dict[str, Any]] = []
    for mode in ("dense", "hybrid"):
        diff = [100 * x for x in paired_bootstrap_ci(tuned_rr[mode], stock_rr[mode])]
        rows.append({"mode": mode, "stock": stock[mode]["mrr@10"],
                     "adapted": tuned[mode]["mrr@10"], "gain_ci": diff,
                     "queries": len(tuned_rr[mode])})
    trained = json.loads((RESULTS / "train_default.json").read_text())
    held = trained["held_out_stdlib_dense"]
    lines = [
        "# The code adapter (the default encoder) against the stock model (issue 20)",
        "",
        "`python bench/train_default.py` then `python bench/eval_default.py`, 2-core CPU. "
        "MRR@10 in points, strict rule (a hit must be the documented definition itself), "
        "flat index; Δ = adapted - stock with a paired bootstrap 95% CI over the same queries.",
        "",
        "| set | mode | stock | adapted | Δ [95% CI] |",
        "|---|---|---|---|---|",
        f"| stdlib held-out files ({held['files']} files, never trained on) | dense | "
        f"{held['stock']:.1f} | {held['adapter']:.1f} | {held['adapter_gain_ci'][0]:+.1f} "
        f"[{held['adapter_gain_ci'][1]:+.1f}, {held['adapter_gain_ci'][2]:+.1f}] |",
    ]
    for row in rows:
        d, lo, hi = row["gain_ci"]
        lines.append(f"| 12 validation packages, pooled ({row['queries']:,} queries) | "
                     f"{row['mode']} | {row['stock']:.1f} | {row['adapted']:.1f} | "
                     f"{d:+.1f} [{lo:+.1f}, {hi:+.1f}] |")
    lines += ["", f"Model: `{model}`. Training: {trained['pairs_trained']:,} pairs, "
              f"{trained['steps']} steps, {trained['train_seconds'] / 60:.0f} min on "
              f"{trained['hardware']}; scoring both models here took "
              f"{(time.perf_counter() - began) / 60:.1f} min.", "",
              f"Encoding speed, the same {speed['texts']:.0f} 25-line windows of code, 3 rounds "
              f"alternating: stock "
              f"{speed['stock']:.1f} texts/s, adapted {speed['adapted']:.1f} texts/s "
              f"({100 * (speed['adapted'] / speed['stock'] - 1):+.1f}%)."]
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "default_encoder.json").write_text(json.dumps(
        {"model": model, "validation": rows, "stdlib_held_out": held,
         "encode_texts_per_second": speed}, indent=2))
    (RESULTS / "default_encoder.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
