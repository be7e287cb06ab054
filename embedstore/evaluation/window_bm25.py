"""CrossCodeEval's retrieval baseline: BM25 over sliding windows of the repository's other files.

Every file the collection indexed is cut into windows of ``WINDOW_LINES`` lines every
``STRIDE`` lines; the last ``QUERY_LINES`` lines before the cursor are the query, and the
best windows of the other files go into the budget as :func:`pack_context` packs search
hits, so their rendering and token count are those of every other row. Terms are
identifiers whole and split at snake_case/camelCase (:func:`code_terms`, embedstore's
identifier split) without the lexical side's stop words and plural folding: BM25's idf
already discounts `self` and `return`.
"""

from __future__ import annotations

import functools
import heapq
import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from embedstore.chunking.types import TokenCounter
from embedstore.errors import UserInputError
from embedstore.ingest.sources import walk_sources
from embedstore.lexical import code_terms
from embedstore.retrieval.context import CONTEXT_CANDIDATES, RagContext, pack_context
from embedstore.retrieval.search import SearchResult
from embedstore.store import db

if TYPE_CHECKING:
    from embedstore.store.collection import Collection

WINDOW_LINES = 20
STRIDE = 10
QUERY_LINES = 20
K1 = 1.2
B = 0.75


@dataclass(frozen=True)
class Window:
    path: str
    language: str
    start_line: int  # 1-based
    lines: tuple[str, ...]

    @property
    def end_line(self) -> int:
        return self.start_line + len(self.lines) - 1


def file_windows(path: str, language: str, text: str) -> list[Window]:
    """``WINDOW_LINES`` lines every ``STRIDE`` lines, until a window reaches the file's end."""
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()  # the indexer numbers lines the same way: no line after the last newline
    found: list[Window] = []
    for start in range(0, len(lines), STRIDE):
        found.append(Window(path, language, start + 1, tuple(lines[start : start + WINDOW_LINES])))
        if start + WINDOW_LINES >= len(lines):
            break
    return found


class WindowIndex:
    """BM25 (k1 1.2, b 0.75) over windows; a query may leave one file out, statistics included."""

    def __init__(self, windows: Sequence[Window]) -> None:
        self.windows = list(windows)
        self.lengths: list[int] = []
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)  # term -> (window, tf)
        self.per_path: dict[str, tuple[int, int]] = defaultdict(lambda: (0, 0))  # windows, length
        for i, window in enumerate(self.windows):
            counts = Counter(code_terms("\n".join(window.lines)))
            for term, tf in counts.items():
                self.postings[term].append((i, tf))
            length = sum(counts.values())
            self.lengths.append(length)
            n, total = self.per_path[window.path]
            self.per_path[window.path] = (n + 1, total + length)
        self.total_length = sum(self.lengths)

    def search(
        self, query: str, k: int, *, exclude: str | None = None
    ) -> list[tuple[Window, float]]:
        """The ``k`` best windows with a positive score, outside ``exclude``, best first.

        Scored as if ``exclude``'s windows had never been indexed (document count,
        average length and document frequencies without them), like CrossCodeEval,
        which windows only the other files. Each query term counts as often as it
        occurs in the query (rank_bm25's ``get_scores``); idf is Lucene's
        ``log(1 + (N - df + 0.5) / (df + 0.5))``, never negative.
        """
        left_out, left_out_length = self.per_path.get(exclude, (0, 0)) if exclude else (0, 0)
        n = len(self.windows) - left_out
        if n <= 0:
            return []
        average = max((self.total_length - left_out_length) / n, 1e-9)
        scores: dict[int, float] = defaultdict(float)
        for term, in_query in Counter(code_terms(query)).items():
            postings = [(i, tf) for i, tf in self.postings.get(term, ())
                        if self.windows[i].path != exclude]
            if not postings:
                continue
            idf = math.log(1 + (n - len(postings) + 0.5) / (len(postings) + 0.5))
            for i, tf in postings:
                norm = K1 * (1 - B + B * self.lengths[i] / average)
                scores[i] += in_query * idf * tf * (K1 + 1) / (tf + norm)
        best = heapq.nsmallest(k, scores.items(), key=lambda item: (-item[1], item[0]))
        return [(self.windows[i], score) for i, score in best]


@functools.lru_cache(maxsize=4)
def repo_windows(source_root: str, paths: tuple[str, ...]) -> WindowIndex:
    """The windows of ``paths`` as the indexer read them; cached, as every case of a repo asks."""
    wanted = set(paths)
    return WindowIndex([
        window
        for source in walk_sources(Path(source_root)) if source.rel_path in wanted
        for window in file_windows(source.rel_path, source.language, source.text)
    ])


def window_context(
    collection: Collection, code: str, path: str, budget: int, count_tokens: TokenCounter
) -> RagContext:
    """The best windows of files other than ``path`` for the last lines of ``code`` (the
    text before a cursor), in ``budget``."""
    query = "\n".join(code.splitlines()[-QUERY_LINES:])
    root = collection.manifest.source_root
    if root is None:
        raise UserInputError(f"collection {collection.name!r} was not indexed from a folder")
    records = db.files_by_path(collection.conn)
    index = repo_windows(root, tuple(sorted(p for p, r in records.items() if r.doc_id is None)))
    # Windows ranked as search hits: a window that no longer fits whole goes in as its
    # first line and a clean prefix, and overlapping windows merge, as units do.
    hits = [
        SearchResult(
            i, w.path, w.start_line, w.end_line, w.start_line, w.end_line, w.language, "lines",
            score, "\n".join(w.lines), lexical_score=score,
        )
        for i, (w, score) in enumerate(index.search(query, CONTEXT_CANDIDATES, exclude=path))
    ]
    return pack_context(query, hits, budget, count_tokens)
