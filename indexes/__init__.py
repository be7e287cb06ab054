"""The vector-index layer over FAISS: exact and IVF-PQ search over int64 ids.

It knows nothing of text: callers hand in L2-normalised float32 vectors and
ids, and get back inner-product scores and ids.
"""

from __future__ import annotations

from embedstore.indexes.device import gpu_count, set_search_threads
from embedstore.indexes.params import (
    EXACT_THRESHOLD,
    INDEX_KINDS,
    MIN_IVFPQ_VECTORS,
    choose_kind,
    default_nprobe,
    ivfpq_params,
)
from embedstore.indexes.refine import (
    MIN_REFINE_CANDIDATES,
    REFINE_FACTOR,
    Lookup,
    refine,
    refine_candidates,
    search_refined,
)
from embedstore.indexes.vector_index import SearchResult, VectorIndex

__all__ = [
    "EXACT_THRESHOLD",
    "INDEX_KINDS",
    "MIN_IVFPQ_VECTORS",
    "MIN_REFINE_CANDIDATES",
    "REFINE_FACTOR",
    "Lookup",
    "SearchResult",
    "VectorIndex",
    "choose_kind",
    "default_nprobe",
    "gpu_count",
    "ivfpq_params",
    "refine",
    "refine_candidates",
    "search_refined",
    "set_search_threads",
]
