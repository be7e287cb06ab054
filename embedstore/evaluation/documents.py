"""`eval --task documents`: do headings and first sentences find their sections?

Each corpus (a folder of documents: HTML pages, PDFs...) is copied with the sampled
sections' first sentences removed (:mod:`embedstore.evaluation.document_cases`), indexed
once, and every query is asked in each mode. A hit is a result of the section's file whose
lines overlap the section's (for a PDF: the section on the outline's page and the pages
it goes on to). MRR@10 and Recall@10 per corpus, query kind and mode; hybrid is compared
with each baseline (BM25 alone, dense alone) by a paired bootstrap over the same queries.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from embedstore.errors import UserInputError
from embedstore.evaluation.bootstrap import paired_bootstrap_ci, reciprocal_ranks
from embedstore.evaluation.document_cases import QUERY_KINDS, DocumentCase, build_cases
from embedstore.evaluation.metrics import CUTOFF, rank_metrics
from embedstore.evaluation.runner import POOLED, _unique_name, _workspace
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.progress import NullProgress, Progress
from embedstore.retrieval.search import SEARCH_MODES, SearchResult, search
from embedstore.store import db
from embedstore.store.collection import Collection
from embedstore.store.store import Store

DEFAULT_MAX_QUERIES = 300
HYBRID = "hybrid"
ALL_KINDS = "all"


@dataclass(frozen=True)
class DocumentRow:
    corpus: str  # a corpus's folder name, or "pooled"
    kind: str  # a query kind, or "all"
    mode: str
    queries: int
    metrics: dict[str, float]
    ms_per_query: float
    # Paired bootstrap 95% CI of hybrid's MRR@10 minus this row's (points): above zero,
    # hybrid is better than this baseline. None on hybrid's own row.
    hybrid_gain: tuple[float, float, float] | None = None


@dataclass(frozen=True)
class CorpusStats:
    corpus: str
    files: int
    units: int
    chunks: int
    cases: dict[str, int]  # per query kind
    unlocated: int  # sampled cases the reader's text did not show (see document_cases)
    index_seconds: float


@dataclass
class DocumentReport:
    corpora: list[str]
    encoder: str
    seed: int
    max_queries: int | None
    max_files: int | None
    stats: list[CorpusStats] = field(default_factory=list)
    rows: list[DocumentRow] = field(default_factory=list)


def check_modes(modes: Sequence[str]) -> None:
    """Raise ValueError for a mode search does not know, before anything is indexed."""
    for mode in modes:
        if mode not in SEARCH_MODES:
            raise ValueError(f"unknown mode {mode!r}; valid modes: {', '.join(SEARCH_MODES)}")


def run_documents(
    corpora: Path | Sequence[Path],
    *,
    encoder: str | None = None,
    seed: int = 0,
    max_queries: int | None = DEFAULT_MAX_QUERIES,
    max_files: int | None = None,
    modes: Sequence[str] = SEARCH_MODES,
    per_query: Path | None = None,
    work: Path | None = None,
    progress: Progress | None = None,
) -> DocumentReport:
    """Score each mode on each corpus, and pooled over them (every query weighs the same).

    ``max_queries`` caps each query kind per corpus, ``max_files`` the documents indexed
    per corpus (a seeded sample). ``work`` keeps the copies and their collections, so a
    second run encodes nothing new. ``per_query``: a JSONL file of every query's rank.
    """
    paths = [Path(corpora)] if isinstance(corpora, str | Path) else [Path(p) for p in corpora]
    if not paths:
        raise UserInputError("no folder of documents to evaluate")
    check_modes(modes)
    ui = progress or NullProgress()
    report = DocumentReport([str(p) for p in paths], "", seed, max_queries, max_files)
    ranks: dict[tuple[str, str, str], list[int | None]] = {}
    seconds: dict[tuple[str, str, str], float] = {}
    lines: list[dict[str, object]] = []
    with _workspace(work) as space:
        for root in paths:
            name = _unique_name(root, paths)
            copy = space / name / "corpus"
            mined = build_cases(root, copy, seed=seed, max_queries=max_queries,
                                max_files=max_files)
            if not mined.cases:
                raise UserInputError(
                    f"no HTML heading or PDF outline entry in {root} gives a query (a heading "
                    "found once in the folder, or a first sentence of "
                    "enough words): nothing to evaluate"
                )
            began = time.perf_counter()
            store = Store(space / name / "store")
            index_folder(store, copy, IndexOptions(name="documents", encoder=encoder), ui)
            collection = store.open("documents")
            report.encoder = collection.manifest.encoder
            _, units, chunks = db.counts(collection.conn)
            report.stats.append(CorpusStats(
                name, mined.files, units, chunks,
                {k: sum(c.kind == k for c in mined.cases) for k in QUERY_KINDS},
                mined.unlocated, time.perf_counter() - began,
            ))
            for mode in modes:
                for case, (rank, first, took) in zip(
                    mined.cases, _score(collection, mined.cases, mode, ui), strict=True
                ):
                    for key in _keys(name, case.kind, mode):
                        ranks.setdefault(key, []).append(rank)
                        seconds[key] = seconds.get(key, 0.0) + took
                    lines.append({"corpus": name, "mode": mode, "kind": case.kind,
                                  "query": case.query, "path": case.path,
                                  "title": case.title, "location": case.location,
                                  "rank": rank, "first": first})
            collection.close()
    scopes = [s.corpus for s in report.stats] + ([POOLED] if len(paths) > 1 else [])
    report.rows = _rows(ranks, seconds, scopes, modes, seed)
    if per_query is not None:
        per_query.parent.mkdir(parents=True, exist_ok=True)
        per_query.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return report


def rank_of(hits: Sequence[SearchResult], case: DocumentCase) -> int | None:
    """1-based rank of the first hit in the case's file whose lines overlap its section."""
    for rank, hit in enumerate(hits, start=1):
        if hit.path == case.path and any(
            hit.start_line <= last and hit.end_line >= first for first, last in case.spans
        ):
            return rank
    return None


