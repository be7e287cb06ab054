"""One search over many collections: fan out to members, merge by comparable scores.

A member answers one small question, "your best k hits for this query", with
scores that compare across members:

- dense: the cosine, which compares directly when every member has the same
  encoder (members of different encoders are refused, naming the groups);
- hybrid: each member fuses ``w * cosine + (1 - w) * bm25 / best_bm25`` with
  its own best BM25 and its own weight ``w`` for this query (fusion_rule), so both
  parts, and their sum, lie on fixed scales;
- lexical: BM25 has no fixed scale across corpora; each member's scores are
  divided by its best for this query.

A :class:`Member` is local here (a :class:`Collection` in this process); the
same interface fits a remote shard, e.g. a Ray Serve deployment (see
docs/scaling.md). Members are searched in parallel, the query encoded once.

One member that cannot be read (damaged, outdated, deleted meanwhile) must not
hide the others: it is skipped, and the answer names it in ``skipped``. Only
when no member answers is its error the answer.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

import numpy as np

from embedstore.chunking.types import TokenCounter
from embedstore.errors import (
    CollectionLockedError,
    CollectionNotFoundError,
    CorruptCollectionError,
    EmbedstoreError,
    EncoderMismatchError,
    LexicalIndexError,
    OutdatedCollectionError,
    StorageError,
    UserInputError,
    VectorIndexError,
)
from embedstore.retrieval.context import CONTEXT_CANDIDATES, RagContext, pack_context
from embedstore.retrieval.filters import SearchFilters
from embedstore.retrieval.search import SearchResult, check_search_args, search
from embedstore.store.collection import Collection

# Threads that search members at once: SQLite and FAISS release the GIL.
MAX_PARALLEL = min(16, (os.cpu_count() or 1) * 4)

# What one member's files can raise; the request itself (a bad filter, another
# encoder) is wrong for every member, so those errors are the answer.
MEMBER_FAILURES = (
    CollectionNotFoundError, CollectionLockedError, CorruptCollectionError, StorageError,
    OutdatedCollectionError, VectorIndexError, LexicalIndexError,
)


@dataclasses.dataclass(frozen=True)
class Skipped:
    """A member left out of an answer, and why."""

    collection: str
    reason: str


class FederatedHits(list[SearchResult]):
    """The merged hits, best first, and the members skipped. A list of the hits itself, so a
    caller that needs only them (a bench, an older face) reads it as before."""

    def __init__(self, hits: Sequence[SearchResult], skipped: Sequence[Skipped] = ()) -> None:
        super().__init__(hits)
        self.skipped = list(skipped)


@dataclasses.dataclass(frozen=True)
class FederatedContext(RagContext):
    """A packed context and the members skipped."""

    skipped: list[Skipped] = dataclasses.field(default_factory=list)


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
        # Read now: a damaged database fails here, where ``open_members`` skips it.
        m = collection.manifest
        self.encoder_id = f"{m.encoder} ({m.pooling}, {m.dim}-d)"

    @property
    def name(self) -> str:
        return self.collection.name

    def encode_query(self, query: str) -> np.ndarray:
        return self.collection.query_encoder.encode([query], kind="query")  # (1, d)

    def search(
        self, query: str, k: int, mode: str, filters: SearchFilters, vector: np.ndarray | None
    ) -> list[SearchResult]:
        return search(self.collection, query, k, mode=mode, filters=filters, query_vector=vector)


def open_members(
    names: Sequence[str], open_one: Callable[[str], Collection], *, missing_ok: bool
) -> tuple[list[LocalMember], list[Skipped]]:
    """Each named collection that opens, and the others skipped with why.

    ``missing_ok``: a collection gone since ``names`` was listed is skipped too (a
    request for every collection); else a name that is not there is the caller's
    mistake and raised. When none opens, the first one's error is raised.
    """
    opened: list[LocalMember] = []
    skipped: list[Skipped] = []
    errors: list[EmbedstoreError] = []
    for name in names:
        try:
            opened.append(LocalMember(open_one(name)))
        except MEMBER_FAILURES as exc:
            if isinstance(exc, CollectionNotFoundError) and not missing_ok:
                raise
            skipped.append(Skipped(name, str(exc)))
            errors.append(exc)
    if not opened and errors:
        raise _none_answered(errors, skipped)
    return opened, skipped


def _none_answered(errors: Sequence[EmbedstoreError], skipped: Sequence[Skipped]) -> Exception:
    """The error when every member failed: its own when there was one, else all named."""
    if len(errors) == 1:
        return errors[0]
    named = "; ".join(f"{s.collection}: {s.reason}" for s in skipped)
    return type(errors[0])(f"no collection could be searched ({named})")


def search_members(
    members: Sequence[Member],
    query: str,
    k: int = 10,
    *,
    mode: str = "hybrid",
    filters: SearchFilters | None = None,
    skipped: Sequence[Skipped] = (),
) -> FederatedHits:
    """The best ``k`` hits of all ``members``, each carrying its ``collection``; a member
    that fails is skipped, and named after those of ``skipped`` (skipped when opened)."""
    check_search_args(query, k, mode)
    if not members:
        raise UserInputError("no collections to search: run `embedstore index PATH` first")
    rules = filters or SearchFilters()
    vector = None
    if mode != "lexical":
        check_same_encoder(members)
        vector = members[0].encode_query(query)  # once for all: they share the encoder

    def answer(member: Member) -> list[SearchResult] | EmbedstoreError:
        try:
            return member.search(query, k, mode, rules, vector)
        except MEMBER_FAILURES as exc:
            return exc

    if len(members) == 1:
        answers = [answer(members[0])]
    else:
        with ThreadPoolExecutor(min(MAX_PARALLEL, len(members))) as pool:
            answers = list(pool.map(answer, members))
    failed = [(m, a) for m, a in zip(members, answers, strict=True) if not isinstance(a, list)]
    now_skipped = [*skipped, *(Skipped(m.name, str(exc)) for m, exc in failed)]
    if len(failed) == len(members):
        raise _none_answered([exc for _, exc in failed], now_skipped[len(skipped):])
    found = [a for a in answers if isinstance(a, list)]
    return FederatedHits(merge(found, k, mode), now_skipped)


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
    skipped: Sequence[Skipped] = (),
) -> FederatedContext:
    """The best hits of all ``members`` packed into ``max_tokens``, and the members skipped
    (see ``search_members``).

    With several members each block's path is ``collection/path``: two repositories
    may both have a ``setup.py``, and their lines must not merge.
    """
    found = search_members(members, query, CONTEXT_CANDIDATES, mode=mode, filters=filters,
                           skipped=skipped)
    hits: list[SearchResult] = found
    if len(members) > 1:
        hits = [dataclasses.replace(h, path=f"{h.collection}/{h.path}") for h in found]
    packed = pack_context(query, hits, max_tokens, count_tokens)
    return FederatedContext(**vars(packed), skipped=found.skipped)
