"""Run the retrieval benchmark over one or more repositories, each mode on each index kind."""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from embedstore.errors import UserInputError
from embedstore.evaluation.baseline import whole_definition_ranks
from embedstore.evaluation.bootstrap import paired_bootstrap_ci, reciprocal_ranks
from embedstore.evaluation.dataset import MIN_WORDS, EvalQuery, build_corpus
from embedstore.evaluation.hit_rules import CONTAINS, OVERLAP, TIGHT, is_hit
from embedstore.evaluation.metrics import CUTOFF, rank_metrics
from embedstore.ingest.indexer import IndexOptions, index_folder, prepare_collection, reuse_vectors
from embedstore.progress import NullProgress, Progress
from embedstore.retrieval.search import SEARCH_MODES, SearchResult, search
from embedstore.store import db
from embedstore.store.collection import Collection
from embedstore.store.store import Store

DEFAULT_INDEX_KINDS = ("flat", "ivfpq")
DEFAULT_MODE = "hybrid"
# The row of one vector per whole definition, no splitting, no BM25 (dense, exact).
BASELINE = "whole-definition dense"
POOLED = "pooled"


@dataclass(frozen=True)
class EvalRow:
    repo: str  # a repository's name, or "pooled"
    mode: str  # a search mode, or BASELINE
    index_kind: str
    header: bool
    queries: int
    metrics: dict[str, float]
    ms_per_query: float
    # MRR@10 on queries whose function the chunker split into pieces, and on the rest.
    split_mrr: float | None = None
    whole_mrr: float | None = None
    # Paired bootstrap 95% CI of this row's MRR@10 minus the default mode's (points).
    vs_default: tuple[float, float, float] | None = None
    # Strict: MRR@10 under the rule before issue 33 (the hit's lines contain the def line),
    # beside the tight rule's metrics, for comparison.
    contains_mrr: float | None = None


@dataclass
class EvalReport:
    repos: list[str]
    encoder: str
    seed: int
    strict: bool
    rule: str = OVERLAP  # the hit rule of the metrics: tight when strict
    queries: int = 0
    units: int = 0
    chunks: int = 0
    split_queries: int = 0
    rows: list[EvalRow] = field(default_factory=list)
    index_seconds: float = 0.0


@dataclass
class _Scored:
    """Per-query outcome of one configuration over every repository, for pooling."""

    ranks: list[int | None] = field(default_factory=list)
    contains: list[int | None] = field(default_factory=list)  # ranks under the contains rule
    split: list[bool] = field(default_factory=list)
    seconds: float = 0.0
    firsts: list[str] = field(default_factory=list)  # what ranked first, per query


def rank_of(hits: Sequence[SearchResult], target: EvalQuery, rule: str) -> int | None:
    """1-based rank of the first hit for the target function under a hit rule
    (:mod:`embedstore.evaluation.hit_rules`)."""
    for rank, hit in enumerate(hits, start=1):
        if is_hit(rule, target, hit.path, hit.start_line, hit.end_line, hit.text):
            return rank
    return None


