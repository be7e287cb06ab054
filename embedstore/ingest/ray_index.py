"""Sharded IVF-PQ builds on a Ray cluster: each shard is added by a Ray task, merged here.

The Ray twin of ``indexes.shards.build_ivfpq_sharded``: the same trained index
cut into the same kind of contiguous shards, so the same index. This module
imports ray, so nothing on the default path imports it.
"""

from __future__ import annotations

from dataclasses import dataclass

import faiss
import numpy as np
import numpy.typing as npt
import ray

from embedstore.indexes.arrays import as_ids, as_vectors, check_positive_int, check_same_length
from embedstore.indexes.shards import _check_trained, add_shard, merge_shards
from embedstore.indexes.vector_index import VectorIndex


@dataclass(frozen=True)
class SerialisedIndex:
    """A ``VectorIndex`` as plain data for Ray's object store.

    A VectorIndex holds a FAISS SWIG object and a lock, neither of which
    pickles; the FAISS index travels as ``faiss.serialize_index`` bytes, which
    a task on the same machine reads from the object store without a copy.
    """

    kind: str
    dim: int
    params: dict[str, int]
    payload: npt.NDArray[np.uint8]  # faiss.serialize_index: (bytes,)

    @classmethod
    def of(cls, index: VectorIndex) -> SerialisedIndex:
        return cls(index.kind, index.dim, dict(index.params), faiss.serialize_index(index._index))

    def load(self) -> VectorIndex:
        return VectorIndex(self.kind, self.dim, self.params, faiss.deserialize_index(self.payload))


@ray.remote(num_cpus=1)
def _add_shard(
    trained: SerialisedIndex, ids: npt.NDArray[np.int64], vectors: npt.NDArray[np.float32]
) -> SerialisedIndex:
    """One shard, added where Ray runs the task (FAISS on the task's one CPU)."""
    return SerialisedIndex.of(add_shard(trained.load(), ids, vectors))


def build_ivfpq_on_ray(
    trained: VectorIndex, ids: npt.ArrayLike, vectors: npt.ArrayLike, *, shards: int = 4
) -> VectorIndex:
    """An IVF-PQ ``VectorIndex`` of ``vectors`` (n, d) under ``ids`` (n,), its ``shards``
    contiguous slices added by Ray tasks of one CPU each and merged in this process.

    ``trained`` is an empty index from ``indexes.shards.train_ivfpq``; it is left
    empty. The result is the index that ``build_ivfpq_sharded(ids, vectors,
    shards=shards, trained=trained)`` builds here: the same lists, codes and ids,
    so the same search results. The trained index and each slice go to the
    object store once; each task returns its shard serialised, and
    ``merge_shards`` joins them in order, here, where the result is needed.

    Runs on the cluster this process is connected to (``ray.init`` or
    ``ray_encoder.ray_cluster``). Bad arguments raise ``ValueError`` before any
    task starts.
    """
    check_positive_int("shards", shards)
    _check_trained(trained)
    id_vector = as_ids("ids", ids)  # (n,)
    matrix = as_vectors("vectors", vectors, trained.dim)  # (n, d)
    check_same_length(id_vector, matrix)
    trained_ref = ray.put(SerialisedIndex.of(trained))
    pending = [
        _add_shard.remote(trained_ref, ray.put(shard_ids), ray.put(shard_vectors))
        for shard_ids, shard_vectors in zip(
            np.array_split(id_vector, shards), np.array_split(matrix, shards), strict=True
        )  # shards x ((s,), (s, d))
    ]
    return merge_shards([part.load() for part in ray.get(pending)])
