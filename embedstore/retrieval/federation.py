"""One search over many collections: fan out to members, merge by comparable scores.

A member answers one small question, "your best k hits for this query", with
scores that compare across members:

- dense: the cosine, which compares directly when every member has the same
  encoder (members of different encoders are refused, naming the groups);
- hybrid: each member fuses ``w * cosine + (1 - w) * bm25 / best_bm25`` with
  its own best BM25 for this query, so both parts lie on fixed scales;
- lexical: BM25 has no fixed scale across corpora; each member's scores are
  divided by its best for this query.

A :class:`Member` is local here (a :class:`Collection` in this process); the
same interface fits a remote shard, e.g. a Ray Serve deployment (see
docs/scaling.md). Members are searched in parallel, the query encoded once.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

import numpy as np

from embedstore.chunking.types import TokenCounter
from embedstore.errors import EncoderMismatchError, UserInputError
from embedstore.retrieval.context import CONTEXT_CANDIDATES, RagContext, pack_context
from embedstore.retrieval.filters import SearchFilters
from embedstore.retrieval.search import SearchResult, check_search_args, search
from embedstore.store.collection import Collection

# Threads that search members at once: SQLite and FAISS release the GIL.
MAX_PARALLEL = min(16, (os.cpu_count() or 1) * 4)


class Member(Protocol):
    """What a federated search needs of one collection, wherever it lives."""

    @property
    def name(self) -> str: ...

    @property
    def encoder_id(self) -> str:
        """Vectors of members with equal ids compare: encoder, pooling and dimension."""
        ...

    def encode_query(self, query: str) -> np.ndarray:
        """(1, d) the query's vector."""
        ...

    def search(
        self, query: str, k: int, mode: str, filters: SearchFilters, vector: np.ndarray | None
    ) -> list[SearchResult]:
        """The member's best ``k`` hits, scored as the module docstring says."""
        ...


class LocalMember:
    """A collection open in this process."""

    def __init__(self, collection: Collection) -> None:
        self.collection = collection

    @property
    def name(self) -> str:
        return self.collection.name

    @property
    def encoder_id(self) -> str:
        m = self.collection.manifest
        return f"{m.encoder} ({m.pooling}, {m.dim}-d)"

    def encode_query(self, query: str) -> np.ndarray:
        return self.collection.query_encoder.encode([query], kind="query")  # (1, d)

    def search(
        self, query: str, k: int, mode: str, filters: SearchFilters, vector: np.ndarray | None
    ) -> list[SearchResult]:
        return search(self.collection, query, k, mode=mode, filters=filters, query_vector=vector)


def search_members(
    members: Sequence[Member],
    query: str,
    k: int = 10,
    *,
    mode: str = "hybrid",
    filters: SearchFilters | None = None,
) -> list[SearchResult]:
    """The best ``k`` hits of all ``members``, each carrying its ``collection``."""
    check_search_args(query, k, mode)
    if not members:
        raise UserInputError("no collections to search: run `embedstore index PATH` first")
    rules = filters or SearchFilters()
    vector = None
    if mode != "lexical":
        check_same_encoder(members)
        vector = members[0].encode_query(query)  # once for all: they share the encoder
    if len(members) == 1:
        return members[0].search(query, k, mode, rules, vector)
    with ThreadPoolExecutor(min(MAX_PARALLEL, len(members))) as pool:
        answers = list(pool.map(lambda m: m.search(query, k, mode, rules, vector), members))
    return merge(answers, k, mode)


def check_same_encoder(members: Sequence[Member]) -> None:
    groups: dict[str, list[str]] = {}
    for member in members:
        groups.setdefault(member.encoder_id, []).append(member.name)
    if len(groups) > 1:
        named = "; ".join(f"{encoder}: {', '.join(names)}" for encoder, names in groups.items())
        raise EncoderMismatchError(
            f"these collections use different encoders, whose scores do not compare ({named}): "
            "search one group at a time with --name, or use --mode lexical"
        )


def merge(answers: Sequence[list[SearchResult]], k: int, mode: str) -> list[SearchResult]:
    """Members' hits, best first by a score that compares across them."""
    merged: list[SearchResult] = []
    for hits in answers:
        if mode == "lexical" and hits:
            best = hits[0].score or 1.0
            hits = [dataclasses.replace(h, score=h.score / best) for h in hits]
        merged.extend(hits)
    # Ties keep the members' order, and each member's own order.
    return sorted(merged, key=lambda h: -h.score)[:k]


def context_members(
    members: Sequence[Member],
    query: str,
    max_tokens: int,
    count_tokens: TokenCounter,
    *,
    mode: str = "hybrid",
    filters: SearchFilters | None = None,
) -> RagContext:
    """The best hits of all ``members`` packed into ``max_tokens``.

    With several members each block's path is ``collection/path``: two repositories
    may both have a ``setup.py``, and their lines must not merge.
    """
    hits = search_members(members, query, CONTEXT_CANDIDATES, mode=mode, filters=filters)
    if len(members) > 1:
        hits = [dataclasses.replace(h, path=f"{h.collection}/{h.path}") for h in hits]
    return pack_context(query, hits, max_tokens, count_tokens)