def run_eval(
    repos: Path | Sequence[Path],
    *,
    encoder: str | None = None,
    seed: int = 0,
    max_queries: int | None = 1000,
    modes: Sequence[str] = SEARCH_MODES,
    index_kinds: Sequence[str] = DEFAULT_INDEX_KINDS,
    header_variants: Sequence[bool] = (True,),
    strict: bool = False,
    baseline: bool = True,
    per_query: Path | None = None,
    work: Path | None = None,
    progress: Progress | None = None,
    reuse: Collection | None = None,
) -> EvalReport:
    """Index a docstring-stripped copy of each repository and score each configuration.

    Every repository is scored on its own and, when there are several, pooled
    (every query weighs the same). ``work`` keeps the stripped copies and their
    collections between runs, so a second run encodes only what changed.
    ``reuse``: a collection of the (single) repository and encoder whose
    vectors serve every chunk the stripping left unchanged. ``per_query``:
    a JSONL file with each query's rank per configuration and what came first.
    """
    paths = [Path(repos)] if isinstance(repos, str | Path) else [Path(p) for p in repos]
    if not paths:
        raise UserInputError("no repository to evaluate")
    if reuse is not None and len(paths) > 1:
        raise UserInputError("--reuse serves one repository; evaluate the others without it")
    ui = progress or NullProgress()
    report = EvalReport([str(p) for p in paths], "", seed, strict, TIGHT if strict else OVERLAP)
    pooled: dict[tuple[str, str, bool], _Scored] = {}
    lines: list[dict[str, object]] = []
    with _workspace(work) as space:
        for repo in paths:
            name = _unique_name(repo, paths)
            corpus = space / name / "corpus"
            queries = build_corpus(repo, corpus, seed=seed, max_queries=max_queries)
            if not queries:
                raise UserInputError(
                    f"no function in {repo} has a docstring or doc comment (Python, JSDoc, "
                    "Javadoc, KDoc, Scaladoc, PHPDoc, ///, Go) whose first sentence has "
                    f"{MIN_WORDS} or more words: nothing to evaluate"
                )
            report.queries += len(queries)
            store = Store(space / name / "store")
            for header in header_variants:
                for kind in index_kinds:
                    collection = _index(store, corpus, header, kind, encoder, reuse, report, ui)
                    split = _split_flags(collection, queries)
                    if header and kind == index_kinds[0]:
                        _count(report, collection, split)
                    configs = [(m, kind, header) for m in modes]
                    if baseline and kind == index_kinds[0]:
                        configs.append((BASELINE, "flat", header))
                    for config in configs:
                        scored = _score(collection, queries, config[0], report.rule, ui)
                        report.rows.append(_row(name, config, scored, split))
                        total = pooled.setdefault(config, _Scored())
                        total.ranks += scored.ranks
                        total.contains += scored.contains
                        total.split += split
                        total.seconds += scored.seconds
                        lines += _per_query_lines(name, config, queries, scored, split)
                    collection.close()
        if len(paths) > 1:
            report.rows += [_row(POOLED, c, s, s.split) for c, s in pooled.items()]
    _add_intervals(report, pooled)
    if per_query is not None:
        _write_per_query(per_query, lines)
    return report


@contextmanager
def _workspace(work: Path | None) -> Iterator[Path]:
    if work is not None:
        work.mkdir(parents=True, exist_ok=True)
        yield work
        return
    with tempfile.TemporaryDirectory(prefix="embedstore-eval-") as tmp:
        yield Path(tmp)


def _unique_name(repo: Path, paths: Sequence[Path]) -> str:
    """The repository's folder name, numbered when two repositories share it."""
    same = [p for p in paths if p.name == repo.name]
    return repo.name if len(same) == 1 else f"{repo.name}-{same.index(repo) + 1}"


def _index(
    store: Store, corpus: Path, header: bool, kind: str, encoder: str | None,
    reuse: Collection | None, report: EvalReport, ui: Progress,
) -> Collection:
    name = "with-header" if header else "without-header"
    options = IndexOptions(name=name, encoder=encoder, index_kind=kind, embed_header=header)
    began = time.perf_counter()
    if reuse is not None and header and not store.exists(name):
        reuse_vectors(reuse, prepare_collection(store, name, options)[0])
    index_folder(store, corpus, options, ui)
    report.index_seconds += time.perf_counter() - began
    collection = store.open(name)
    report.encoder = collection.manifest.encoder
    return collection


def _split_flags(collection: Collection, queries: Sequence[EvalQuery]) -> list[bool]:
    """Per query: was its function cut into more than one chunk?"""
    return [db.pieces_at(collection.conn, q.path, q.def_line) > 1 for q in queries]


def _count(report: EvalReport, collection: Collection, split: Sequence[bool]) -> None:
    _, units, chunks = db.counts(collection.conn)
    report.units += units
    report.chunks += chunks
    report.split_queries += sum(split)


