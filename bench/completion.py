"""`embedstore eval --task completion` on real code: does the context hold what the next line uses?

    python bench/completion.py [--set stdlib|validation|validation-multi|train-multi|probe]
                               [--repos DIR] [--label NAME] [--max-cases 200] [--seed 0]
                               [--rows "no retrieval,context, last 30 lines,..."]
                               [--against OLD.json] [--fast]

stdlib: packages of this Python's standard library (tests excluded), each a repository.
validation, validation-multi, train-multi: the pinned repositories of
../shared/eval/fetch_repos.py, read from --repos (default bench/work/<set>, fetched there
when missing). probe: twelve TypeScript, Go and Rust projects of no pinned set
(bench/fetch_probe.py), to read how the retriever does on code nobody tuned it on. The
-multi sets and probe (TypeScript, Go, Rust) are scored per language: each
language's repositories pooled, and each on its own. Each repository is indexed with the
default model into bench/work/completion/<set>/<label>/ and reused on later runs. Writes
bench/results/completion.{md,json} (Python) or completion_multi.{md,json} (-multi sets), one
section per set and --label; a section not run keeps its last results there. --against
compares each row's per-cursor hits with the same section of an earlier run's JSON (another
commit's), paired bootstrap over the cursors both ran, and adds the table to the section.

--fast scores the rows that read no vectors (code-at-cursor, its suffix, at-the-name and
two-characters-typed rows, imported definitions, sliding-window BM25, no retrieval) without
the model: each repository is indexed with the test suite's hashing encoder, and budgets are
counted by the default model's tokenizer. Its figures are within a cursor or two of the
model's, and indexing takes seconds instead of minutes: tune with it, then confirm without
it. Its indexes are in
bench/work/completion-fast/, its results in bench/results/completion_fast.{md,json} and
completion_multi_fast.{md,json}.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from collections import Counter
from dataclasses import asdict
from pathlib import Path

from stdlib_corpus import stdlib_copy

from embedstore.evaluation.bootstrap import paired_bootstrap_ci
from embedstore.evaluation.completion import (
    DEFAULT_BUDGETS,
    ROWS,
    VECTOR_FREE_ROWS,
    check_rows,
    markdown_report,
    run_completion,
)
from embedstore.ingest.sources import walk_sources

HERE = Path(__file__).resolve().parent
FETCH = HERE.parent.parent / "shared" / "eval" / "fetch_repos.py"
# Packages whose modules use each other a lot (calls, methods and constants alike).
STDLIB_PACKAGES = (
    "asyncio", "ctypes", "email", "http", "importlib", "json", "logging", "multiprocessing",
    "tomllib", "unittest", "urllib", "xml",
)
MULTI_SETS = ("validation-multi", "train-multi", "probe")
# Editors often give a completion model 1-2k tokens of other files in all; 256 shows
# what comes first.
BUDGETS = (256, *DEFAULT_BUDGETS)
# A row's own name may hold ", " ("context, last 8 lines"); rows are separated by a bare ",".
_ROW_SEPARATOR = re.compile(r",(?! )")
# JavaScript and TSX repositories are scored with TypeScript's.
_LANGUAGE_GROUPS = {"javascript": "typescript", "tsx": "typescript"}
_SCORED = ("python", "typescript", "go", "rust", "java")


def repositories(which: str, folder: Path | None) -> list[Path]:
    if which == "stdlib":
        corpus = stdlib_copy(HERE / "work" / "Lib")
        return [corpus / name for name in STDLIB_PACKAGES if (corpus / name).is_dir()]
    folder = folder or HERE / "work" / which
    if not folder.is_dir():
        fetch = ([str(HERE / "fetch_probe.py")] if which == "probe"
                 else [str(FETCH), "--set", which])
        subprocess.run([sys.executable, fetch[0], str(folder), *fetch[1:]], check=True)
    return sorted(p for p in folder.iterdir() if p.is_dir())


def main_language(repo: Path) -> str:
    """The language most of the repository's scored source files are in."""
    counts = Counter(_LANGUAGE_GROUPS.get(s.language, s.language) for s in walk_sources(repo))
    scored = [(n, language) for language, n in counts.items() if language in _SCORED]
    return max(scored)[1] if scored else "text"


