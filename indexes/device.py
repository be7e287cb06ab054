"""Where FAISS runs: GPU detection, GPU copies of an index, CPU search threads."""

from __future__ import annotations

import functools
import logging

import faiss

from embedstore.indexes.arrays import check_positive_int

logger = logging.getLogger(__name__)

# FAISS's GPU k-selection returns at most this many results per query.
GPU_MAX_K = 2048


@functools.cache
def gpu_count() -> int:
    """How many GPUs FAISS can search on: 0 with the CPU-only FAISS build."""
    # The CPU build defines get_num_gpus too, but none of the GPU classes.
    if not hasattr(faiss, "StandardGpuResources"):
        return 0
    return int(faiss.get_num_gpus())


def copy_to_gpus(index: faiss.Index) -> faiss.Index | None:
    """A search copy of ``index`` on every GPU, or ``None`` (logged) when one cannot be made.

    Failing is not an error: the CPU index answers the same queries, and some
    parameters (e.g. PQ code sizes the GPU kernels lack) only exist on CPU.
    """
    try:
        options = faiss.GpuMultipleClonerOptions()
        # For IVF-PQ this selects float16 lookup tables, which the GPU needs
        # for the larger codes; flat vectors stay float32 so scores match CPU.
        options.useFloat16 = isinstance(index, faiss.IndexIVFPQ)
        return faiss.index_cpu_to_all_gpus(index, co=options)
    except (AttributeError, RuntimeError) as err:
        logger.warning("searching on CPU: the index cannot be copied to the GPU (%s)", err)
        return None


def set_gpu_nprobe(gpu_index: faiss.Index, nprobe: int) -> None:
    """Set ``nprobe`` on a GPU IVF copy, whether it is one index or replicas over many GPUs."""
    # Replicas over several GPUs refuse per-call search parameters, so the
    # value is set on the index itself (callers serialise these searches).
    faiss.GpuParameterSpace().set_index_parameter(gpu_index, "nprobe", nprobe)


def set_search_threads(n: int) -> None:
    """Use ``n`` OpenMP threads for FAISS on CPU.

    Set it deliberately: idle FAISS threads spinning next to an encoder in the
    same process doubled single-query latency on a 2-core machine.
    """
    check_positive_int("the number of search threads", n)
    faiss.omp_set_num_threads(n)
