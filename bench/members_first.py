"""Issue 33 item 2: members before their class, before/after under the tight rule.

    python bench/members_first.py SET=SOURCE:WORK [SET=SOURCE:WORK ...] [--label L]

Each SET is scored over collections that `embedstore eval --work WORK` (or run_eval) built
of the repositories SOURCE names (a folder of them, or each followed by a comma):
WORK/<name>/store/with-header, flat index. Every mined query (seed 0, 1,000 a repository at most) is
searched once per mode (hybrid, dense, lexical) through embedstore.retrieval.search; the
list before members_first is the "before" (today's main), the list it returns the "after",
so both are the same search but for the one step. MRR@10 under the tight rule (and the
contains rule), a paired bootstrap 95% CI of after - before, and the number of class
outlines above one of their own members in the top 10 (per query, on average). Writes
bench/results/members_first.md and .json (--label: results file name stem).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from embedstore.chunking.grammars import CLASS_KINDS
from embedstore.evaluation.bootstrap import paired_bootstrap_ci, reciprocal_ranks
from embedstore.evaluation.dataset import EvalQuery, build_corpus
from embedstore.evaluation.hit_rules import CONTAINS, TIGHT, is_hit
from embedstore.evaluation.metrics import CUTOFF
from embedstore.retrieval import search as search_module
from embedstore.retrieval.members_first import members_first
from embedstore.store.collection import Collection
from embedstore.store.db import UnitRow

BENCH = Path(__file__).resolve().parent
MODES = ("hybrid", "dense", "lexical")
RULES = (TIGHT, CONTAINS)
Ranks = dict[str, list[int | None]]  # "<mode> <rule> <before|after>" -> per query


def repositories(source: str) -> list[Path]:
    """Repositories, comma-separated, or a folder of them."""
    if "," in source:
        return [Path(p) for p in source.split(",") if p]
    return sorted(p for p in Path(source).iterdir() if p.is_dir())


def pairs_above(rows: Sequence[UnitRow]) -> int:
    """Class outlines above one of their own members in the list."""
    return sum(
        1 for n, c in enumerate(rows) if c.kind in CLASS_KINDS
        for m in rows[n + 1:]
        if m.path == c.path and c.start_line <= m.start_line and m.end_line <= c.end_line
        and (m.start_line, m.end_line) != (c.start_line, c.end_line)
    )


def rank(rows: Sequence[UnitRow], q: EvalQuery, rule: str) -> int | None:
    return next((n for n, r in enumerate(rows[:CUTOFF], start=1)
                 if is_hit(rule, q, r.path, r.start_line, r.end_line, r.text)), None)


def score_repo(collection: Collection, queries: Sequence[EvalQuery], ranks: Ranks,
               pairs: dict[str, list[int]]) -> None:
    seen: dict[str, Any] = {}

    def spy(ranked: Sequence[tuple[int, float]], rows: Mapping[int, UnitRow], query: str,
            ) -> tuple[list[tuple[int, float]], dict[int, int]]:
        seen["before"] = [rows[i] for i, _ in ranked[:CUTOFF] if i in rows]
        after, owners = members_first(ranked, rows, query)
        seen["after"] = [rows[i] for i, _ in after[:CUTOFF] if i in rows]
        return after, owners

    search_module.members_first = spy
    vectors = collection.query_encoder.encode([q.query for q in queries], kind="query")
    for n, q in enumerate(queries):
        for mode in MODES:
            search_module.search(collection, q.query, CUTOFF, mode=mode,
                                 query_vector=vectors[n : n + 1])
            for side in ("before", "after"):
                for rule in RULES:
                    ranks.setdefault(f"{mode} {rule} {side}", []).append(
                        rank(seen[side], q, rule))
                pairs.setdefault(f"{mode} {side}", []).append(pairs_above(seen[side]))
    search_module.members_first = members_first


def score_set(source: str, work: Path) -> tuple[Ranks, dict[str, list[int]], int]:
    ranks: Ranks = {}
    pairs: dict[str, list[int]] = {}
    repos = repositories(source)
    with tempfile.TemporaryDirectory(prefix="members-first-") as tmp:
        for repo in repos:
            mined = build_corpus(repo, Path(tmp) / repo.name, seed=0, max_queries=1000)
            # Only queries whose stripped file is the one indexed (the code that mines them may
            # have changed since the collection was built).
            queries = [q for q in mined if _same(Path(tmp) / repo.name / q.path,
                                                 work / repo.name / "corpus" / q.path)]
            collection = Collection(work / repo.name / "store" / "with-header")
            began = time.perf_counter()
            score_repo(collection, queries, ranks, pairs)
            collection.close()
            print(f"  {repo.name}: {len(queries)} of {len(mined)} queries, "
                  f"{time.perf_counter() - began:.0f} s", flush=True)
    return ranks, pairs, len(repos)


def _same(mined: Path, indexed: Path) -> bool:
    return indexed.is_file() and mined.read_bytes() == indexed.read_bytes()


def summarise(ranks: Ranks, pairs: dict[str, list[int]]) -> list[dict[str, Any]]:
    mrr: Callable[[list[float]], float] = lambda rr: 100 * sum(rr) / len(rr)  # noqa: E731
    rows = []
    for mode in MODES:
        for rule in RULES:
            before = reciprocal_ranks(ranks[f"{mode} {rule} before"], CUTOFF)
            after = reciprocal_ranks(ranks[f"{mode} {rule} after"], CUTOFF)
            rows.append({
                "mode": mode, "rule": rule, "queries": len(before), "before": mrr(before),
                "after": mrr(after),
                "gain_ci": [100 * x for x in paired_bootstrap_ci(after, before)],
                "pairs_before": sum(pairs[f"{mode} before"]) / len(before),
                "pairs_after": sum(pairs[f"{mode} after"]) / len(before),
            })
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sets", nargs="+", metavar="SET=SOURCE:WORK")
    parser.add_argument("--label", default="members_first")
    args = parser.parse_args()
    results: dict[str, Any] = {}
    lines = [
        "# Members before their class (issue 33 item 2)", "",
        f"`python bench/members_first.py {' '.join(args.sets)}`; 2-core CPU shared with other "
        "jobs; default encoder, flat index, MRR@10 in points. Before: the search without "
        "members_first; after: with it (the same search otherwise). Δ: paired bootstrap 95% "
        "CI over the same queries. Pairs: class outlines above one of their own members in "
        "the top 10, per query.", "",
        "| set | mode | rule | before | after | Δ [95% CI] | pairs before → after |",
        "|---|---|---|---|---|---|---|",
    ]
    for spec in args.sets:
        name, _, paths = spec.partition("=")
        source, _, work = paths.partition(":")
        print(name, flush=True)
        ranks, pairs, repos = score_set(source, Path(work))
        rows = summarise(ranks, pairs)
        results[name] = {"source": source, "repositories": repos, "rows": rows, "ranks": ranks}
        for r in rows:
            d, lo, hi = r["gain_ci"]
            lines.append(f"| {name} ({r['queries']:,} queries) | {r['mode']} | {r['rule']} | "
                         f"{r['before']:.1f} | {r['after']:.1f} | {d:+.1f} [{lo:+.1f}, {hi:+.1f}] "
                         f"| {r['pairs_before']:.2f} → {r['pairs_after']:.2f} |")
        print("\n".join(lines[-len(rows):]), flush=True)
    out = BENCH / "results"
    (out / f"{args.label}.json").write_text(json.dumps(results, indent=2) + "\n")
    (out / f"{args.label}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
