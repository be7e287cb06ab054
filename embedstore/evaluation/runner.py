"""Run the retrieval benchmark: every search mode on every index kind."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from embedstore.errors import UserInputError
from embedstore.evaluation.dataset import MIN_WORDS, EvalQuery, build_corpus
from embedstore.evaluation.metrics import CUTOFF, rank_metrics
from embedstore.indexing import IndexOptions, index_folder, prepare_collection, reuse_vectors
from embedstore.progress import NullProgress, Progress
from embedstore.search import SEARCH_MODES, SearchResult
from embedstore.store.collection import Collection
from embedstore.store.store import Store

DEFAULT_INDEX_KINDS = ("flat", "ivfpq")


@dataclass(frozen=True)
class EvalRow:
    mode: str
    index_kind: str
    header: bool
    metrics: dict[str, float]
    ms_per_query: float


@dataclass
class EvalReport:
    repo: str
    encoder: str
    seed: int
    queries: int
    chunks: int
    rows: list[EvalRow] = field(default_factory=list)
    index_seconds: float = 0.0


def rank_of(hits: Sequence[SearchResult], target: EvalQuery) -> int | None:
    """1-based rank of the first hit overlapping the target function's lines."""
    for rank, hit in enumerate(hits, start=1):
        if (
            hit.path == target.path
            and hit.start_line <= target.end_line
            and hit.end_line >= target.start_line
        ):
            return rank
    return None


def run_eval(
    repo: Path,
    *,
    encoder: str | None = None,
    seed: int = 0,
    max_queries: int | None = 1000,
    modes: Sequence[str] = SEARCH_MODES,
    index_kinds: Sequence[str] = DEFAULT_INDEX_KINDS,
    header_variants: Sequence[bool] = (True,),
    progress: Progress | None = None,
    reuse: Collection | None = None,
) -> EvalReport:
    """Index a docstring-stripped copy of ``repo`` and score each configuration.

    ``reuse``: a collection of the same repository and encoder (as `embedstore
    index` built it) whose vectors serve every chunk the stripping left
    unchanged, so only the stripped functions are encoded.
    """
    ui = progress or NullProgress()
    with tempfile.TemporaryDirectory(prefix="embedstore-eval-") as tmp:
        corpus = Path(tmp) / "corpus"
        queries = build_corpus(Path(repo), corpus, seed=seed, max_queries=max_queries)
        if not queries:
            raise UserInputError(
                f"no Python function in {repo} has a docstring whose first sentence has "
                f"{MIN_WORDS} or more words: nothing to evaluate"
            )
        store = Store(Path(tmp) / "store")
        report = EvalReport(str(repo), "", seed, len(queries), 0)
        for header in header_variants:
            name = "with-header" if header else "without-header"
            for kind in index_kinds:
                began = time.perf_counter()
                options = IndexOptions(
                    name=name, encoder=encoder, index_kind=kind, embed_header=header
                )
                if reuse is not None and header and not store.exists(name):
                    reuse_vectors(reuse, prepare_collection(store, name, options)[0])
                indexed = index_folder(store, corpus, options, ui)
                report.index_seconds += time.perf_counter() - began
                report.chunks = indexed.chunks_total
                collection = store.open(name)
                report.encoder = collection.manifest.encoder
                for mode in modes:
                    report.rows.append(_score(collection, queries, mode, kind, header, ui))
                collection.close()
        return report


def _score(
    collection: Collection, queries: list[EvalQuery], mode: str, kind: str, header: bool,
    ui: Progress,
) -> EvalRow:
    stage = f"{mode} / {kind}"
    ui.start(stage, len(queries))
    began = time.perf_counter()
    ranks = []
    for q in queries:
        ranks.append(rank_of(collection.search(q.query, CUTOFF, mode=mode), q))
        ui.advance(stage)
    elapsed = time.perf_counter() - began
    ui.finish(stage)
    return EvalRow(mode, kind, header, rank_metrics(ranks), 1000 * elapsed / len(queries))