def _keys(corpus: str, kind: str, mode: str) -> list[tuple[str, str, str]]:
    """The rows a query counts in: its corpus and the pool, its kind and all kinds."""
    return [(scope, k, mode) for scope in (corpus, POOLED) for k in (kind, ALL_KINDS)]


def _score(
    collection: Collection, cases: Sequence[DocumentCase], mode: str, ui: Progress
) -> list[tuple[int | None, str, float]]:
    """Per case in ``mode``: its rank, what came first, and the seconds the search took."""
    stage = f"documents / {mode}"
    ui.start(stage, len(cases))
    scored = []
    for case in cases:
        began = time.perf_counter()
        hits = search(collection, case.query, CUTOFF, mode=mode)
        took = time.perf_counter() - began
        scored.append((rank_of(hits, case), hits[0].location if hits else "", took))
        ui.advance(stage)
    ui.finish(stage)
    return scored


def _rows(
    ranks: dict[tuple[str, str, str], list[int | None]], seconds: dict[tuple[str, str, str], float],
    scopes: Sequence[str], modes: Sequence[str], seed: int,
) -> list[DocumentRow]:
    rows = []
    for scope in scopes:
        for kind in (*QUERY_KINDS, ALL_KINDS):
            for mode in modes:
                mine = ranks.get((scope, kind, mode))
                if not mine:
                    continue
                gain = None
                hybrid = ranks.get((scope, kind, HYBRID))
                if mode != HYBRID and hybrid is not None:
                    diff = paired_bootstrap_ci(
                        reciprocal_ranks(hybrid, CUTOFF), reciprocal_ranks(mine, CUTOFF),
                        seed=seed,
                    )
                    gain = (100 * diff[0], 100 * diff[1], 100 * diff[2])
                rows.append(DocumentRow(
                    scope, kind, mode, len(mine), rank_metrics(mine),
                    1000 * seconds[(scope, kind, mode)] / len(mine), gain,
                ))
    return rows


def markdown_report(report: DocumentReport) -> str:
    """The report as markdown: what was indexed, then MRR@10 / Recall@10 per corpus and kind."""
    out = [
        f"Encoder {report.encoder}, seed {report.seed}, up to {report.max_queries or 'all'} "
        f"queries per kind and corpus, up to {report.max_files or 'all'} documents per corpus.",
        "",
        "| corpus | documents | units | chunks | heading queries | sentence queries "
        "| unlocated | index s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for s in report.stats:
        out.append(
            f"| {s.corpus} | {s.files:,} | {s.units:,} | {s.chunks:,} | "
            f"{s.cases.get('heading', 0)} | {s.cases.get('sentence', 0)} | {s.unlocated} | "
            f"{s.index_seconds:.0f} |"
        )
    out += [
        "",
        "| corpus | queries | n | mode | MRR@10 | Recall@10 | hybrid gain [95% CI] | ms/q |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in report.rows:
        gain = "-" if r.hybrid_gain is None else (
            f"{r.hybrid_gain[0]:+.1f} [{r.hybrid_gain[1]:+.1f}, {r.hybrid_gain[2]:+.1f}]"
        )
        out.append(
            f"| {r.corpus} | {r.kind} | {r.queries} | {r.mode} | "
            f"{r.metrics[f'mrr@{CUTOFF}']:.1f} | {r.metrics[f'recall@{CUTOFF}']:.1f} | "
            f"{gain} | {r.ms_per_query:.0f} |"
        )
    return "\n".join(out) + "\n"
