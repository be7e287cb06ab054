"""Issue 29's per-language search table: validation-multi per language and Python validation.

    python bench/eval_languages.py run LABEL [--groups typescript go rust python]
        [--factor F] [--collections LABEL | --from LABEL]
    python bench/eval_languages.py report BEFORE AFTER [--note TEXT] [--contains]
    python bench/eval_languages.py tune [--factors 1 0.95 0.9 0.8 0.6]

`run`: `embedstore eval --strict` (flat index, no baseline; hybrid, dense and lexical) of
each language's validation-multi repositories pooled (/work/data/vmulti) and of Python
validation packages (/work/data/val), one language at a time; each query's rank goes to
bench/work/languages/LABEL/<language>.jsonl (the CLI's `--per-query` file). For today's
main's numbers run it from a checkout of it (`PYTHONPATH=/path/to/checkout`, outside
this folder) or give the CLI the same options. `--factor 1 --collections after` scores
the collections of run `after` again without lowering tests (the test factor's share);
`--from before` starts from a copy of run `before`'s collections: where the symbols
version differs, files are chunked again by this code and only texts it embeds
differently are encoded (same encoder).
`report`: MRR@10 per language and mode for two labels, the difference with a paired
bootstrap 95% CI over the queries both runs asked (a mined query is its repository,
file, definition line and sentence); writes bench/results/languages.md and .json.
`tune`: the test factor (embedstore.retrieval.tests_last.TEST_FACTOR) on the
train-multi repositories only (/work/data/tmulti); indexes once into
bench/work/languages/tune and re-scores per factor.
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from embedstore.evaluation.bootstrap import paired_bootstrap_ci, reciprocal_ranks
from embedstore.evaluation.metrics import CUTOFF
from embedstore.evaluation.runner import run_eval
from embedstore.retrieval import tests_last

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results"
WORK = BENCH / "work" / "languages"
DATA = Path("/work/data")
MODES = ("hybrid", "dense", "lexical")
GROUPS: dict[str, list[Path]] = {
    "typescript": [DATA / "vmulti" / n for n in ("rxjs", "mobx", "trpc-server", "msw")],
    "go": [DATA / "vmulti" / f"github-{n}" for n in (
        "go-chi-chi", "sirupsen-logrus", "spf13-viper", "stretchr-testify")],
    "rust": [DATA / "vmulti" / n for n in ("regex", "clap", "serde-json", "anyhow")],
    # Four of the twelve Python validation packages (the smaller ones: the 2-core machine).
    "python": [DATA / "val" / n for n in ("boltons", "packaging", "pluggy", "sqlparse")],
}
# Train-multi repositories small enough to index in minutes, per language.
TUNE_GROUPS: dict[str, list[Path]] = {
    "typescript": [DATA / "tmulti" / n for n in ("immer", "tanstack-query-core")],
    "go": [DATA / "tmulti" / f"github-{n}" for n in (
        "gorilla-mux", "urfave-cli-v2", "spf13-afero", "prometheus-client-golang")],
    "rust": [DATA / "tmulti" / n for n in ("rand", "nom", "chrono")],
}


def run(
    label: str, groups: Sequence[str], factor: float | None, collections: str | None,
    start: str | None,
) -> None:
    """``factor``: the test factor to score with; ``collections``: the label of a run (of
    the same code) whose collections to score again, instead of indexing anew; ``start``:
    the label of a run (of any code, same encoder) whose collections a copy of starts
    this run's, so that only the texts this code embeds differently are encoded."""
    if factor is not None:
        tests_last.TEST_FACTOR = factor
    for group in groups:
        began = time.perf_counter()
        per_query = WORK / label / f"{group}.jsonl"
        work = WORK / (collections or label) / "collections" / group
        if start is not None and not work.exists():
            shutil.copytree(WORK / start / "collections" / group, work)
        run_eval(GROUPS[group], modes=MODES, index_kinds=("flat",), strict=True,
                 baseline=False, per_query=per_query, work=work)
        print(f"{group}: {time.perf_counter() - began:.0f} s", flush=True)


def _ranks(path: Path, contains: bool = False) -> dict[str, dict[tuple[str, ...], int | None]]:
    """Per mode: each query's rank (None: not in the results).

    ``contains``: the rank under the contains rule (a result holding the `def` line), which
    was `--strict` before issue 33's tight rule: a file written since has it as
    `rank_contains`, an older one as its `rank`.
    """
    by_mode: dict[str, dict[tuple[str, ...], int | None]] = {}
    for line in path.read_text().splitlines():
        row = json.loads(line)
        key = (row["repo"], row["path"], str(row["def_line"]), row["query"])
        rank = row.get("rank_contains", row["rank"]) if contains else row["rank"]
        by_mode.setdefault(row["mode"], {})[key] = rank
    return by_mode


