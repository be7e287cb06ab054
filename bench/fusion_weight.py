"""The hybrid fusion weight for an encoder, tuned on the standard library only.

    python bench/fusion_weight.py [--encoder SPEC] [--weights 0.6,0.7,0.8,0.9]

Scores hybrid search (strict rule, flat index) on the held-out fifth of the standard
library's files (`pairs.held_out`: never trained on by `bench/train_default.py`) with
each fixed dense weight in place of the per-query rule search uses
(`embedstore.retrieval.fusion_rule`, fitted by bench/adaptive_fusion.py), and the paired
difference of each against the fixed `DENSE_WEIGHT`.
Writes bench/results/fusion_weight.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from stdlib_corpus import stdlib_copy

from embedstore.encoders.registry import DEFAULT_ENCODER, canonical_spec
from embedstore.evaluation.bootstrap import paired_bootstrap_ci, reciprocal_ranks
from embedstore.evaluation.metrics import CUTOFF
from embedstore.evaluation.runner import run_eval
from embedstore.retrieval import fusion, search
from embedstore.tuning.run import TuneReport, copy_held_out

BENCH = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--encoder", default=DEFAULT_ENCODER)
    parser.add_argument("--weights", default="0.6,0.7,0.8,0.9")
    args = parser.parse_args()
    encoder = canonical_spec(args.encoder)
    weights = [float(w) for w in args.weights.split(",")]
    shipped = fusion.DENSE_WEIGHT
    scores: dict[float, tuple[float, list[float]]] = {}
    with tempfile.TemporaryDirectory(prefix="fusion-") as tmp:
        report = TuneReport(encoder, "")
        copies = copy_held_out([stdlib_copy(BENCH / "work" / "Lib")], Path(tmp) / "held", report)
        for weight in sorted({*weights, shipped}):
            # Every hybrid search fuses with this one weight, not the per-query rule's.
            search.weight_for = lambda *_, w=weight: w  # type: ignore[assignment]
            ranks_file = Path(tmp) / "ranks.jsonl"
            result = run_eval(copies, encoder=encoder, modes=("hybrid",), index_kinds=("flat",),
                              strict=True, baseline=False, per_query=ranks_file,
                              work=Path(tmp) / "work")
            ranks = [json.loads(line)["rank"] for line in ranks_file.read_text().splitlines()]
            scores[weight] = (result.rows[0].metrics["mrr@10"], reciprocal_ranks(ranks, CUTOFF))
            print(f"dense weight {weight}: hybrid MRR@10 {scores[weight][0]:.1f}", flush=True)
    rows: list[dict[str, Any]] = []
    for weight, (mrr, rr) in sorted(scores.items()):
        diff = [100 * x for x in paired_bootstrap_ci(rr, scores[shipped][1])]
        rows.append({"dense_weight": weight, "mrr@10": mrr, "vs_shipped_ci": diff})
    lines = [f"# Fusion weight on held-out stdlib files: `{encoder}`", "",
             f"`python bench/fusion_weight.py`; {report.files_held_out} files, "
             f"{len(scores[shipped][1])} docstring queries, hybrid, strict rule; Δ against the "
             f"shipped DENSE_WEIGHT {shipped} (paired bootstrap 95% CI).", "",
             "| dense weight | MRR@10 | Δ [95% CI] |", "|---|---|---|"]
    lines += [f"| {r['dense_weight']} | {r['mrr@10']:.1f} | {r['vs_shipped_ci'][0]:+.1f} "
              f"[{r['vs_shipped_ci'][1]:+.1f}, {r['vs_shipped_ci'][2]:+.1f}] |" for r in rows]
    (BENCH / "results").mkdir(exist_ok=True)
    (BENCH / "results" / "fusion_weight.json").write_text(
        json.dumps({"encoder": encoder, "rows": rows}, indent=2) + "\n")
    (BENCH / "results" / "fusion_weight.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
