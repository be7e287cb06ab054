"""The vector-index layer over FAISS: exact and IVF-PQ search over int64 ids.

It knows nothing of text: callers hand in L2-normalised float32 vectors and
ids, and get back inner-product scores and ids.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from embedstore.indexes.params import (
    EXACT_THRESHOLD,
    INDEX_KINDS,
    MIN_IVFPQ_VECTORS,
    choose_kind,
    default_nprobe,
    ivfpq_params,
)

if TYPE_CHECKING:
    from embedstore.indexes.device import gpu_count, set_search_threads
    from embedstore.indexes.refine import (
        MIN_REFINE_CANDIDATES,
        REFINE_FACTOR,
        Lookup,
        refine,
        refine_candidates,
        search_refined,
    )
    from embedstore.indexes.vector_index import SearchResult, VectorIndex

# What imports faiss loads on first use (PEP 562), so that commands which never
# search (list, info, rm, --help) start without it.
_LAZY = {
    "gpu_count": "device", "set_search_threads": "device",
    "MIN_REFINE_CANDIDATES": "refine", "REFINE_FACTOR": "refine", "Lookup": "refine",
    "refine": "refine", "refine_candidates": "refine", "search_refined": "refine",
    "SearchResult": "vector_index", "VectorIndex": "vector_index",
}


def __getattr__(name: str) -> object:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(f"{__name__}.{module_name}")
    # Bind every name of that module here, as an eager import would: importing the
    # submodule `refine` bound the package attribute `refine` to the module, not the function.
    for lazy, owner in _LAZY.items():
        if owner == module_name:
            globals()[lazy] = getattr(module, lazy)
    return globals()[name]


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
