"""`embedstore eval` on the Python standard library, with the header ablation.

    python bench/eval_stdlib.py [--max-queries 1000] [--seed 0]

Writes bench/results/eval_stdlib.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict
from pathlib import Path

from stdlib_corpus import stdlib_copy

from embedstore.evaluation.runner import run_eval

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description="retrieval benchmark on the stdlib")
    parser.add_argument("--max-queries", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-ablation", action="store_true", help="skip the header ablation")
    args = parser.parse_args()
    corpus = stdlib_copy(HERE / "work" / "Lib")
    began = time.perf_counter()
    report = run_eval(
        corpus, seed=args.seed, max_queries=args.max_queries,
        header_variants=(True,) if args.no_ablation else (True, False),
    )
    total = time.perf_counter() - began
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    (out / "eval_stdlib.json").write_text(
        json.dumps({**asdict(report), "total_seconds": round(total, 1)}, indent=2) + "\n"
    )
    metric_names = list(report.rows[0].metrics)
    lines = [
        f"{report.queries} queries (seed {report.seed}) over {report.chunks:,} chunks of the "
        f"stdlib, {report.encoder}; total {total:.0f} s", "",
        "| mode | index | header | " + " | ".join(metric_names) + " | ms/query |",
        "|---|---|---|" + "---|" * (len(metric_names) + 1),
    ]
    for row in report.rows:
        values = " | ".join(f"{row.metrics[m]:.1f}" for m in metric_names)
        lines.append(f"| {row.mode} | {row.index_kind} | {'yes' if row.header else 'no'} | "
                     f"{values} | {row.ms_per_query:.1f} |")
    (out / "eval_stdlib.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
