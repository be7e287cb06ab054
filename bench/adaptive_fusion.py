"""Fit and confirm the adaptive fusion rule (embedstore.retrieval.fusion_rule).

    python bench/adaptive_fusion.py collect NAME REPO... [--stdlib]
    python bench/adaptive_fusion.py fit TRAIN_NAME...
    python bench/adaptive_fusion.py report NAME...

``collect`` indexes a docstring-stripped copy of each repository as ``embedstore eval``
does (same queries, same collection, flat index; kept under bench/work/fusion/; with
``--reuse-from``, copied from a ``run_eval`` work folder) and stores, per query, both
sides' candidate lists with the units they name: enough to replay any fusion offline.
``--stdlib`` takes the held-out fifth of the standard library's files instead of REPO.
``fit`` learns the rule's numbers on training dumps only (standard library,
/work/data/train, /work/data/tmulti) and prints them (bench/results/adaptive_fusion_fit.{md,json});
``report`` replays collected sets (the per-query rule, the fixed weight, dense, lexical)
and writes per-package MRR@10 with paired bootstrap CIs to
bench/results/adaptive_fusion.{md,json}.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from embedstore.evaluation.bootstrap import paired_bootstrap_ci
from embedstore.evaluation.dataset import EvalQuery, build_corpus
from embedstore.evaluation.hit_rules import TIGHT, is_hit
from embedstore.evaluation.metrics import CUTOFF
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.languages import detect_language, is_test_code
from embedstore.lexical import query_terms
from embedstore.retrieval.filters import SearchFilters
from embedstore.retrieval.fusion import DENSE_WEIGHT
from embedstore.retrieval.fusion_rule import HIGHEST, LOWEST, query_weight, signals
from embedstore.retrieval.search import CANDIDATES, dense_hits, lexical_hits
from embedstore.retrieval.tests_last import TEST_FACTOR, is_descriptive
from embedstore.store import db
from embedstore.store.store import Store

BENCH = Path(__file__).resolve().parent
WORK = BENCH / "work" / "fusion"
COLLECTION = "with-header"  # run_eval's name for the collection it scores
HEAD_LINES = 16
MIN_POOLED = 20


def collect(name: str, repos: Sequence[Path], max_queries: int, reuse: Path | None) -> None:
    """``reuse``: a work folder of ``run_eval`` whose collections of these repositories
    (same encoder) are copied instead of indexing again."""
    out = WORK / "dumps" / name
    out.mkdir(parents=True, exist_ok=True)
    for repo in repos:
        dump = out / f"{repo.name}.json.gz"
        if dump.exists():
            print(f"{repo.name}: already collected", flush=True)
            continue
        indexed = None if reuse is None else reuse / repo.name / "store"
        if indexed is not None and (not indexed.exists()
                                    or (indexed / COLLECTION / ".incomplete").exists()):
            print(f"{repo.name}: not indexed in {reuse} yet", flush=True)
            continue
        space = WORK / "space" / repo.name
        queries = build_corpus(repo, space / "corpus", seed=0, max_queries=max_queries)
        if not queries:
            continue
        if indexed is not None and not (space / "store").exists():
            shutil.copytree(indexed, space / "store")  # same corpus, same collection
        store = Store(space / "store")
        if indexed is None:
            options = IndexOptions(name=COLLECTION, index_kind="flat", embed_header=True)
            index_folder(store, space / "corpus", options)
        print(f"{repo.name}: {len(queries)} queries", flush=True)
        collection = store.open(COLLECTION)
        vectors = collection.query_encoder.encode([q.query for q in queries], kind="query")
        records: list[dict[str, Any]] = []
        seen: set[int] = set()
        for q, vector in zip(queries, vectors, strict=True):
            dense = dense_hits(collection, vector[None, :], CANDIDATES, SearchFilters(), None, None)
            lexical = lexical_hits(collection, q.query, CANDIDATES, None)
            seen.update(i for i, _ in dense)
            seen.update(i for i, _ in lexical)
            records.append({"query": q.query, "target": _target(q),
                            "terms": len(set(query_terms(q.query))),
                            "dense": dense, "lexical": lexical})
        rows = db.unit_rows(collection.conn, sorted(seen))
        # A unit's first lines are all the tight hit rule reads of its text (what stands
        # above the definition's first line).
        units = {str(i): [r.path, r.start_line, r.end_line, r.kind, r.symbol,
                          is_test_code(r.path, r.language, r.symbol, r.text),
                          "\n".join(r.text.split("\n")[:HEAD_LINES])]
                 for i, r in rows.items()}
        encoder = collection.manifest.encoder
        collection.close()
        with gzip.open(dump, "wt") as fh:
            json.dump({"repo": repo.name, "encoder": encoder, "queries": records,
                       "units": units}, fh)


def _target(q: EvalQuery) -> dict[str, Any]:
    return {"path": q.path, "start_line": q.start_line, "end_line": q.end_line,
            "def_line": q.def_line, "symbol": q.symbol}


def load(name: str) -> list[dict[str, Any]]:
    dumps = []
    for path in sorted((WORK / "dumps" / name).glob("*.json.gz")):
        with gzip.open(path, "rt") as fh:
            dumps.append(json.load(fh))
    return dumps


@dataclass(frozen=True)
class Replay:
    """One query's candidates, enough to rank them under any dense weight."""

    repo: str
    query: str
    language: str  # the documented definition's
    cosine: np.ndarray  # (n,) each candidate's cosine, or the dense side's floor
    bm25: np.ndarray  # (n,) its BM25 over the query's best, or the lexical side's floor
    test: np.ndarray  # (n,) bool: a test unit that a descriptive query demotes
    hit: np.ndarray  # (n,) bool: the documented definition under the tight rule
    signals: tuple[float, ...]


