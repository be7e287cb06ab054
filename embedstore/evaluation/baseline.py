"""The baseline every retrieval change is measured against: one vector per whole definition.

No splitting, no BM25, no fusion: each unit (function, method, class, gap) is
encoded whole, exactly as the indexer would embed it were there no token
budget (the encoder truncates what is longer), and ranked by cosine, exact.
This is what simple tools do; a gain of embedstore's default has to be a gain
over this.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from embedstore.chunking.types import Chunk
from embedstore.evaluation.dataset import EvalQuery
from embedstore.evaluation.hit_rules import is_hit
from embedstore.evaluation.metrics import CUTOFF
from embedstore.ingest.indexer import embedding_text
from embedstore.store import db

if TYPE_CHECKING:
    from embedstore.store.collection import Collection


def whole_definition_ranks(
    collection: Collection, queries: Sequence[EvalQuery], rules: Sequence[str]
) -> tuple[dict[str, list[int | None]], list[str]]:
    """Per hit rule, per query: the rank of its function among whole-definition vectors;
    and per query the first hit."""
    manifest = collection.manifest
    encoder = collection.encoder
    rows = db.whole_unit_rows(collection.conn)
    vectors = db.from_blobs([r[6] for r in rows], manifest.dim)  # (u, d)
    split = [i for i, r in enumerate(rows) if r[7] > 1]
    if split:
        # Exactly as the indexer embeds a chunk, were the whole definition one chunk.
        texts = [
            embedding_text(
                rows[i][1], Chunk(rows[i][5], rows[i][2], rows[i][3], "unit", None, rows[i][4]),
                header=manifest.embed_header,
            )
            for i in split
        ]
        vectors[split] = encoder.encode(texts)  # (len(split), d)
    query_vectors = encoder.encode([q.query for q in queries], kind="query")  # (q, d)
    scores = query_vectors @ vectors.T  # (q, u)
    ranks: dict[str, list[int | None]] = {rule: [] for rule in rules}
    firsts: list[str] = []
    for q, row_scores in zip(queries, scores, strict=True):
        best = np.argsort(-row_scores, kind="stable")[:CUTOFF]
        for rule in rules:
            ranks[rule].append(next(
                (rank for rank, i in enumerate(best, start=1)
                 if is_hit(rule, q, rows[i][1], rows[i][2], rows[i][3], rows[i][5])),
                None,
            ))
        top = rows[best[0]]
        firsts.append(f"{top[1]}:{top[2]}-{top[3]}")
    return ranks, firsts