def _mrr(ranks: Sequence[int | None]) -> float:
    rr = reciprocal_ranks(ranks, CUTOFF)
    return 100 * sum(rr) / len(rr)


def report(before: str, after: str, note: str, contains: bool) -> None:
    rows: list[dict[str, Any]] = []
    for group in GROUPS:
        old_path, new_path = WORK / before / f"{group}.jsonl", WORK / after / f"{group}.jsonl"
        if not (old_path.exists() and new_path.exists()):
            continue
        old, new = _ranks(old_path, contains), _ranks(new_path, contains)
        for mode in MODES:
            shared = sorted(old[mode].keys() & new[mode].keys())
            a = reciprocal_ranks([new[mode][k] for k in shared], CUTOFF)
            b = reciprocal_ranks([old[mode][k] for k in shared], CUTOFF)
            diff = [100 * x for x in paired_bootstrap_ci(a, b)]
            rows.append({
                "language": group, "mode": mode, "before": _mrr(list(old[mode].values())),
                "before_paired": _mrr([old[mode][k] for k in shared]),
                "after": _mrr(list(new[mode].values())), "queries_before": len(old[mode]),
                "queries_after": len(new[mode]), "paired": len(shared), "gain_ci": diff,
            })
    lines = [
        "# Search per language (issue 29)",
        "",
        f"`python bench/eval_languages.py report {before} {after}"
        f"{' --contains' if contains else ''}` after `run` of each; `embedstore eval --strict`"
        f"{', scored under the contains rule' if contains else ''}, flat index, default "
        "encoder, 2-core CPU. MRR@10 in "
        "points; each language's validation-multi repositories pooled, Python: 4 of its 12 "
        "validation packages (boltons, packaging, pluggy, sqlparse). Δ = after - before over "
        "the queries both runs asked, paired bootstrap 95% CI; the paired column is "
        f"{before} on those queries only, so it and {after} differ by Δ when {after} "
        f"asks a subset of {before}'s queries.",
        "",
        f"| language | mode | {before} | {before} paired | {after} | Δ [95% CI] | "
        "queries before / after (paired) |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        d, lo, hi = r["gain_ci"]
        lines.append(
            f"| {r['language']} | {r['mode']} | {r['before']:.1f} | {r['before_paired']:.1f} | "
            f"{r['after']:.1f} | {d:+.1f} [{lo:+.1f}, {hi:+.1f}] | {r['queries_before']} / "
            f"{r['queries_after']} ({r['paired']}) |"
        )
    if note:
        lines += ["", note]
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "languages.json").write_text(json.dumps(
        {"before": before, "after": after, "note": note, "rows": rows}, indent=2))
    (RESULTS / "languages.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def tune(factors: Sequence[float]) -> None:
    """Pooled hybrid MRR@10 on the train-multi repositories per test factor."""
    results: dict[str, dict[str, float]] = {}
    for group, repos in TUNE_GROUPS.items():
        for factor in factors:
            tests_last.TEST_FACTOR = factor
            per_query = WORK / "tune" / f"{group}-{factor:g}.jsonl"
            run_eval(repos, modes=("hybrid",), index_kinds=("flat",), strict=True,
                     baseline=False, per_query=per_query, work=WORK / "tune" / group)
            ranks = _ranks(per_query)["hybrid"]
            results.setdefault(group, {})[f"{factor:g}"] = _mrr(list(ranks.values()))
            print(group, factor, f"{results[group][f'{factor:g}']:.2f}", flush=True)
    (WORK / "tune" / "factors.json").write_text(json.dumps(results, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    running = sub.add_parser("run")
    running.add_argument("label")
    running.add_argument("--groups", nargs="+", choices=list(GROUPS), default=list(GROUPS))
    running.add_argument("--factor", type=float, help="test factor (1: tests not lowered)")
    running.add_argument("--collections", help="score the collections of this run's label")
    running.add_argument("--from", dest="start",
                         help="start from a copy of this run's collections (vectors reused)")
    reporting = sub.add_parser("report")
    reporting.add_argument("before")
    reporting.add_argument("after")
    reporting.add_argument("--note", default="", help="what the two runs were (commits...)")
    reporting.add_argument("--contains", action="store_true",
                           help="score both under the contains rule (--strict before issue 33)")
    tuning = sub.add_parser("tune")
    tuning.add_argument("--factors", nargs="+", type=float, default=[1.0, 0.95, 0.9, 0.8, 0.6])
    args = parser.parse_args()
    if args.command == "run":
        run(args.label, args.groups, args.factor, args.collections, args.start)
    elif args.command == "report":
        report(args.before, args.after, args.note, args.contains)
    else:
        tune(args.factors)


if __name__ == "__main__":
    main()
