"""`embedstore eval --strict` on the Python standard library, with the header ablation.

    python bench/eval_stdlib.py [--max-queries 1000] [--seed 0]

The tight rule (a hit is the documented definition itself), with MRR@10 under the
contains rule of before issue 33 beside it.

Writes bench/results/eval_stdlib.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from dataclasses import asdict
from pathlib import Path

from stdlib_corpus import stdlib_copy

from embedstore.evaluation.runner import run_eval
from embedstore.store.store import Store

HERE = Path(__file__).resolve().parent


def subset(corpus: Path, dest: Path, names: list[str]) -> Path:
    """A copy of only some top-level modules and packages of the corpus."""
    if not dest.exists():
        dest.mkdir(parents=True)
        for name in names:
            for src in (corpus / name, corpus / f"{name}.py"):
                if src.is_dir():
                    shutil.copytree(src, dest / name)
                elif src.is_file():
                    shutil.copy(src, dest / src.name)
    return dest


def main() -> None:
    parser = argparse.ArgumentParser(description="retrieval benchmark on the stdlib")
    parser.add_argument("--max-queries", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-ablation", action="store_true", help="skip the header ablation")
    parser.add_argument("--only", nargs="*", default=None,
                        help="top-level stdlib names to keep (a smaller corpus), e.g. email json")
    parser.add_argument("--out", default="eval_stdlib", help="results file name stem")
    args = parser.parse_args()
    corpus = stdlib_copy(HERE / "work" / "Lib")
    if args.only:
        corpus = subset(corpus, HERE / "work" / ("Lib-" + "-".join(args.only)), args.only)
    began = time.perf_counter()
    # The index bench's collection of the same tree serves every chunk stripping left as it was.
    built = Store(HERE / "work" / "store")
    reuse = built.open("stdlib") if built.exists("stdlib") and not args.only else None
    report = run_eval(
        corpus, seed=args.seed, max_queries=args.max_queries,
        header_variants=(True,) if args.no_ablation else (True, False), reuse=reuse,
        strict=True,
    )
    total = time.perf_counter() - began
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    (out / f"{args.out}.json").write_text(
        json.dumps({**asdict(report), "total_seconds": round(total, 1)}, indent=2) + "\n"
    )
    metric_names = list(report.rows[0].metrics)
    lines = [
        f"`python bench/eval_stdlib.py`: {report.queries} queries (seed {report.seed}) over "
        f"{report.chunks:,} chunks of {corpus.name}, {report.encoder}; the {report.rule} rule "
        f"(mrr@10 contains: the rule before issue 33); total {total:.0f} s", "",
        "| mode | index | header | " + " | ".join(metric_names)
        + " | mrr@10 contains | ms/query |",
        "|---|---|---|" + "---|" * (len(metric_names) + 2),
    ]
    for row in report.rows:
        values = " | ".join(f"{row.metrics[m]:.1f}" for m in metric_names)
        contains = "-" if row.contains_mrr is None else f"{row.contains_mrr:.1f}"
        lines.append(f"| {row.mode} | {row.index_kind} | {'yes' if row.header else 'no'} | "
                     f"{values} | {contains} | {row.ms_per_query:.1f} |")
    (out / f"{args.out}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