def replays(dumps: Sequence[dict[str, Any]]) -> list[Replay]:
    out = []
    for dump in dumps:
        units = dump["units"]
        for record in dump["queries"]:
            dense = [(int(i), s) for i, s in record["dense"]]
            lexical = [(int(i), s) for i, s in record["lexical"]]
            items = list(dict.fromkeys([i for i, _ in dense] + [i for i, _ in lexical]))
            best = lexical[0][1] if lexical else 1.0
            cos_floor = dense[-1][1] if len(dense) >= CANDIDATES else 0.0
            bm_floor = lexical[-1][1] / best if len(lexical) >= CANDIDATES else 0.0
            cosines, bm25 = dict(dense), {i: s / best for i, s in lexical}
            target = EvalQuery(record["query"], **record["target"])
            demote = is_descriptive(record["query"])
            out.append(Replay(
                dump["repo"],
                record["query"],
                detect_language(target.path),
                np.array([cosines.get(i, cos_floor) for i in items]),
                np.array([bm25.get(i, bm_floor) for i in items]),
                np.array([demote and units[str(i)][5] for i in items], dtype=bool),
                np.array([_tight_hit(target, units[str(i)]) for i in items], dtype=bool),
                signals(dense, lexical, record["terms"]),
            ))
    return out


def _tight_hit(target: EvalQuery, unit: list[Any]) -> bool:
    path, start, end, _, _, _, head = unit
    if start < target.start_line - HEAD_LINES:
        return False  # more lines above the definition than were kept: an outline
    return is_hit(TIGHT, target, path, start, end, head)


def reciprocal_rank(replay: Replay, weight: float) -> float:
    """The query's RR@10 when fused with this dense weight, tests demoted as search does."""
    scores = weight * replay.cosine + (1 - weight) * replay.bm25
    scores = np.where(replay.test, scores - (1 - TEST_FACTOR) * np.abs(scores), scores)
    order = np.argsort(-scores, kind="stable")[:CUTOFF]
    found = np.flatnonzero(replay.hit[order])
    return 1.0 / (found[0] + 1) if found.size else 0.0


GRID = np.linspace(0.0, 1.0, 21)


def rr_table(queries: Sequence[Replay]) -> np.ndarray:
    """(queries, len(GRID)) each query's RR@10 at each dense weight of GRID."""
    return np.array([[reciprocal_rank(r, w) for w in GRID] for r in queries])


@dataclass(frozen=True)
class Model:
    centre: np.ndarray  # (f,)
    scale: np.ndarray  # (f,)
    coefficients: np.ndarray  # (f,)
    intercept: float

    def weights(self, x: np.ndarray) -> np.ndarray:
        """(q,) the dense weight of each row of ``x`` (q, f), as fusion_rule computes it."""
        z = self.intercept + ((x - self.centre) / self.scale) @ self.coefficients
        return LOWEST + (HIGHEST - LOWEST) / (1 + np.exp(-np.clip(z, -30, 30)))


