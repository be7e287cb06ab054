"""Does the fast encoding path cost retrieval quality? eval in fp32 and auto, paired.

    python bench/precision_parity.py [--repos bench/work/validation] [--from DIR]

Runs `embedstore eval` over the validation packages (../shared/eval/fetch_repos.py)
twice, with EMBEDSTORE_PRECISION=fp32 and =auto (bf16 on CPUs that have it),
the tight rule (`eval --strict`), dense and hybrid, exact index; then compares MRR@10 per
query with a paired bootstrap CI. `--from DIR` summarises the per-query files of an earlier
run (pq-fp32.jsonl, pq-auto.jsonl, eval-*.json) instead of running eval.
Writes bench/results/precision_parity.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from embedstore.evaluation.bootstrap import paired_bootstrap_ci, reciprocal_ranks

HERE = Path(__file__).resolve().parent
PRECISIONS = ("fp32", "auto")


def run(repos: list[Path], out: Path) -> None:
    exe = str(Path(sys.executable).with_name("embedstore"))
    for precision in PRECISIONS:
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "EMBEDSTORE_PRECISION": precision}
        per_query = str(out / f"pq-{precision}.jsonl")
        args = [exe, "eval", *map(str, repos), "--strict", "--mode", "dense", "--mode", "hybrid",
                "--index", "flat", "--no-baseline", "--per-query", per_query, "--json"]
        done = subprocess.run(args, env=env, capture_output=True, text=True, check=True)
        (out / f"eval-{precision}.json").write_text(done.stdout)


def ranks(path: Path) -> dict[tuple[str, ...], int | None]:
    rows = (json.loads(line) for line in path.read_text().splitlines())
    return {(r["mode"], r["repo"], r["query"], r["path"], str(r["def_line"])): r["rank"]
            for r in rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", type=Path, default=HERE / "work" / "validation")
    parser.add_argument("--from", dest="source", type=Path, default=None)
    args = parser.parse_args()
    folder = args.source or HERE / "work" / "precision-parity"
    if args.source is None:
        folder.mkdir(parents=True, exist_ok=True)
        run(sorted(p for p in args.repos.iterdir() if p.is_dir()), folder)
    exact, fast = ranks(folder / "pq-fp32.jsonl"), ranks(folder / "pq-auto.jsonl")
    seconds = {p: json.loads((folder / f"eval-{p}.json").read_text())["index_seconds"]
               for p in PRECISIONS}
    rows = []
    for mode in ("dense", "hybrid"):
        keys = sorted(k for k in exact if k[0] == mode and k in fast)
        a, b = reciprocal_ranks([exact[k] for k in keys], 10), reciprocal_ranks(
            [fast[k] for k in keys], 10)
        diff, low, high = paired_bootstrap_ci(b, a)
        rows.append({"mode": mode, "queries": len(keys), "mrr10_fp32": 100 * sum(a) / len(a),
                     "mrr10_auto": 100 * sum(b) / len(b), "diff": diff, "ci": [low, high]})
    result = {"index_seconds": seconds, "rows": rows}
    out = HERE / "results"
    (out / "precision_parity.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = [
        "# Retrieval quality of the fast encoding path (bf16) against fp32", "",
        "`embedstore eval` over the 12 validation packages, the tight rule (`eval --strict`), "
        "exact index, run with EMBEDSTORE_PRECISION=fp32 and =auto (bf16 here); MRR@10 in %, "
        "the difference as a fraction with a paired bootstrap 95% CI (2000 resamples). Goal: "
        "within 0.005.", "",
        "| mode | queries | fp32 | auto (bf16) | auto - fp32 | 95% CI |",
        "|---|---|---|---|---|---|",
    ]
    lines += [f"| {r['mode']} | {r['queries']:,} | {r['mrr10_fp32']:.2f} | {r['mrr10_auto']:.2f} "
              f"| {r['diff']:+.5f} | [{r['ci'][0]:+.5f}, {r['ci'][1]:+.5f}] |" for r in rows]
    lines += ["", f"Index time of the eval's collections (7,625 chunks): fp32 "
              f"{seconds['fp32']:.0f} s, auto {seconds['auto']:.0f} s."]
    (out / "precision_parity.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
