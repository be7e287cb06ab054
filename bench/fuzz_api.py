"""Schemathesis `--checks all` against a live embedstore server, for longer than CI allows.

    python bench/fuzz_api.py [--max-examples N] [--max-time SECONDS] [--seed S] [--no-key]

The server is a real uvicorn on 127.0.0.1 with the fake encoder (the HTTP
layer is what is fuzzed), guarded by an API key unless --no-key: its schema
then declares a bearer scheme, and the ignored_auth check sends requests
without the key. The exceptions to `--checks all` are listed, with reasons,
in tests/api/schemathesis.toml. Writes bench/results/fuzz.md.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.api.fuzz import CONFIG, FUZZ_KEY, fuzz_app, run_schemathesis  # noqa: E402
from tests.api.server import serving_in_thread  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "fuzz.md"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-examples", type=int, default=200)
    parser.add_argument("--max-time", type=int, default=300, help="seconds for the whole run")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-key", action="store_true", help="serve without an API key")
    args = parser.parse_args()
    key = None if args.no_key else FUZZ_KEY
    with tempfile.TemporaryDirectory() as tmp, \
            serving_in_thread(fuzz_app(Path(tmp), key)) as url:
        began = time.monotonic()
        run = run_schemathesis(url, max_examples=args.max_examples, max_time=args.max_time,
                               seed=args.seed, api_key=key)
        seconds = time.monotonic() - began
    # The failures' details (each with a curl line to replay it), then the summary.
    start = run.output.find("FAILURES")
    summary = run.output[start if start >= 0 else run.output.rfind("SUMMARY"):]
    lines = [
        "# Schemathesis `--checks all` against `embedstore serve`",
        "",
        f"schemathesis {version('schemathesis')}, seed {args.seed}, max {args.max_examples} "
        f"examples per operation, time budget {args.max_time} s, "
        f"{'no API key' if key is None else 'an API key and a declared bearer scheme'}; "
        f"exceptions: `{CONFIG.relative_to(ROOT)}`.",
        "",
        "| test cases | failures (exit code) | seconds |",
        "| --- | --- | --- |",
        f"| {run.cases} | {'none' if run.returncode == 0 else 'yes'} ({run.returncode}) "
        f"| {seconds:.0f} |",
        "",
        "```",
        summary.strip(),
        "```",
        "",
    ]
    RESULTS.write_text("\n".join(lines))
    print("\n".join(lines))
    sys.exit(run.returncode)


if __name__ == "__main__":
    main()
