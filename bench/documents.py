"""Document retrieval on real manuals: `embedstore eval --task documents` on Debian's docs.

    python bench/documents.py [--docs /work/data/docs] [--max-queries 300] [--max-files 150]
                              [--seed 0] [--work bench/work/documents]

The corpora are those of bench/fetch_documents.py (run first when --docs is missing): the
Python 3.11 docs and the PostgreSQL 15 manual as HTML, gnuplot's and GNU Octave's manuals
as PDF. Each is sampled to --max-files documents (seeded), indexed with the default model
into --work (reused on later runs), and asked up to --max-queries heading queries and as
many first-sentence queries. Writes bench/results/documents.{md,json}, and
every query's rank per mode to --work/per_query.jsonl.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

from fetch_documents import CORPORA, DEFAULT_DEST

from embedstore.evaluation.documents import markdown_report, run_documents

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


def main() -> None:
    parser = argparse.ArgumentParser(description="documents retrieval benchmark")
    parser.add_argument("--docs", type=Path, default=DEFAULT_DEST)
    parser.add_argument("--max-queries", type=int, default=300)
    parser.add_argument("--max-files", type=int, default=150)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", type=Path, default=HERE / "work" / "documents")
    args = parser.parse_args()
    corpora = [args.docs / c.name for c in CORPORA]
    if not all(c.is_dir() for c in corpora):
        subprocess.run([sys.executable, str(HERE / "fetch_documents.py"), "--dest",
                        str(args.docs)], check=True)
    began = time.perf_counter()
    load = os.getloadavg()[0]
    report = run_documents(
        corpora, seed=args.seed, max_queries=args.max_queries, max_files=args.max_files,
        work=args.work, per_query=args.work / "per_query.jsonl",
    )
    minutes = (time.perf_counter() - began) / 60
    command = (f"python bench/documents.py --max-queries {args.max_queries} "
               f"--max-files {args.max_files} --seed {args.seed}")
    machine = (f"{platform.machine()}, {os.cpu_count()} cpus, load average {load:.1f} at "
               f"start, {os.getloadavg()[0]:.1f} at the end; {minutes:.0f} min in all")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "documents.md").write_text(
        f"# Document retrieval: Debian's manuals (HTML and PDF)\n\n`{command}`; {machine}.\n\n"
        + markdown_report(report)
    )
    (RESULTS / "documents.json").write_text(
        json.dumps({"command": command, "machine": machine, **asdict(report)}, indent=1) + "\n"
    )
    print(markdown_report(report))


if __name__ == "__main__":
    main()
