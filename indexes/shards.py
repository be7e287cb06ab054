"""Sharded IVF-PQ builds: train once, fill inverted lists per shard in parallel, merge.

Plain functions over numpy arrays, in the style of ``faiss.contrib``. Training
(k-means of the coarse lists and the PQ codebooks) is done once, on a sample;
adding is what grows with the collection, and it splits cleanly: each shard is
a clone of the trained empty index that receives its own ids and vectors, and
FAISS's ``IndexIVF.merge_from`` concatenates the shards' inverted lists. The
shards need nothing from each other, so the same ``add_shard`` / ``merge_shards``
pair can later run in other processes or machines (a shard is serialisable).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import faiss
import numpy as np
import numpy.typing as npt

from embedstore.indexes.arrays import as_ids, as_vectors, check_positive_int, check_same_length
from embedstore.indexes.params import resolve_ivfpq_params
from embedstore.indexes.vector_index import VectorIndex, _trained_ivfpq

# One shard's ids (s,) and vectors (s, d), produced where the shard is added.
ShardLoader = Callable[[], tuple[npt.NDArray[np.int64], npt.ArrayLike]]


def train_ivfpq(
    sample: npt.ArrayLike,
    *,
    n: int | None = None,
    params: Mapping[str, int] | None = None,
    seed: int = 0,
) -> VectorIndex:
    """An empty IVF-PQ index trained on ``sample`` (s, d) for a collection of ``n`` vectors.

    The parameters are those ``VectorIndex.build`` picks for ``n`` vectors
    (default: ``s``), with ``params`` overrides, so a sample trains the index
    the full collection would get. With ``n = s`` and the same ``seed`` this is
    the very training ``VectorIndex.build`` does.
    """
    matrix = as_vectors("sample", sample)  # (s, d)
    size = matrix.shape[0] if n is None else n
    check_positive_int("the collection size n", size)
    if size < matrix.shape[0]:
        raise ValueError(f"the collection size n={size} is below the sample size {matrix.shape[0]}")
    resolved = resolve_ivfpq_params(size, matrix.shape[1], params)
    # resolve_ivfpq_params checked n; k-means itself needs that many sample points.
    needed = max(resolved["nlist"], 2 ** resolved["nbits"])
    if matrix.shape[0] < needed:
        raise ValueError(
            f"nlist={resolved['nlist']} and nbits={resolved['nbits']} need a training sample "
            f"of at least {needed} vectors, got {matrix.shape[0]}"
        )
    return VectorIndex("ivfpq", matrix.shape[1], resolved, _trained_ivfpq(matrix, resolved, seed))


def add_shard(
    trained: VectorIndex, ids: npt.ArrayLike, vectors: npt.ArrayLike
) -> VectorIndex:
    """A clone of the empty ``trained`` index holding ``vectors`` (n, d) under ``ids`` (n,)."""
    _check_trained(trained)
    copy = faiss.clone_index(trained._index)
    shard = VectorIndex(trained.kind, trained.dim, trained.params, copy)
    shard.add(ids, vectors)
    return shard


def merge_shards(shards: Sequence[VectorIndex]) -> VectorIndex:
    """The first shard, grown to hold every shard's vectors; the other shards are emptied.

    The shards must come from one trained index (``add_shard``) and hold
    disjoint ids. Each inverted list of the result is the shards' lists in
    order, so shards cut from a collection in order give the index a single
    ``add`` of the whole collection would have given.
    """
    if not shards:
        raise ValueError("merge_shards needs at least one shard")
    first = shards[0]
    indexes = [_ivfpq(shard) for shard in shards]
    # merge_from checks only the shapes; shards trained apart would merge
    # without error and then score every list against the wrong centroids.
    if not all(_same_training(indexes[0], index) for index in indexes[1:]):
        raise ValueError("the shards were not trained together; build them with add_shard")
    # as_ids refuses duplicates: an id in two shards would be found twice.
    as_ids("the shards' ids", np.concatenate([_stored_ids(index) for index in indexes]))
    first._drop_gpu_copy()
    for index in indexes[1:]:
        # add_id=0 keeps the ids stored in the shard instead of renumbering them.
        indexes[0].merge_from(index, 0)
    return first


def build_ivfpq_sharded(
    ids: npt.ArrayLike,
    vectors: npt.ArrayLike,
    *,
    shards: int = 4,
    trained: VectorIndex | None = None,
    params: Mapping[str, int] | None = None,
    seed: int = 0,
    workers: int | None = None,
) -> VectorIndex:
    """An IVF-PQ ``VectorIndex`` of ``vectors`` (n, d) under ``ids`` (n,), added in ``shards``.

    ``trained`` is an empty index from ``train_ivfpq``; without one the index
    is trained here as ``VectorIndex.build`` would (``params``, ``seed``), so
    the result is the index ``VectorIndex.build("ivfpq", ...)`` returns. The
    shards are contiguous slices of the input (see ``build_from_loaders``).
    """
    check_positive_int("shards", shards)
    id_vector = as_ids("ids", ids)  # (n,)
    matrix = as_vectors("vectors", vectors)  # (n, d)
    check_same_length(id_vector, matrix)
    if trained is None:
        trained = train_ivfpq(matrix, params=params, seed=seed)
    elif params:
        raise ValueError("pass params to train_ivfpq, not with an already trained index")
    cuts = np.linspace(0, matrix.shape[0], shards + 1).astype(int)  # (shards + 1,)
    loaders = [
        partial(_slice, id_vector, matrix, start, stop)
        for start, stop in zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True)
    ]
    return build_from_loaders(trained, loaders, workers=workers)


def build_from_loaders(
    trained: VectorIndex, loaders: Sequence[ShardLoader], *, workers: int | None = None
) -> VectorIndex:
    """The ``trained`` index's clone holding every shard that ``loaders`` return, merged in order.

    Each loader returns one shard's ids (s,) and vectors (s, d) and is called on
    the worker thread that adds them, so at most ``workers`` shards are in
    memory at once: a collection read from SQLite in shards never needs all its
    vectors as float32 together. ``workers`` defaults to one per shard, at most
    one per CPU; FAISS and SQLite release the GIL while they work.
    """
    if not loaders:
        raise ValueError("build_from_loaders needs at least one shard loader")
    if workers is not None:
        check_positive_int("workers", workers)
    _check_trained(trained)
    cpus = os.cpu_count() or 1
    threads = min(len(loaders), workers or cpus)
    # Each add is itself OpenMP-parallel; splitting the cores between the
    # threads keeps libgomp teams from spinning against each other.
    per_thread = max(1, cpus // threads)

    def add(load: ShardLoader) -> VectorIndex:
        faiss.omp_set_num_threads(per_thread)  # this worker thread only
        shard_ids, shard_vectors = load()
        matrix = as_vectors("shard vectors", shard_vectors)  # (s, d)
        if matrix.shape[1] != trained.dim:
            raise ValueError(f"vectors have dimension {matrix.shape[1]}, expected {trained.dim}")
        return add_shard(trained, shard_ids, matrix)

    with ThreadPoolExecutor(max_workers=threads) as pool:
        parts = list(pool.map(add, loaders))
    return merge_shards(parts)


def _slice(
    ids: npt.NDArray[np.int64], vectors: npt.NDArray[np.float32], start: int, stop: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
    return ids[start:stop], vectors[start:stop]


def _check_trained(index: VectorIndex) -> None:
    if index.kind != "ivfpq":
        raise ValueError(f"sharded builds are for ivfpq indexes, got kind {index.kind!r}")
    if index.ntotal:
        raise ValueError(
            f"the trained index must be empty, it holds {index.ntotal} vectors; "
            "use train_ivfpq"
        )


def _ivfpq(shard: VectorIndex) -> faiss.IndexIVFPQ:
    index = shard._index
    if not isinstance(index, faiss.IndexIVFPQ):
        raise ValueError(f"only ivfpq shards can be merged, got kind {shard.kind!r}")
    return index


def _same_training(a: faiss.IndexIVFPQ, b: faiss.IndexIVFPQ) -> bool:
    """True when ``a`` and ``b`` share coarse centroids and PQ codebooks."""
    if (a.d, a.nlist, a.code_size, a.by_residual) != (b.d, b.nlist, b.code_size, b.by_residual):
        return False
    centroids_a = a.quantizer.reconstruct_n(0, a.nlist)  # (nlist, d)
    centroids_b = b.quantizer.reconstruct_n(0, b.nlist)  # (nlist, d)
    codebooks_a = faiss.vector_to_array(a.pq.centroids)  # (m * 2^nbits * d/m,)
    codebooks_b = faiss.vector_to_array(b.pq.centroids)
    same_codebooks = np.array_equal(codebooks_a, codebooks_b)
    return bool(np.array_equal(centroids_a, centroids_b) and same_codebooks)


def _stored_ids(index: faiss.IndexIVF) -> npt.NDArray[np.int64]:
    """Every id in the inverted lists of ``index`` (ntotal,), in list order."""
    invlists = index.invlists
    if invlists is None:  # only when a caller detached the lists; FAISS never does
        raise ValueError("the index has no inverted lists")
    parts = [
        faiss.rev_swig_ptr(invlists.get_ids(no), invlists.list_size(no)).copy()
        for no in range(index.nlist)
        if invlists.list_size(no)
    ]
    return np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)
