"""Wall time of whole `embedstore` processes, as a user waits for them (issue 9).

    python bench/cli_latency.py [--runs 5]

Indexes examples/demo-repo into a temporary store once, then runs each command
--runs times as a fresh process and reports the median and the worst wall time
and peak RSS (from /usr/bin/time). Writes bench/results/cli_latency.md and .json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
EXE = str(Path(sys.executable).with_name("embedstore"))


def timed(args: list[str], env: dict[str, str]) -> tuple[float, int]:
    """(seconds, peak RSS in KiB) of one process."""
    began = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "%M", EXE, *args], env=env,
                          capture_output=True, text=True, check=True)
    return time.perf_counter() - began, int(done.stderr.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    with tempfile.TemporaryDirectory() as store:
        subprocess.run([EXE, "index", str(ROOT / "examples" / "demo-repo"), "--name", "demo",
                        "--store", store], env=env, check=True, capture_output=True)
        commands = {
            "--help": ["--help"],
            "list": ["list", "--store", store],
            "info": ["info", "demo", "--store", store],
            "search": ["search", "parse the config file", "--name", "demo", "--store", store],
        }
        rows = {}
        for name, argv in commands.items():
            runs = [timed(argv, env) for _ in range(args.runs)]
            seconds = [s for s, _ in runs]
            rows[name] = {"median_s": statistics.median(seconds), "max_s": max(seconds),
                          "peak_rss_mib": max(r for _, r in runs) / 1024}
    lines = ["# CLI latency: whole processes, wall time", "",
             f"`python bench/cli_latency.py --runs {args.runs}` on {os.cpu_count()} cores.", "",
             "| command | median s | worst s | peak RSS MiB |", "|---|---|---|---|"]
    lines += [f"| `{n}` | {r['median_s']:.2f} | {r['max_s']:.2f} | {r['peak_rss_mib']:.0f} |"
              for n, r in rows.items()]
    (BENCH / "results").mkdir(exist_ok=True)
    (BENCH / "results" / "cli_latency.json").write_text(json.dumps(rows, indent=2))
    (BENCH / "results" / "cli_latency.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
