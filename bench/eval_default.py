"""The default encoder before and after a new adapter (issues 20, 29), per language.

    python bench/eval_default.py score LABEL [--model SPEC] [--work DIR]
        [--groups python typescript go rust stdlib]
    python bench/eval_default.py report BEFORE AFTER [--speed]
    python bench/eval_default.py compare BEFORE AFTER --out NAME [--note TEXT]

`score`: `embedstore eval --strict` (flat index, doc-comment queries; hybrid, dense,
lexical and the whole-definition dense baseline) with the model SPEC (default: the
shipped default) of the 12 Python validation packages (`python
../shared/eval/fetch_repos.py DIR`, --validation), of each language's validation-multi
repositories pooled (bench/eval_languages.py's groups), of Java's check set (`java`:
bench/fetch_java.py's two Android code bases, --java) and of the held-out fifth of the
standard library's files (`stdlib`, the set a search change is tuned on); each
query's rank goes to bench/work/default-eval/LABEL/<group>.jsonl. `--work DIR` keeps the
stripped copies and their collections there, so that a second run encodes only what it
embeds differently (give each state of the code its own DIR to score it again for free).
A candidate adapter is scored before it is shipped through the merged folder
bench/train_default.py writes (the stock weights plus the adapter, as embedstore loads the
default).
`report`: MRR@10 per group and mode for two labels, the difference with a paired bootstrap
95% CI over the queries both runs asked, the held-out stdlib figures of
bench/results/train_default.json, and with --speed the encoding speed of both models;
writes bench/results/default_encoder.md and .json.
`compare`: the same for two runs of one encoder on different code (a search change), with
how the second run's hybrid stands against its dense per repository; writes
bench/results/NAME.md and .json.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from eval_languages import GROUPS as LANGUAGE_GROUPS
from stdlib_corpus import stdlib_copy, stdlib_held_out

from embedstore.encoders.registry import DEFAULT_ENCODER, canonical_spec, load_encoder
from embedstore.evaluation.bootstrap import paired_bootstrap_ci, reciprocal_ranks
from embedstore.evaluation.metrics import CUTOFF
from embedstore.evaluation.runner import BASELINE, run_eval

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results"
WORK = BENCH / "work" / "default-eval"
MODES = ("hybrid", "dense", "lexical")
# The simple baseline row: dense over whole definitions (embedstore.evaluation.baseline).
REPORTED = (*MODES, BASELINE)
GROUPS = ("python", "typescript", "go", "rust", "java", "stdlib")


def repositories(group: str, validation: Path, java: Path) -> list[Path]:
    """Python: all the validation packages; Java: its check set; stdlib: its held-out
    files; another language: its validation-multi ones."""
    if group in ("python", "java"):
        folder = validation if group == "python" else java
        return sorted(p for p in folder.iterdir() if p.is_dir())
    if group == "stdlib":
        return [stdlib_held_out(BENCH / "work" / "stdlib-held", BENCH / "work" / "Lib")]
    return LANGUAGE_GROUPS[group]


def score(label: str, model: str, groups: Sequence[str], validation: Path, java: Path,
          work: Path | None) -> None:
    spec = canonical_spec(model)
    (WORK / label).mkdir(parents=True, exist_ok=True)
    (WORK / label / "model.txt").write_text(spec + "\n")
    for group in groups:
        began = time.perf_counter()
        run_eval(repositories(group, validation, java), encoder=spec, modes=MODES,
                 index_kinds=("flat",), strict=True, baseline=True,
                 per_query=WORK / label / f"{group}.jsonl", work=work)
        print(f"{label} {group}: {time.perf_counter() - began:.0f} s", flush=True)


def _ranks(path: Path) -> dict[str, dict[tuple[str, ...], int | None]]:
    """Per mode: each query's rank (None: not in the results), keyed by what the query is."""
    by_mode: dict[str, dict[tuple[str, ...], int | None]] = {}
    for line in path.read_text().splitlines():
        row = json.loads(line)
        key = (row["repo"], row["path"], str(row["def_line"]), row["query"])
        by_mode.setdefault(row["mode"], {})[key] = row["rank"]
    return by_mode