def _score(
    collection: Collection, queries: Sequence[EvalQuery], mode: str, rule: str, ui: Progress
) -> _Scored:
    """Each query's rank under ``rule`` and, when that is tight, under the contains rule."""
    stage = f"{mode} / {collection.manifest.index.get('kind', '')}"
    ui.start(stage, len(queries))
    began = time.perf_counter()
    rules = (rule, CONTAINS) if rule == TIGHT else (rule,)
    if mode == BASELINE:
        ranks, firsts = whole_definition_ranks(collection, queries, rules)
        ui.advance(stage, len(queries))
    else:
        ranks, firsts = {r: [] for r in rules}, []
        for q in queries:
            hits = search(collection, q.query, CUTOFF, mode=mode)
            for r in rules:
                ranks[r].append(rank_of(hits, q, r))
            firsts.append(f"{hits[0].location} {hits[0].symbol or ''}".strip() if hits else "")
            ui.advance(stage)
    ui.finish(stage)
    return _Scored(ranks[rule], ranks.get(CONTAINS, []), [], time.perf_counter() - began, firsts)


def _row(
    repo: str, config: tuple[str, str, bool], scored: _Scored, split: Sequence[bool]
) -> EvalRow:
    mode, kind, header = config
    ranks = scored.ranks
    rr = reciprocal_ranks(ranks, CUTOFF)
    on_split = [r for r, s in zip(rr, split, strict=True) if s]
    on_whole = [r for r, s in zip(rr, split, strict=True) if not s]
    return EvalRow(
        repo, mode, kind, header, len(ranks), rank_metrics(ranks),
        1000 * scored.seconds / len(ranks),
        100 * sum(on_split) / len(on_split) if on_split else None,
        100 * sum(on_whole) / len(on_whole) if on_whole else None,
        contains_mrr=rank_metrics(scored.contains)[f"mrr@{CUTOFF}"] if scored.contains else None,
    )


def _add_intervals(report: EvalReport, pooled: dict[tuple[str, str, bool], _Scored]) -> None:
    """Each pooled (or single-repo) row's MRR@10 difference from the default mode, with CI."""
    scope = POOLED if len(report.repos) > 1 else None
    rows = []
    for row in report.rows:
        if scope is not None and row.repo != scope:
            rows.append(row)
            continue
        default = pooled.get((DEFAULT_MODE, row.index_kind, row.header))
        if default is None or row.mode == DEFAULT_MODE:
            rows.append(row)
            continue
        mine = pooled[(row.mode, row.index_kind if row.mode != BASELINE else "flat", row.header)]
        diff = paired_bootstrap_ci(
            reciprocal_ranks(mine.ranks, CUTOFF), reciprocal_ranks(default.ranks, CUTOFF),
            seed=report.seed,
        )
        rows.append(_with_interval(row, tuple(100 * x for x in diff)))
    report.rows = rows


def _with_interval(row: EvalRow, ci: tuple[float, ...]) -> EvalRow:
    return EvalRow(**{**row.__dict__, "vs_default": (ci[0], ci[1], ci[2])})


def _per_query_lines(
    repo: str, config: tuple[str, str, bool], queries: Sequence[EvalQuery], scored: _Scored,
    split: Sequence[bool],
) -> list[dict[str, object]]:
    mode, kind, header = config
    return [
        {"repo": repo, "mode": mode, "index": kind, "header": header, "query": q.query,
         "path": q.path, "def_line": q.def_line, "symbol": q.symbol, "split": s,
         "rank": r, **({"rank_contains": c} if scored.contains else {}), "first": f}
        for q, r, c, s, f in zip(queries, scored.ranks, scored.contains or [None] * len(queries),
                                 split, scored.firsts, strict=True)
    ]


def _write_per_query(path: Path, lines: Sequence[dict[str, object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        for line in lines:
            fh.write(json.dumps(line) + "\n")
