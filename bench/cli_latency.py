"""Wall time of whole `embedstore` processes, as a user waits for them (issue 9).

    python bench/cli_latency.py [--runs 5]

Indexes examples/demo-repo into a temporary store once, then runs each command
--runs times as a fresh process and reports the median and the worst wall time
and peak RSS (from /usr/bin/time), against issue 9's targets. "warm" runs follow
one another; "cold" runs each start after dropping the OS page cache (root only;
skipped elsewhere). With the standard-library collection of bench/encode_speed.py
present (bench/work/store), a search of it (15k units) is timed too.
Writes bench/results/cli_latency.md and .json.
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


DROP_CACHES = Path("/proc/sys/vm/drop_caches")
STDLIB_STORE = BENCH / "work" / "store"
TARGETS = {"--help": 0.4, "list": 0.4, "info": 0.4}


def drop_page_cache() -> bool:
    """Empty the OS page cache, so the next process reads its files from disk."""
    try:
        subprocess.run(["sync"], check=True)
        DROP_CACHES.write_text("3\n")
    except OSError:
        return False
    return True


def _bytecode_note() -> str:
    # Without cached bytecode each process compiles every module it imports that
    # has no .pyc yet, tens of ms more than an installed package costs.
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return ", with PYTHONDONTWRITEBYTECODE set (modules without a .pyc compiled each run)"
    return ""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    with tempfile.TemporaryDirectory() as store:
        subprocess.run([EXE, "index", str(ROOT / "examples" / "demo-repo"), "--name", "demo",
                        "--store", store], env=env, check=True, capture_output=True)
        search = ["search", "parse the config file", "--name", "demo", "--store", store]
        commands: dict[str, tuple[list[str], bool]] = {
            "--help": (["--help"], False),
            "list": (["list", "--store", store], False),
            "info": (["info", "demo", "--store", store], False),
            "search, warm": (search, False),
            "context, warm": (["context", "parse the config file", "--name", "demo",
                               "--store", store], False),
            "search, cold": (search, True),
        }
        if (STDLIB_STORE / "stdlib").is_dir():
            commands["search stdlib (15k units), warm"] = (
                ["search", "split a string using shell-like syntax", "--name", "stdlib",
                 "--store", str(STDLIB_STORE)], False)
        rows = {}
        for name, (argv, cold) in commands.items():
            timed(argv, env)  # a first run, not counted: it may export the model once
            runs = []
            for _ in range(args.runs):
                if cold and not drop_page_cache():
                    break
                runs.append(timed(argv, env))
            if not runs:
                continue
            seconds = [s for s, _ in runs]
            rows[name] = {"median_s": statistics.median(seconds), "max_s": max(seconds),
                          "peak_rss_mib": max(r for _, r in runs) / 1024,
                          "target_s": TARGETS.get(name, 1.0 if "warm" in name else None)}
    lines = ["# CLI latency: whole processes, wall time", "",
             f"`python bench/cli_latency.py --runs {args.runs}` on {os.cpu_count()} cores, "
             f"load average {os.getloadavg()[0]:.2f} at the end{_bytecode_note()}.", "",
             "| command | median s | worst s | peak RSS MiB | target s |", "|---|---|---|---|---|"]
    lines += [f"| `{n}` | {r['median_s']:.2f} | {r['max_s']:.2f} | {r['peak_rss_mib']:.0f} "
              f"| {r['target_s'] or '-'} |" for n, r in rows.items()]
    (BENCH / "results").mkdir(exist_ok=True)
    (BENCH / "results" / "cli_latency.json").write_text(json.dumps(rows, indent=2))
    (BENCH / "results" / "cli_latency.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
