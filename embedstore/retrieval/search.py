"""Search a collection: dense, lexical (BM25) or both fused, one result per unit.

A unit is a whole definition, section or window (embedstore.chunking.units); both sides
rank units, so a result list never holds two pieces of one function. For a
unit the chunker had to split, the piece that matched best is reported as
``match_start_line``/``match_end_line``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from embedstore.chunking.markdown import PATH_SEPARATOR, SECTION_KIND
from embedstore.errors import UserInputError
from embedstore.lexical import fts_query, index_terms, query_terms
from embedstore.retrieval.banners_last import demote_banners
from embedstore.retrieval.declarations_last import demote_declarations, reads_as_action
from embedstore.retrieval.filters import SearchFilters
from embedstore.retrieval.fusion import fuse
from embedstore.retrieval.fusion_rule import weight_for
from embedstore.retrieval.members_first import class_header, members_first
from embedstore.retrieval.tests_last import demote_tests, is_descriptive
from embedstore.store import db

if TYPE_CHECKING:
    from embedstore.store.collection import Collection

SEARCH_MODES = ("hybrid", "dense", "lexical")
MAX_K = 1000
# Each side always ranks this many candidates (or k, when larger) before
# fusion, so the first results never depend on how many were asked for.
CANDIDATES = 100


@dataclass(frozen=True)
class SearchResult:
    """One hit: a whole unit with its place in the source and its scores.

    ``start_line``..``end_line`` is the whole unit (a definition from its first
    decorator or comment line); ``match_start_line``..``match_end_line`` the
    piece of it that matched best (the whole unit when it is one chunk).
    ``score`` is what ranked it: cosine similarity (dense), BM25 (lexical) or
    the fused score (hybrid). ``dense_score``/``lexical_score`` say which side
    found it, and how well; None means that side did not return it.
    """

    id: int
    path: str
    start_line: int
    end_line: int
    match_start_line: int
    match_end_line: int
    language: str
    kind: str
    score: float
    text: str
    symbol: str | None = None
    dense_score: float | None = None
    lexical_score: float | None = None
    document_id: str | None = None  # set for documents pushed by id, None for files
    collection: str = ""  # the collection it came from
    # Where it opens: the indexed folder joined with path (None for documents and
    # collections built from pushed documents only).
    abs_path: str | None = None
    # Where a unit of a PDF, slide deck, notebook or web page is in its file, as a URL
    # fragment ("page=12", "slide=7", "cell=5", an HTML id); None for code and text.
    anchor: str | None = None
    # A member's class's header line (`class PreparedRequest:`), when the class's outline
    # matched too and ranks after it (embedstore.retrieval.members_first); else None.
    owner_header: str | None = None
    # A section's headings, outermost first, its own last ("Tutorial > Classes > Private
    # Variables"); None for code.
    heading_path: str | None = None

    @property
    def location(self) -> str:
        """``path#page=12`` for a unit with an anchor, else ``path:start-end``."""
        if self.anchor:
            return f"{self.path}#{self.anchor}"
        return f"{self.path}:{self.start_line}-{self.end_line}"

    @property
    def found_by(self) -> str:
        sides = [name for name, s in (("dense", self.dense_score), ("lexical", self.lexical_score))
                 if s is not None]
        return "+".join(sides)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "found_by": self.found_by, "location": self.location}


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
    query_vector: np.ndarray | None = None,
) -> list[SearchResult]:
    """The k best units for a query, filters applied to both sides before fusion.

    ``query_vector`` (1, d) is the query already encoded, e.g. by a batcher that
    encodes many clients' queries together.
    """
    check_search_args(query, k, mode)
    rules = filters or SearchFilters()
    file_ids = allowed_file_ids(collection, rules)
    fetch = max(k, CANDIDATES)
    dense: list[tuple[int, float]] = []
    lexical: list[tuple[int, float]] = []
    vector = query_vector
    if mode != "lexical":
        if vector is None:
            vector = collection.query_encoder.encode([query], kind="query")  # (1, d)
        dense = dense_hits(collection, vector, fetch, rules, file_ids, nprobe)
    if mode != "dense":
        lexical = lexical_hits(collection, query, fetch, file_ids)
    if mode == "dense":
        ranked = dense
    elif mode == "lexical":
        ranked = lexical
    else:
        ranked = fuse(dense, lexical, fetch, weight_for(dense, lexical, query))
    rows = db.unit_rows(collection.conn, [i for i, _ in ranked])
    # A unit the vector index still holds may be gone from SQLite, the source of truth (a
    # watcher's update between the two reads): drop it before taking k, not after.
    ranked = demote_banners([(i, s) for i, s in ranked if i in rows], rows)
    if is_descriptive(query):
        ranked = demote_tests(ranked, rows)
    if reads_as_action(query):
        ranked = demote_declarations(ranked, rows)
    ranked, owners = members_first(ranked, rows, query)
    top = ranked[:k]
    headers = {m: class_header(rows[c]) for m, c in owners.items()}
    return _results(collection, top, dict(dense), dict(lexical), query, vector, rows, headers)


