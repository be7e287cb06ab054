"""`embedstore eval --task completion` on real code: does the context hold what the next line uses?

    python bench/completion.py [--set stdlib|validation] [--max-cases 200] [--seed 0]
                               [--rows "no retrieval,context, last 30 lines,..."]

stdlib: packages of this Python's standard library (tests excluded), each a repository.
validation: the 12 pinned packages of ../shared/eval/fetch_repos.py, fetched into
bench/work/validation when missing. Each repository is indexed with the default model
into bench/work/completion/<set>/ and reused on later runs. Writes
bench/results/completion.{md,json}, one section per set; a set not run keeps its last
results there.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

from stdlib_corpus import stdlib_copy

from embedstore.evaluation.completion import ROWS, check_rows, markdown_report, run_completion

HERE = Path(__file__).resolve().parent
FETCH = HERE.parent.parent / "shared" / "eval" / "fetch_repos.py"
# Packages whose modules use each other a lot (calls, methods and constants alike).
STDLIB_PACKAGES = (
    "asyncio", "ctypes", "email", "http", "importlib", "json", "logging", "multiprocessing",
    "tomllib", "unittest", "urllib", "xml",
)
# A row's own name may hold ", " ("context, last 8 lines"); rows are separated by a bare ",".
_ROW_SEPARATOR = re.compile(r",(?! )")


def repositories(which: str) -> list[Path]:
    if which == "stdlib":
        corpus = stdlib_copy(HERE / "work" / "Lib")
        return [corpus / name for name in STDLIB_PACKAGES if (corpus / name).is_dir()]
    folder = HERE / "work" / "validation"
    if not folder.is_dir():
        subprocess.run([sys.executable, str(FETCH), str(folder)], check=True)
    return sorted(p for p in folder.iterdir() if p.is_dir())


def main() -> None:
    parser = argparse.ArgumentParser(description="code-completion context benchmark")
    parser.add_argument("--set", dest="which", choices=("stdlib", "validation"),
                        default="validation")
    parser.add_argument("--max-cases", type=int, default=200, help="cursors per repository")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rows", default=",".join(ROWS),
                        help="rows to score, comma-separated [default: all]")
    args = parser.parse_args()
    rows = [r.strip() for r in _ROW_SEPARATOR.split(args.rows)]
    check_rows(rows)
    repos = repositories(args.which)
    began = time.perf_counter()
    report = run_completion(
        repos, seed=args.seed, max_cases=args.max_cases, rows=rows,
        work=HERE / "work" / "completion" / args.which,
    )
    total = time.perf_counter() - began
    section = (
        f"## {args.which}: {', '.join(p.name for p in repos)}\n\n"
        f"{args.max_cases} cursors at most per repository; indexing {report.index_seconds:.0f} s, "
        f"total {total:.0f} s.\n\n{markdown_report(report)}"
    )
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    stored = out / "completion.json"
    sets = json.loads(stored.read_text()) if stored.exists() else {}
    sets[args.which] = {**asdict(report), "total_seconds": round(total, 1), "markdown": section}
    stored.write_text(json.dumps(sets, indent=2) + "\n")
    (out / "completion.md").write_text(
        "# Code-completion context benchmark\n\n"
        "`python bench/completion.py --set stdlib|validation`; see embedstore/evaluation/"
        "completion.py for what a case and a hit are.\n\n"
        + "\n".join(sets[name]["markdown"] for name in sorted(sets))
    )
    print(section)


if __name__ == "__main__":
    main()
