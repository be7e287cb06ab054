"""Section banners last (retrieval/banners_last.py): search with the step off and on.

    python bench/banners_last.py [--groups stdlib go rust typescript vgo vrust vtypescript vpython]

Each group's repositories are indexed once (default encoder, flat index, the docstring-
stripped copies of `embedstore eval`, kept in bench/work/banners/<group>) and searched
twice in one process: with `search.demote_banners` switched off ("before", today's search
but for the one step) and on. Tuning groups: the standard library's held-out files and
`eval_languages.py`'s train-multi repositories (Rust adds serde and syn, whose files carry
banners); v-groups: validation-multi per language and four Python validation packages, as
`eval_languages.py run` scores them. MRR@10 under the tight rule, after - before with a
paired bootstrap 95% CI, and how many queries moved up and down. Writes
bench/results/banners_last.md and .json.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from eval_default import paired_mrr
from eval_languages import GROUPS, TUNE_GROUPS, _ranks
from stdlib_corpus import stdlib_held_out

from embedstore.evaluation.bootstrap import reciprocal_ranks
from embedstore.evaluation.metrics import CUTOFF
from embedstore.evaluation.runner import run_eval
from embedstore.retrieval import search

BENCH = Path(__file__).resolve().parent
WORK = BENCH / "work" / "banners"
TRAIN = Path("/work/data/tmulti")
MODES = ("hybrid", "dense", "lexical")
SETS: dict[str, list[Path]] = {
    "stdlib": [stdlib_held_out(BENCH / "work" / "stdlib-held", BENCH / "work" / "Lib")],
    "go": TUNE_GROUPS["go"],
    "rust": [*TUNE_GROUPS["rust"], TRAIN / "serde", TRAIN / "syn"],
    "typescript": TUNE_GROUPS["typescript"],
    **{f"v{group}": repos for group, repos in GROUPS.items()},
}


def score(group: str) -> list[dict[str, Any]]:
    step = search.demote_banners
    files = {}
    for state in ("before", "after"):
        search.demote_banners = step if state == "after" else lambda ranked, rows: list(ranked)
        files[state] = WORK / group / f"{state}.jsonl"
        try:
            run_eval(SETS[group], modes=MODES, index_kinds=("flat",), strict=True,
                     baseline=False, per_query=files[state], work=WORK / group)
        finally:
            search.demote_banners = step
    old, new = _ranks(files["before"]), _ranks(files["after"])
    rows = []
    for mode in MODES:
        shared = sorted(old[mode].keys() & new[mode].keys())
        first, second = [old[mode][k] for k in shared], [new[mode][k] for k in shared]
        moved = [b - a for a, b in zip(reciprocal_ranks(first, CUTOFF),
                                       reciprocal_ranks(second, CUTOFF), strict=True)]
        rows.append({
            "group": group, "mode": mode, "queries": len(shared),
            **paired_mrr(first, second, ("before", "after")),
            "up": sum(m > 0 for m in moved), "down": sum(m < 0 for m in moved),
        })
        print(group, mode, f"{rows[-1]['before']:.2f} -> {rows[-1]['after']:.2f}", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--groups", nargs="+", choices=list(SETS), default=list(SETS))
    args = parser.parse_args()
    rows = [row for group in args.groups for row in score(group)]
    lines = [
        "# Section banners last: search with the step off and on",
        "",
        "`python bench/banners_last.py`: default encoder, flat index, tight rule, MRR@10 in "
        "points; each group indexed once and searched with `search.demote_banners` off, then "
        "on. Δ = after - before, paired bootstrap 95% CI over the queries.",
        "",
        "| group | mode | queries | before | after | Δ [95% CI] | up / down |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        d, lo, hi = r["gain_ci"]
        lines.append(f"| {r['group']} | {r['mode']} | {r['queries']} | {r['before']:.2f} | "
                     f"{r['after']:.2f} | {d:+.2f} [{lo:+.2f}, {hi:+.2f}] | "
                     f"{r['up']} / {r['down']} |")
    (BENCH / "results" / "banners_last.json").write_text(json.dumps(rows, indent=1) + "\n")
    (BENCH / "results" / "banners_last.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