def _results(
    collection: Collection,
    top: Sequence[tuple[int, float]],
    dense_scores: dict[int, float],
    lexical_scores: dict[int, float],
    query: str,
    query_vector: np.ndarray | None,
    read: dict[int, db.UnitRow],
    owner_headers: dict[int, str] | None = None,
) -> list[SearchResult]:
    """The hits of ``top``; ``read``: rows already read (the rest are read here);
    ``owner_headers``: a member's class's header line, by the member's id."""
    ids = [i for i, _ in top]
    root = collection.manifest.source_root
    # A collection of one file has that file as its root.
    one_file = root is not None and Path(root).is_file()
    rows = read if all(i in read for i in ids) else db.unit_rows(collection.conn, ids)
    pieces = db.split_unit_pieces(collection.conn, ids)
    dim = collection.manifest.dim if pieces else 0
    results = []
    for unit_id, score in top:
        row = rows.get(unit_id)
        if row is None:  # deleted between the two reads
            continue
        match = (row.start_line, row.end_line)
        if unit_id in pieces:
            match = best_piece(pieces[unit_id], query, query_vector, dim)
        results.append(SearchResult(
            id=row.id, path=row.path, start_line=row.start_line, end_line=row.end_line,
            match_start_line=match[0], match_end_line=match[1], language=row.language,
            kind=row.kind, score=score, text=row.text, symbol=row.symbol,
            dense_score=dense_scores.get(unit_id), lexical_score=lexical_scores.get(unit_id),
            document_id=row.doc_id, collection=collection.name, anchor=row.location,
            owner_header=(owner_headers or {}).get(unit_id), heading_path=heading_path(row),
            abs_path=None if root is None or row.doc_id else (
                root if one_file else str(Path(root, row.path))
            ),
        ))
    return results


def heading_path(row: db.UnitRow) -> str | None:
    """A section's headings down to its own: its chunk's context is the headings above it
    (Markdown's) or down to it (a read document's)."""
    if row.kind != SECTION_KIND:
        return None
    headings = [h for h in (row.context or "").split(PATH_SEPARATOR) if h]
    # Short neighbours joined into one unit are named together: "Usage, Mangling".
    if headings and row.symbol and (row.symbol + ", ").startswith(headings[-1] + ", "):
        headings.pop()
    if row.symbol:
        headings.append(row.symbol)
    return PATH_SEPARATOR.join(headings) or None


def best_piece(
    pieces: Sequence[db.PieceRow], query: str, query_vector: np.ndarray | None, dim: int
) -> tuple[int, int]:
    """Lines of the piece closest to the query: by cosine, or by shared terms without a vector."""
    if query_vector is not None:
        vectors = db.from_blobs([p.vector for p in pieces], dim)  # (n, d)
        scores = vectors @ query_vector[0]  # (n,)
    else:
        # The piece holding most of the query's terms, each found as a substring: splitting
        # every piece into terms cost more than the search itself (a codec's table is
        # hundreds of pieces).
        wanted = set(index_terms(query))
        lowered = [p.text.lower() for p in pieces]
        scores = np.array([sum(term in text for term in wanted) for text in lowered])
    best = pieces[int(np.argmax(scores))]
    return best.start_line, best.end_line


def allowed_file_ids(collection: Collection, filters: SearchFilters) -> list[int] | None:
    """Ids of the files the filters let through; None when they let everything through."""
    if not filters.restricts_files:
        return None
    filters = filters.for_root(collection.manifest.source_root)  # globs typed from a cwd
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
    """(unit id, cosine) best first, restricted inside FAISS to the allowed units."""
    subset = None if file_ids is None else db.unit_ids_of_files(collection.conn, file_ids)
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
    """(unit id, BM25) best first over code-aware terms.

    A large collection answers from its BM25 segment, a small one from FTS5:
    the same scores either way (tests/store/test_lexical_index.py).
    """
    match = fts_query(query)
    if match is None or file_ids == []:
        return []
    view = collection.lexical_view()
    if view is None:
        return db.lexical_search(collection.conn, match, k, file_ids)
    allowed = None if file_ids is None else db.unit_ids_of_files(collection.conn, file_ids)
    return view.top(query_terms(query), k, allowed)
