"""``VectorIndex``: exact or IVF-PQ inner-product search over vectors with int64 ids."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import faiss
import numpy as np
import numpy.typing as npt

from embedstore.errors import VectorIndexError
from embedstore.indexes import device
from embedstore.indexes.arrays import (
    as_ids,
    as_vectors,
    check_positive_int,
    check_same_length,
)
from embedstore.indexes.io import read_index_file, write_index_file
from embedstore.indexes.params import choose_kind, resolve_ivfpq_params, training_sample_size

SearchResult = tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]

_FAISS_CLASS_OF_KIND: dict[str, type[faiss.Index]] = {
    "flat": faiss.IndexIDMap2,
    "ivfpq": faiss.IndexIVFPQ,
}


class VectorIndex:
    """A FAISS index over L2-normalised float32 vectors; scores are inner products (cosine).

    ``kind`` is ``"flat"`` (exact ``IndexFlatIP`` behind an id map) or
    ``"ivfpq"`` (approximate; pair it with ``refine``). The CPU index is the
    master copy for adding, removing and saving; with GPUs present, searches
    run on a GPU copy made on first use and dropped on every change, because a
    GPU index can neither remove ids nor be saved directly. Searches may run
    from many threads at once, but never at the same time as ``add``/``remove``.
    """

    def __init__(self, kind: str, dim: int, params: Mapping[str, int], index: faiss.Index) -> None:
        """Wrap an already built FAISS ``index``; use ``build`` or ``load`` to get one."""
        self.kind = kind
        self.dim = dim
        self.params = dict(params)
        self._index = index
        self._gpu_index: faiss.Index | None = None
        self._gpu_unavailable = False
        self._gpu_lock = threading.Lock()

    def __repr__(self) -> str:
        return (
            f"VectorIndex(kind={self.kind!r}, dim={self.dim}, ntotal={self.ntotal}, "
            f"params={self.params})"
        )

    @property
    def exact(self) -> bool:
        """True when search scores are exact, so results need no refine step."""
        return self.kind == "flat"

    @property
    def ntotal(self) -> int:
        """How many vectors the index holds."""
        return int(self._index.ntotal)

    @classmethod
    def build(
        cls,
        kind: str,
        dim: int,
        vectors: npt.ArrayLike,
        ids: npt.ArrayLike,
        *,
        params: Mapping[str, int] | None = None,
        seed: int = 0,
    ) -> VectorIndex:
        """Build a ``kind`` index (see ``INDEX_KINDS``) of ``vectors`` (n, dim) under ``ids`` (n,).

        ``params`` overrides the IVF-PQ parameters that ``ivfpq_params`` picks
        (the flat index takes none). IVF-PQ trains on a random sample drawn
        with ``seed`` (the same seed gives the same index), then adds everything.
        """
        check_positive_int("the vector dimension", dim)
        matrix = as_vectors("vectors", vectors, dim)  # (n, dim)
        id_vector = as_ids("ids", ids)  # (n,)
        check_same_length(id_vector, matrix)
        kind = choose_kind(kind, matrix.shape[0])
        index: faiss.Index
        if kind == "flat":
            if params:
                raise ValueError(f"the flat index takes no parameters, got {dict(params)}")
            resolved: dict[str, int] = {}
            index = faiss.IndexIDMap2(faiss.IndexFlatIP(dim))
        else:
            resolved = resolve_ivfpq_params(matrix.shape[0], dim, params)
            index = _trained_ivfpq(matrix, resolved, seed)
        index.add_with_ids(matrix, id_vector)
        return cls(kind, dim, resolved, index)

    def add(self, ids: npt.ArrayLike, vectors: npt.ArrayLike) -> None:
        """Add ``vectors`` (n, dim) under ``ids`` (n,); the ids must not be in the index yet."""
        id_vector = as_ids("ids", ids)  # (n,)
        matrix = as_vectors("vectors", vectors, self.dim)  # (n, dim)
        check_same_length(id_vector, matrix)
        self._drop_gpu_copy()
        self._index.add_with_ids(matrix, id_vector)

    def remove(self, ids: npt.ArrayLike) -> int:
        """Remove the vectors stored under ``ids`` (n,); returns how many were found."""
        id_vector = as_ids("ids", ids, unique=False)  # (n,)
        if id_vector.size == 0:
            return 0
        self._drop_gpu_copy()
        return int(self._index.remove_ids(faiss.IDSelectorBatch(id_vector)))

    def search(
        self,
        queries: npt.ArrayLike,
        k: int,
        *,
        nprobe: int | None = None,
        subset: npt.ArrayLike | None = None,
    ) -> SearchResult:
        """The ``k`` best ids for each of ``queries`` (q, dim) and their inner-product scores.

        Returns scores (q, k) float32, best first, and ids (q, k) int64; where
        fewer than ``k`` results exist the rest are id -1 with score -inf.
        ``nprobe`` overrides the default lists scanned by IVF-PQ (clamped to
        ``nlist``); the exact index ignores it. ``subset`` (n,) restricts the
        search to those ids (a filter applied inside FAISS, so k hits are
        found when k allowed ones exist).
        """
        check_positive_int("k", k)
        if nprobe is not None:
            check_positive_int("nprobe", nprobe)
        matrix = as_vectors("queries", queries, self.dim)  # (q, dim)
        probes = None if self.exact else min(nprobe or self.params["nprobe"], self.params["nlist"])
        selector = None if subset is None else faiss.IDSelectorBatch(as_ids("subset", subset))
        # GPU indexes take no id selector, so filtered searches stay on the CPU.
        on_gpu = device.gpu_count() and k <= device.GPU_MAX_K and selector is None
        gpu_index = self._gpu_copy() if on_gpu else None
        if gpu_index is None:
            scores, ids = self._search_cpu(matrix, k, probes, selector)
        else:
            with self._gpu_lock:
                if probes is not None:
                    device.set_gpu_nprobe(gpu_index, probes)
                scores, ids = gpu_index.search(matrix, k)
        # FAISS pads with -FLT_MAX, a finite number a caller could mistake for a score.
        scores[ids < 0] = -np.inf
        return scores, ids

    def _search_cpu(
        self,
        matrix: npt.NDArray[np.float32],
        k: int,
        nprobe: int | None,
        selector: faiss.IDSelector | None,
    ) -> SearchResult:
        if nprobe is None and selector is None:
            return self._index.search(matrix, k)
        # Per-call parameters leave the shared index untouched for other threads.
        search_params: faiss.SearchParameters
        if nprobe is None:
            search_params = faiss.SearchParameters()
        else:
            search_params = faiss.SearchParametersIVF()
            search_params.nprobe = nprobe
        if selector is not None:
            search_params.sel = selector
        return self._index.search(matrix, k, params=search_params)

    def _gpu_copy(self) -> faiss.Index | None:
        with self._gpu_lock:
            if self._gpu_index is None and not self._gpu_unavailable:
                self._gpu_index = device.copy_to_gpus(self._index)
                # What stops a copy (this FAISS build, the code size) outlives any
                # add or remove, so the CPU is used from now on without retrying.
                self._gpu_unavailable = self._gpu_index is None
            return self._gpu_index

    def _drop_gpu_copy(self) -> None:
        with self._gpu_lock:
            self._gpu_index = None

    def save(self, path: Path) -> None:
        """Write the index, with its kind, dim and params, to one file atomically."""
        meta: dict[str, Any] = {
            "kind": self.kind,
            "dim": self.dim,
            "params": self.params,
            "ntotal": self.ntotal,
        }
        write_index_file(Path(path), meta, faiss.serialize_index(self._index))

    @classmethod
    def load(cls, path: Path) -> VectorIndex:
        """Read an index written by ``save``; ``VectorIndexError`` if it is missing or damaged."""
        header, payload = read_index_file(Path(path))
        try:
            kind = str(header["kind"])
            dim = int(header["dim"])
            params = {str(name): int(value) for name, value in header["params"].items()}
            ntotal = int(header["ntotal"])
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise VectorIndexError(
                f"the vector index {path} has an incomplete header ({err!r}); rebuild the index"
            ) from err
        try:
            # deserialize_index already returns the concrete class (IndexIVFPQ, ...).
            index = faiss.deserialize_index(payload)
        except RuntimeError as err:
            raise VectorIndexError(
                f"FAISS cannot read the vector index {path} ({err}); rebuild the index"
            ) from err
        expected_class = _FAISS_CLASS_OF_KIND.get(kind)
        if (
            expected_class is None
            or not isinstance(index, expected_class)
            or index.d != dim
            or index.ntotal != ntotal
        ):
            raise VectorIndexError(
                f"the vector index {path} does not match its header "
                f"(kind {kind!r}, dim {dim}, {ntotal} vectors); rebuild the index"
            )
        return cls(kind, dim, params, index)


def _trained_ivfpq(
    matrix: npt.NDArray[np.float32], params: Mapping[str, int], seed: int
) -> faiss.IndexIVFPQ:
    """An empty IVF-PQ index trained on a seeded random sample of ``matrix`` (n, d)."""
    n, dim = matrix.shape
    quantizer = faiss.IndexFlatIP(dim)
    index = faiss.IndexIVFPQ(
        quantizer, dim, params["nlist"], params["m"], params["nbits"], faiss.METRIC_INNER_PRODUCT
    )
    # Coding the residual to the list centroid spends the PQ bits on a vector
    # much shorter than the original, which makes the codes more precise.
    index.by_residual = True
    index.nprobe = params["nprobe"]
    index.cp.seed = seed
    index.pq.cp.seed = seed
    index.train(matrix[training_rows(n, params, seed)])
    return index


def training_rows(n: int, params: Mapping[str, int], seed: int) -> npt.NDArray[np.int64]:
    """The sorted rows (s,) of ``n`` vectors that an IVF-PQ index with ``params`` trains on."""
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(n, size=training_sample_size(n, params), replace=False))