def encode_speed(
    models: Sequence[str], rounds: int = 3, texts: int | None = None
) -> dict[str, float]:
    """Texts/s of each model on the same code (the standard library's email package in
    25-line windows, the first ``texts`` of them), rounds alternating."""
    package = stdlib_copy(BENCH / "work" / "Lib") / "email"
    lines = [line for f in sorted(package.rglob("*.py")) for line in f.read_text().split("\n")]
    sample = ["\n".join(lines[i : i + 25]) for i in range(0, len(lines), 25)][:texts]
    encoders = {model: load_encoder(model) for model in models}
    spent = dict.fromkeys(encoders, 0.0)
    for _ in range(rounds):
        for name, encoder in encoders.items():
            began = time.perf_counter()
            encoder.encode(sample)
            spent[name] += time.perf_counter() - began
    return {"texts": len(sample),
            **{name: rounds * len(sample) / seconds for name, seconds in spent.items()}}


def _changes(before: str, after: str) -> list[dict[str, Any]]:
    """Per group and mode: MRR@10 before and after over the queries both asked, and the
    paired difference."""
    rows: list[dict[str, Any]] = []
    for group in GROUPS:
        old_path, new_path = WORK / before / f"{group}.jsonl", WORK / after / f"{group}.jsonl"
        if not (old_path.exists() and new_path.exists()):
            continue
        old, new = _ranks(old_path), _ranks(new_path)
        for mode in [m for m in REPORTED if m in old and m in new]:
            shared = sorted(old[mode].keys() & new[mode].keys())
            rows.append({"group": group, "mode": mode, "queries": len(shared),
                         **paired_mrr([old[mode][k] for k in shared],
                                   [new[mode][k] for k in shared], ("before", "after"))})
    return rows


def paired_mrr(first: list[int | None], second: list[int | None], names: tuple[str, str]
            ) -> dict[str, Any]:
    """MRR@10 of two rank lists of the same queries, and second - first with its CI."""
    a, b = reciprocal_ranks(first, CUTOFF), reciprocal_ranks(second, CUTOFF)
    return {names[0]: 100 * sum(a) / len(a), names[1]: 100 * sum(b) / len(b),
            "gain_ci": [100 * x for x in paired_bootstrap_ci(b, a)]}


def _line(cells: Sequence[object], gain: Sequence[float]) -> str:
    d, lo, hi = gain
    return "| " + " | ".join(map(str, cells)) + f" | {d:+.1f} [{lo:+.1f}, {hi:+.1f}] |"


