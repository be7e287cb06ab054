"""Issue 8's before/after table: stdlib (tuning set) and the validation packages, tight rule.

    python ../shared/eval/fetch_repos.py bench/work/validation   # once
    python bench/retrieval_study.py --build-only                 # builds the collections
    git worktree add bench/work/v01 42fe2d4 && python bench/eval_v01.py   # "before": 0.1
    python bench/eval_retrieval.py                               # "after" + the table

"After" rows come from `embedstore eval` itself (run_eval, flat index, strict
(tight) rule with the contains rule beside it, 1,000 sampled queries per repository,
seed 0, all repositories of a set pooled), with the whole-definition dense baseline;
"before" rows from 0.1's top 10s in bench/work/v01-hits.json, scored by the same rules.
Writes bench/results/retrieval.md and .json.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from stdlib_corpus import stdlib_copy

from embedstore.encoders.registry import DEFAULT_ENCODER
from embedstore.evaluation.bootstrap import paired_bootstrap_ci, reciprocal_ranks
from embedstore.evaluation.dataset import EvalQuery
from embedstore.evaluation.hit_rules import CONTAINS, TIGHT, is_hit
from embedstore.evaluation.metrics import CUTOFF, rank_metrics
from embedstore.evaluation.runner import POOLED, EvalReport, run_eval

BENCH = Path(__file__).resolve().parent
WORK = BENCH / "work" / "study"
RESULTS = BENCH / "results"


def evaluate(label: str, repos: list[Path]) -> tuple[EvalReport, list[dict[str, object]]]:
    per_query = BENCH / "work" / f"per-query-{label}.jsonl"
    report = run_eval(repos, strict=True, index_kinds=("flat",), work=WORK, per_query=per_query)
    lines = [json.loads(line) for line in per_query.read_text().splitlines()]
    return report, lines


def v01_ranks(queries: list[EvalQuery], hits: list[list[dict[str, Any]]],
              rule: str) -> list[int | None]:
    """Each query's rank of its first hit under ``rule`` in 0.1's top 10."""
    return [
        next((r for r, h in enumerate(top, start=1)
              if is_hit(rule, q, h["path"], h["start_line"], h["end_line"], h["head"])), None)
        for q, top in zip(queries, hits, strict=True)
    ]


def table(label: str, report: EvalReport, lines: list[dict[str, object]],
          before: dict[str, dict[str, list[list[dict[str, Any]]]]]
          ) -> tuple[str, dict[str, object]]:
    scope = POOLED if len(report.repos) > 1 else None
    rows = [r for r in report.rows if scope is None or r.repo == scope]
    default = [x for x in lines if x["mode"] == "hybrid"]
    split = [bool(x["split"]) for x in default]
    default_rr = reciprocal_ranks([x["rank"] for x in default], CUTOFF)  # type: ignore[misc]
    out = [
        f"### {label}: {report.queries:,} queries ({sum(split):,} on split functions), "
        f"{len(report.repos)} repo(s), {report.units:,} definitions / {report.chunks:,} chunks",
        "",
        "| system | MRR@10 | R@1 | R@10 | MRR@10 contains | MRR split | MRR whole "
        "| Δ MRR vs new hybrid [95% CI] |",
        "|---|---|---|---|---|---|---|---|",
    ]
    data: dict[str, object] = {}
    names = list(dict.fromkeys(str(x["repo"]) for x in default))
    queries: dict[str, list[EvalQuery]] = {}  # read once: both rules score every mode
    if before and all(n in before for n in names):
        queries = {n: [EvalQuery(**q)
                       for q in json.loads((WORK / "queries" / f"{n}.json").read_text())]
                   for n in names}
    for mode in ("hybrid", "dense", "lexical"):
        if not queries:
            break
        ranks = [r for n in names for r in v01_ranks(queries[n], before[n][mode], TIGHT)]
        contains = [r for n in names for r in v01_ranks(queries[n], before[n][mode], CONTAINS)]
        rr = reciprocal_ranks(ranks, CUTOFF)
        m = rank_metrics(ranks)
        m_contains = rank_metrics(contains)
        on = [v for v, s in zip(rr, split, strict=True) if s]
        off = [v for v, s in zip(rr, split, strict=True) if not s]
        d, lo, hi = (100 * x for x in paired_bootstrap_ci(rr, default_rr))
        out.append(f"| v0.1 {mode} | {m['mrr@10']:.1f} | {m['recall@1']:.1f} | "
                   f"{m['recall@10']:.1f} | {m_contains['mrr@10']:.1f} | "
                   f"{100 * sum(on) / max(1, len(on)):.1f} | "
                   f"{100 * sum(off) / max(1, len(off)):.1f} "
                   f"| {d:+.1f} [{lo:+.1f}, {hi:+.1f}] |")
        data[f"v0.1 {mode}"] = m
    for r in rows:
        ci = "-" if r.vs_default is None else "{:+.1f} [{:+.1f}, {:+.1f}]".format(*r.vs_default)
        name = r.mode if r.mode.startswith("whole") else f"new {r.mode}"
        out.append(f"| {name} | {r.metrics['mrr@10']:.1f} | {r.metrics['recall@1']:.1f} | "
                   f"{r.metrics['recall@10']:.1f} | {r.contains_mrr or 0:.1f} | "
                   f"{r.split_mrr or 0:.1f} | "
                   f"{r.whole_mrr or 0:.1f} | {ci} |")
        data[name] = {**r.metrics, "contains_mrr": r.contains_mrr, "split_mrr": r.split_mrr,
                      "whole_mrr": r.whole_mrr, "vs_default": r.vs_default}
    return "\n".join(out), data


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--validation", type=Path, default=BENCH / "work" / "validation")
    args = parser.parse_args()
    v01 = BENCH / "work" / "v01-hits.json"
    before = json.loads(v01.read_text()) if v01.exists() else {}
    sets = {
        "stdlib (tuning set)": [stdlib_copy(BENCH / "work" / "stdlib")],
        "validation packages, pooled (never tuned on)": sorted(
            p for p in args.validation.iterdir() if p.is_dir()
        ),
    }
    sections, data = [], {}
    for label, repos in sets.items():
        report, lines = evaluate(label.split()[0], repos)
        text, rows = table(label, report, lines, before)
        print(text + "\n", flush=True)
        sections.append(text)
        data[label] = rows
    RESULTS.mkdir(exist_ok=True)
    header = (
        "# Retrieval before/after (issue 8)\n\n"
        "`python bench/eval_retrieval.py` on a 2-core CPU; tight rule (a hit "
        "is the function itself, embedstore.evaluation.hit_rules), contains rule beside it; flat "
        "index; MRR in points. \"v0.1\" = embedstore 0.1 as shipped (its own search code and "
        "default encoder, the stock all-MiniLM-L6-v2) on the same corpora (bench/eval_v01.py); "
        f"\"new\" = the default encoder ({DEFAULT_ENCODER}) through "
        "`embedstore eval`; \"whole-definition dense\" = one vector per whole definition, no "
        "splitting, no BM25. MRR split/whole = on queries whose function the chunker split / kept "
        "whole. CIs: paired bootstrap, 2,000 resamples.\n\n"
    )
    (RESULTS / "retrieval.md").write_text(header + "\n\n".join(sections) + "\n")
    (RESULTS / "retrieval.json").write_text(json.dumps(data, indent=2))


if __name__ == "__main__":
    main()