def main() -> None:
    parser = argparse.ArgumentParser(description="code-completion context benchmark")
    parser.add_argument("--set", dest="which",
                        choices=("stdlib", "validation", *MULTI_SETS), default="validation")
    parser.add_argument("--repos", type=Path, help="the set's repositories [bench/work/<set>]")
    parser.add_argument("--label", default="", help="names this run's section (which code)")
    parser.add_argument("--max-cases", type=int, default=200, help="cursors per repository")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rows", default=",".join(ROWS),
                        help="rows to score, comma-separated [default: all]")
    parser.add_argument("--language", action="append", choices=_SCORED[1:],
                        help="-multi sets: score only this language (repeatable) [all]")
    parser.add_argument("--against", type=Path,
                        help="an earlier run's completion JSON: paired before/after per row")
    parser.add_argument("--fast", action="store_true",
                        help="the rows that read no vectors, without the model (to tune with)")
    args = parser.parse_args()
    rows = [r.strip() for r in _ROW_SEPARATOR.split(args.rows)]
    check_rows(rows)
    encoder = None
    if args.fast:
        if needs_vectors := [r for r in rows if r not in VECTOR_FREE_ROWS]:
            if args.rows != parser.get_default("rows"):
                parser.error(f"--fast scores no row that reads vectors: {', '.join(needs_vectors)}")
            rows = [r for r in rows if r in VECTOR_FREE_ROWS]
        encoder = hashing_encoder()
    work = HERE / "work" / ("completion-fast" if args.fast else "completion") / args.which
    multi = args.which in MULTI_SETS
    groups: dict[str, list[Path]] = {}
    for repo in repositories(args.which, args.repos):
        language = main_language(repo) if multi else "python"
        if not multi or not args.language or language in args.language:
            groups.setdefault(language, []).append(repo)
    title = args.which + (f", {args.label}" if args.label else "")
    for language, members in groups.items():
        began = time.perf_counter()
        report = run_completion(
            members, encoder=encoder, seed=args.seed, max_cases=args.max_cases, rows=rows,
            budgets=BUDGETS, work=work / (args.label or "default"),
        )
        total = time.perf_counter() - began
        result = asdict(report)
        against = ""
        if args.against:
            earlier = json.loads(args.against.read_text()).get(title, {})
            against = compare(earlier.get(language, {}) if multi else earlier, result)
        section = (
            (f"### {language}: " if multi else f"## {title}: ")
            + f"{', '.join(p.name for p in members)}\n\n"
            f"{args.max_cases} cursors at most per repository; indexing "
            f"{report.index_seconds:.0f} s, total {total:.0f} s.\n\n{markdown_report(report)}"
            + against
        )
        result = {**result, "total_seconds": round(total, 1), "markdown": section}
        write_results(title, language if multi else None, result, fast=args.fast)
        print(section, flush=True)


def hashing_encoder() -> str:
    """The test suite's hashing encoder, counting tokens as the default model does: what
    code-at-cursor packs depends on the counts, never on the vectors. Its spec."""
    sys.path.insert(0, str(HERE.parent))
    from embedstore.encoders.registry import load_encoder
    from tests.fakes import FAKE_SPEC, FakeEncoder, install_fake_encoder

    model = load_encoder(None)
    # On the class: the registry makes one instance per pooling.
    FakeEncoder.count_tokens = lambda self, texts: model.count_tokens(texts)  # type: ignore[method-assign]
    install_fake_encoder()
    return FAKE_SPEC


def compare(before: dict[str, object], after: dict[str, object]) -> str:
    """A table of each row and budget both runs scored: recall before, after, and the paired
    difference [bootstrap 95% CI] over the cursors both ran (by repository, file and line)."""
    old_ids, new_ids = before.get("case_ids") or [], after["case_ids"]
    old_hits, new_hits = before.get("hits") or {}, after["hits"]
    assert isinstance(old_ids, list) and isinstance(new_ids, list)
    assert isinstance(old_hits, dict) and isinstance(new_hits, dict)
    where = {case: i for i, case in enumerate(old_ids)}
    both = [(where[case], i) for i, case in enumerate(new_ids) if case in where]
    if not both:
        return "\n(--against: no cursor in common with the earlier run)\n"
    lines = ["", f"Against the earlier run ({len(both)} cursors in common): recall before -> "
             "after, paired difference [bootstrap 95% CI], points.", "",
             "| row | budget | before | after | difference |", "|---|---|---|---|---|"]
    for key, hits in new_hits.items():
        if key not in old_hits:
            continue
        a = [float(hits[i]) for _, i in both]
        b = [float(old_hits[key][j]) for j, _ in both]
        diff, low, high = paired_bootstrap_ci(a, b)
        row, budget = key.rsplit("@", 1)
        lines.append(f"| {row} | {budget} | {100 * sum(b) / len(b):.1f} | "
                     f"{100 * sum(a) / len(a):.1f} | {100 * diff:+.1f} "
                     f"[{100 * low:+.1f}, {100 * high:+.1f}] |")
    return "\n".join(lines) + "\n"


def write_results(
    title: str, language: str | None, result: dict[str, object], *, fast: bool
) -> None:
    """Stores one run's result; a -multi set keeps one per language, written as each ends."""
    stem = ("completion_multi" if language else "completion") + ("_fast" if fast else "")
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    stored = out / f"{stem}.json"
    sets = json.loads(stored.read_text()) if stored.exists() else {}
    if language:
        sets.setdefault(title, {})[language] = result
    else:
        sets[title] = result
    stored.write_text(json.dumps(sets, indent=2) + "\n")

    def markdown(name: str) -> str:
        found = sets[name]
        if not language:
            return str(found["markdown"])
        return f"## {name}\n\n" + "\n".join(
            found[lang]["markdown"] for lang in _SCORED if lang in found)

    usage = "--set validation-multi|train-multi|probe [--label NAME] [--language L]" if language \
        else "--set stdlib|validation"
    usage += " --fast" if fast else ""
    (out / f"{stem}.md").write_text(
        "# Code-completion context benchmark\n\n"
        f"`python bench/completion.py {usage}`; see embedstore/evaluation/"
        "completion.py for what a case and a hit are.\n\n"
        + "\n".join(markdown(name) for name in sorted(sets))
    )


if __name__ == "__main__":
    main()