def compare(before: str, after: str, out: str, note: str = "") -> None:
    """Two runs of the same encoder on different code: each group's change, and how
    ``after``'s hybrid stands against its dense, pooled and per repository; writes
    bench/results/OUT.{md,json}."""
    rows = _changes(before, after)
    against: list[dict[str, Any]] = []
    for group in GROUPS:
        path = WORK / after / f"{group}.jsonl"
        if not path.exists():
            continue
        ranks = _ranks(path)
        shared = sorted(ranks["hybrid"].keys() & ranks["dense"].keys())
        repos = sorted({k[0] for k in shared})
        for repo, keys in [*((r, [k for k in shared if k[0] == r]) for r in repos),
                           (f"{group} pooled", shared)]:
            against.append({"group": group, "repo": repo, "queries": len(keys),
                            **paired_mrr([ranks["dense"][k] for k in keys],
                                      [ranks["hybrid"][k] for k in keys], ("dense", "hybrid"))})
    lines = [f"# {before} -> {after}: search per language", "",
             f"`python bench/eval_default.py compare {before} {after} --out {out}` after "
             "`score` of each (same encoder, the code changed); `embedstore eval --strict`, "
             "flat index, 2-core CPU shared with other jobs. MRR@10 in points; Δ with a paired "
             "bootstrap 95% CI over the queries both asked.", "", *([note, ""] if note else []),
             "| set | mode | before | after | Δ [95% CI] |", "|---|---|---|---|---|"]
    lines += [_line([r["group"], r["mode"], f"{r['before']:.1f}", f"{r['after']:.1f}"],
                    r["gain_ci"]) for r in rows]
    lines += ["", "After: hybrid against dense, per repository.", "",
              "| set | repository | queries | dense | hybrid | hybrid - dense [95% CI] |",
              "|---|---|---|---|---|---|"]
    lines += [_line([r["group"], r["repo"], r["queries"], f"{r['dense']:.1f}",
                     f"{r['hybrid']:.1f}"], r["gain_ci"]) for r in against]
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{out}.json").write_text(json.dumps(
        {"before": before, "after": after, "rows": rows, "hybrid_vs_dense": against},
        indent=2) + "\n")
    (RESULTS / f"{out}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def report(before: str, after: str, speed: bool) -> None:
    models = [(WORK / label / "model.txt").read_text().strip() for label in (before, after)]
    rows = _changes(before, after)
    trained = json.loads((RESULTS / "train_default.json").read_text())
    held = trained["held_out_stdlib_dense"]
    lines = [
        "# The default encoder: before and after a new adapter (issues 20, 29)",
        "",
        f"`python bench/eval_default.py report {before} {after}` after `score` of each; "
        "`embedstore eval --strict` (a hit must be the documented definition itself), flat "
        "index, 2-core CPU shared with other jobs. MRR@10 in points over the queries both "
        "runs asked; Δ = after - before with a paired bootstrap 95% CI. Python: the 12 "
        "validation packages pooled; TypeScript, Go, Rust: each language's 4 validation-multi "
        "repositories pooled; Java: its check set's 2 code bases (bench/fetch_java.py), "
        "never trained or tuned on.",
        "",
        f"Before: `{models[0]}`. After: `{models[1]}`.",
        "",
        "| set | mode | before | after | Δ [95% CI] | queries |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        d, lo, hi = r["gain_ci"]
        lines.append(f"| {r['group']} | {r['mode']} | {r['before']:.1f} | {r['after']:.1f} | "
                     f"{d:+.1f} [{lo:+.1f}, {hi:+.1f}] | {r['queries']:,} |")
    d, lo, hi = held["adapter_gain_ci"]
    lines += ["", f"Standard library, held-out files ({held['files']} files, never trained on), "
              f"dense, stock all-MiniLM-L6-v2 -> stock plus the trained adapter: "
              f"{held['stock']:.1f} -> {held['adapter']:.1f} ({d:+.1f} [{lo:+.1f}, {hi:+.1f}]). "
              f"Training: {trained['pairs_trained']:,} pairs, {trained['steps']} steps, "
              f"{trained['train_seconds'] / 60:.0f} min on {trained['hardware']} "
              "(bench/results/train_default.json)."]
    speeds = encode_speed(models) if speed else {}
    if speeds:
        lines += ["", f"Encoding speed, the same {speeds['texts']:.0f} 25-line windows of "
                  f"code, 3 rounds alternating: before {speeds[models[0]]:.1f} texts/s, after "
                  f"{speeds[models[1]]:.1f} texts/s."]
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "default_encoder.json").write_text(json.dumps(
        {"before": models[0], "after": models[1], "rows": rows, "stdlib_held_out": held,
         "encode_texts_per_second": speeds}, indent=2))
    (RESULTS / "default_encoder.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    scoring = sub.add_parser("score")
    scoring.add_argument("label")
    # Before shipping a candidate: bench/work/default-adapter/merged.
    scoring.add_argument("--model", default=DEFAULT_ENCODER)
    scoring.add_argument("--groups", nargs="+", choices=GROUPS, default=list(GROUPS))
    scoring.add_argument("--validation", type=Path, default=Path("/work/data/val"))
    scoring.add_argument("--java", type=Path, default=Path("/work/data/java"),
                         help="bench/fetch_java.py's folder")
    scoring.add_argument("--work", type=Path, help="keep collections here between runs")
    reporting = sub.add_parser("report")
    reporting.add_argument("before")
    reporting.add_argument("after")
    reporting.add_argument("--speed", action="store_true", help="time both models' encoding")
    comparing = sub.add_parser("compare")
    comparing.add_argument("before")
    comparing.add_argument("after")
    comparing.add_argument("--out", required=True, help="bench/results/OUT.{md,json}")
    comparing.add_argument("--note", default="", help="a paragraph on how the runs were made")
    args = parser.parse_args()
    if args.command == "score":
        score(args.label, args.model, args.groups, args.validation, args.java, args.work)
    elif args.command == "compare":
        compare(args.before, args.after, args.out, args.note)
    else:
        report(args.before, args.after, args.speed)


if __name__ == "__main__":
    main()
