"""Search a collection: dense, lexical (BM25) or both fused by reciprocal rank."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from embedstore.errors import UserInputError
from embedstore.filters import SearchFilters
from embedstore.fusion import RRF_K, reciprocal_rank_fusion
from embedstore.lexical import fts_query, looks_like_code
from embedstore.store import db

if TYPE_CHECKING:
    from embedstore.store.collection import Collection

SEARCH_MODES = ("hybrid", "dense", "lexical")
MAX_K = 1000
# In hybrid mode each side fetches this many times k (at least MIN_SIDE_FETCH),
# so that an item ranked low by one side can still be lifted by the other.
SIDE_FETCH_FACTOR = 4
MIN_SIDE_FETCH = 50
# RRF weight of the lexical side when the query names code (see looks_like_code).
CODE_QUERY_LEXICAL_WEIGHT = 2.0


@dataclass(frozen=True)
class SearchResult:
    """One hit: a chunk with its place in the source and its scores.

    ``score`` is what ranked it: cosine similarity (dense), BM25 (lexical) or
    the RRF sum (hybrid). ``dense_score``/``lexical_score`` say which side found
    it, and how well; None means that side did not return it.
    """

    chunk_id: int
    path: str
    start_line: int
    end_line: int
    language: str
    score: float
    text: str
    symbol: str | None = None
    dense_score: float | None = None
    lexical_score: float | None = None
    document_id: str | None = None  # set for documents pushed by id, None for files

    @property
    def location(self) -> str:
        return f"{self.path}:{self.start_line}-{self.end_line}"

    @property
    def found_by(self) -> str:
        sides = [name for name, s in (("dense", self.dense_score), ("lexical", self.lexical_score))
                 if s is not None]
        return "+".join(sides)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "found_by": self.found_by}


def check_search_args(query: str, k: int, mode: str) -> None:
    if mode not in SEARCH_MODES:
        raise ValueError(f"unknown search mode {mode!r}; valid modes: {', '.join(SEARCH_MODES)}")
    if not 1 <= k <= MAX_K:
        raise ValueError(f"k must be between 1 and {MAX_K}, got {k}")
    if not query.strip():
        raise UserInputError("the query is empty: say what you are looking for")


def search(
    collection: Collection,
    query: str,
    k: int = 10,
    *,
    mode: str = "hybrid",
    filters: SearchFilters | None = None,
    nprobe: int | None = None,
    rrf_k: int = RRF_K,
    query_vector: np.ndarray | None = None,
) -> list[SearchResult]:
    """The k best chunks for a query, filters applied to both sides before fusion.

    ``query_vector`` (1, d) is the query already encoded, e.g. by a batcher that
    encodes many clients' queries together.
    """
    check_search_args(query, k, mode)
    rules = filters or SearchFilters()
    file_ids = allowed_file_ids(collection, rules)
    fetch = k if mode != "hybrid" else max(k * SIDE_FETCH_FACTOR, MIN_SIDE_FETCH)
    dense, lexical = [], []
    if mode != "lexical":
        vector = query_vector
        if vector is None:
            vector = collection.encoder.encode([query], kind="query")  # (1, d)
        dense = dense_hits(collection, vector, fetch, rules, file_ids, nprobe)
    if mode != "dense":
        lexical = lexical_hits(collection, query, fetch, file_ids)
    dense_scores, lexical_scores = dict(dense), dict(lexical)
    if mode == "dense":
        ranked = dense
    elif mode == "lexical":
        ranked = lexical
    else:
        lexical_weight = CODE_QUERY_LEXICAL_WEIGHT if looks_like_code(query) else 1.0
        ranked = reciprocal_rank_fusion(
            [[i for i, _ in dense], [i for i, _ in lexical]], rrf_k, weights=(1.0, lexical_weight)
        )
    top = ranked[:k]
    rows = db.chunk_rows(collection.conn, [i for i, _ in top])
    return [
        SearchResult(
            chunk_id=r.id, path=r.path, start_line=r.start_line, end_line=r.end_line,
            language=r.language, score=score, text=r.text, symbol=r.symbol,
            dense_score=dense_scores.get(r.id), lexical_score=lexical_scores.get(r.id),
            document_id=r.doc_id,
        )
        for chunk_id, score in top
        if (r := rows.get(chunk_id)) is not None
    ]


def allowed_file_ids(collection: Collection, filters: SearchFilters) -> list[int] | None:
    """Ids of the files the filters let through; None when they let everything through."""
    if not filters.restricts_files:
        return None
    return [
        file_id
        for file_id, path, language in db.file_filter_rows(collection.conn)
        if filters.allows(path, language)
    ]


def dense_hits(
    collection: Collection,
    query_vector: np.ndarray,
    k: int,
    filters: SearchFilters,
    file_ids: list[int] | None,
    nprobe: int | None,
) -> list[tuple[int, float]]:
    """(chunk id, cosine) best first, restricted inside FAISS to the allowed chunks."""
    subset = None if file_ids is None else db.chunk_ids_of_files(collection.conn, file_ids)
    if subset is not None and subset.size == 0:
        return []
    scores, ids = collection.search_vectors(
        query_vector, k, nprobe=nprobe, subset=subset
    )  # (1, k)
    floor = filters.min_score
    return [
        (int(i), float(s))
        for i, s in zip(ids[0], scores[0], strict=True)
        if i >= 0 and (floor is None or s >= floor)
    ]


def lexical_hits(
    collection: Collection, query: str, k: int, file_ids: list[int] | None
) -> list[tuple[int, float]]:
    """(chunk id, BM25) best first over code-aware terms."""
    match = fts_query(query)
    if match is None or file_ids == []:
        return []
    return db.lexical_search(collection.conn, match, k, file_ids)