def expected_rr(table: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each query's RR@10 linearly interpolated between GRID's weights, and its slope:
    a smooth stand-in for the step function the ranks make, so the fit can climb it."""
    step = GRID[1] - GRID[0]
    pos = np.clip((weights - GRID[0]) / step, 0, len(GRID) - 1 - 1e-9)
    left = pos.astype(int)
    frac = pos - left
    rows = np.arange(len(weights))
    low, high = table[rows, left], table[rows, left + 1]
    return low + frac * (high - low), (high - low) / step


def fit(x: np.ndarray, table: np.ndarray, languages: np.ndarray, l2: float = 1e-3,
        steps: int = 3000, rate: float = 0.5) -> Model:
    """The logistic weight rule that maximises the training queries' mean (smoothed)
    RR@10, L2-penalised, by gradient ascent from the fixed weight DENSE_WEIGHT.

    Each language weighs the same in the mean, whatever its number of queries: the
    standard library alone holds more queries than the other languages together, and
    a rule fitted on the queries as they come gave TypeScript and Rust what suits Python."""
    centre, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
    z = (x - centre) / scale  # (q, f)
    counts = {language: int((languages == language).sum()) for language in set(languages)}
    share_of = np.array([len(languages) / (len(counts) * counts[lang]) for lang in languages])
    share = (DENSE_WEIGHT - LOWEST) / (HIGHEST - LOWEST)
    theta = np.zeros(x.shape[1])
    bias = float(np.log(share / (1 - share)))
    for _ in range(steps):
        p = 1 / (1 + np.exp(-np.clip(bias + z @ theta, -30, 30)))  # (q,)
        _, slope = expected_rr(table, LOWEST + (HIGHEST - LOWEST) * p)
        grad = share_of * slope * (HIGHEST - LOWEST) * p * (1 - p)  # d RR / d logit, (q,)
        theta += rate * (z.T @ grad / len(grad) - l2 * theta)
        bias += rate * float(grad.mean())
    return Model(centre, scale, theta, bias)


def run_fit(names: Sequence[str], l2: float) -> None:
    """Fit on the training dumps; print the numbers for fusion_rule, with a leave-one-
    repository-out check (each repository scored by a rule fitted without it), and write
    bench/results/adaptive_fusion_fit.{md,json}."""
    queries = [r for name in names for r in replays(load(name))]
    x = np.array([r.signals for r in queries])
    table = rr_table(queries)
    repos = np.array([r.repo for r in queries])
    languages = np.array([r.language for r in queries])
    sweep = GRID >= LOWEST
    rows: list[dict[str, Any]] = []
    held = np.zeros(len(queries))
    for repo in sorted(set(repos)):
        inside = repos != repo
        model = fit(x[inside], table[inside], languages[inside], l2)
        held[~inside] = [reciprocal_rank(queries[i], w)
                         for i, w in zip(np.flatnonzero(~inside), model.weights(x[~inside]),
                                         strict=True)]
        rows.append(_fit_row(repo, table[~inside], held[~inside], sweep))
    for language in sorted(set(languages)):
        inside = languages == language
        rows.append(_fit_row(f"{language} pooled", table[inside], held[inside], sweep))
    rows.append(_fit_row("pooled", table, held, sweep))
    model = fit(x, table, languages, l2)
    numbers = {"CENTRE": _numbers(model.centre), "SCALE": _numbers(model.scale),
               "COEFFICIENTS": _numbers(model.coefficients),
               "INTERCEPT": f"{model.intercept:.4g}"}
    weights = [f"{w:.2f}" for w in GRID[sweep]]
    lines = ["# Adaptive fusion: the fit (training sets only)", "",
             f"`python bench/adaptive_fusion.py fit {' '.join(names)} --l2 {l2}`: "
             f"{len(queries)} docstring queries, tight rule, MRR@10 replayed from each query's "
             "two candidate lists. Per repository: each fixed dense weight, and the "
             "per-query rule fitted WITHOUT that repository (leave one repository out); "
             "Δ: that rule minus the fixed DENSE_WEIGHT, paired bootstrap 95% CI.", "",
             f"| repository | queries | {' | '.join(weights)} | rule (held out) | Δ |",
             "|---|---|" + "---|" * (len(weights) + 2)]
    for row in rows:
        ci = "{:+.1f} [{:+.1f}, {:+.1f}]".format(*row["vs_fixed"])
        lines.append(f"| {row['repo']} | {row['queries']} | "
                     + " | ".join(f"{v:.1f}" for v in row["fixed"])
                     + f" | {row['rule']:.1f} | {ci} |")
    lines += ["", "Fitted on all of them (embedstore/retrieval/fusion_rule.py):", "",
              "```", *(f"{k} = {v}" for k, v in numbers.items()), "```"]
    print("\n".join(lines), flush=True)
    (BENCH / "results").mkdir(exist_ok=True)
    (BENCH / "results" / "adaptive_fusion_fit.json").write_text(json.dumps(
        {"sets": list(names), "l2": l2, "weights": GRID[sweep].tolist(), "rows": rows,
         "numbers": numbers}, indent=2) + "\n")
    (BENCH / "results" / "adaptive_fusion_fit.md").write_text("\n".join(lines) + "\n")


def _fit_row(repo: str, table: np.ndarray, rule: np.ndarray, sweep: np.ndarray
             ) -> dict[str, Any]:
    fixed = table[:, int(np.argmin(np.abs(GRID - DENSE_WEIGHT)))]
    return {"repo": repo, "queries": len(rule), "fixed": (100 * table.mean(0)[sweep]).tolist(),
            "rule": 100 * float(rule.mean()),
            "vs_fixed": [100 * v for v in paired_bootstrap_ci(rule.tolist(), fixed.tolist())]}


def _numbers(values: np.ndarray) -> str:
    return "(" + ", ".join(f"{v:.4g}" for v in values) + ")"


SYSTEMS = ("adaptive", "fixed", "dense", "lexical")


def system_rrs(queries: Sequence[Replay]) -> dict[str, list[float]]:
    """Per system, each query's RR@10: the per-query rule (fusion_rule's numbers), the fixed
    DENSE_WEIGHT, and each side alone (weight 1 and 0: the side's own order)."""
    return {
        "adaptive": [reciprocal_rank(r, query_weight(r.signals, r.query)) for r in queries],
        "fixed": [reciprocal_rank(r, DENSE_WEIGHT) for r in queries],
        "dense": [reciprocal_rank(r, 1.0) for r in queries],
        "lexical": [reciprocal_rank(r, 0.0) for r in queries],
    }


def report(names: Sequence[str]) -> None:
    rows: list[dict[str, Any]] = []
    for name in names:
        queries = replays(load(name))
        groups = [(repo, [r for r in queries if r.repo == repo])
                  for repo in sorted({r.repo for r in queries})]
        # A language pooled on its own where the set holds several with enough queries
        # (a Python package's two JavaScript queries are no figure).
        counts = Counter(r.language for r in queries)
        languages = sorted(lang for lang, n in counts.items() if n >= MIN_POOLED)
        if len(languages) > 1:
            groups += [(f"{language} pooled", [r for r in queries if r.language == language])
                       for language in languages]
        for repo, group in [*groups, (f"{name} pooled", queries)]:
            rr = system_rrs(group)
            row: dict[str, Any] = {"set": name, "repo": repo, "queries": len(group),
                                   **{s: 100 * float(np.mean(rr[s])) for s in SYSTEMS}}
            for other in ("dense", "lexical", "fixed"):
                row[f"vs_{other}"] = [100 * v for v in paired_bootstrap_ci(rr["adaptive"],
                                                                           rr[other])]
            rows.append(row)
            print(_line(row), flush=True)
    lines = ["# Adaptive fusion: per package", "",
             f"`python bench/adaptive_fusion.py report {' '.join(names)}` after `collect` of "
             "each set: each query's two candidate lists (100 each, the shipped default "
             "encoder, flat index) replayed through the fusion and the tests-last demotion; "
             "MRR@10 under the tight rule (the hit is the documented definition itself). "
             "adaptive: the per-query rule (embedstore/retrieval/fusion_rule.py); fixed: "
             f"one dense weight {DENSE_WEIGHT}; dense, lexical: each side alone. Δ: "
             "adaptive minus the other, paired bootstrap 95% CI over the package's queries.",
             "", "| set | package | queries | adaptive | fixed 0.8 | dense | lexical | "
             "Δ dense | Δ lexical | Δ fixed |", "|---|---|---|---|---|---|---|---|---|---|"]
    lines += [_line(r) for r in rows]
    (BENCH / "results").mkdir(exist_ok=True)
    (BENCH / "results" / "adaptive_fusion.json").write_text(
        json.dumps({"sets": list(names), "rows": rows}, indent=2) + "\n")
    (BENCH / "results" / "adaptive_fusion.md").write_text("\n".join(lines) + "\n")


def _line(row: dict[str, Any]) -> str:
    cis = " | ".join("{:+.1f} [{:+.1f}, {:+.1f}]".format(*row[f"vs_{o}"])
                     for o in ("dense", "lexical", "fixed"))
    return (f"| {row['set']} | {row['repo']} | {row['queries']} | {row['adaptive']:.1f} | "
            f"{row['fixed']:.1f} | {row['dense']:.1f} | {row['lexical']:.1f} | {cis} |")


def main() -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("name")
    c.add_argument("repos", nargs="*", type=Path)
    c.add_argument("--stdlib", action="store_true")
    c.add_argument("--max-queries", type=int, default=1000)
    c.add_argument("--reuse-from", type=Path)
    f = sub.add_parser("fit")
    f.add_argument("names", nargs="+")
    f.add_argument("--l2", type=float, default=1e-3)
    r = sub.add_parser("report")
    r.add_argument("names", nargs="+")
    args = parser.parse_args()
    if args.command == "report":
        report(args.names)
    elif args.command == "collect":
        repos = list(args.repos)
        if args.stdlib:
            repos.append(_stdlib_held_out())
        collect(args.name, repos, args.max_queries, args.reuse_from)
    elif args.command == "fit":
        run_fit(args.names, args.l2)


def _stdlib_held_out() -> Path:
    from stdlib_corpus import stdlib_held_out

    return stdlib_held_out(WORK / "stdlib-held", BENCH / "work" / "Lib")


if __name__ == "__main__":
    main()
