"""Checking and converting the arrays that cross the index API."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt


def as_vectors(name: str, array: Any, dim: int | None = None) -> npt.NDArray[np.float32]:
    """``array`` as a C-contiguous float32 (n, dim) matrix of finite values, or ``ValueError``.

    ``dim=None`` accepts any number of columns.
    """
    matrix = np.asarray(array)
    if matrix.ndim != 2:
        expected = "(n, d)" if dim is None else f"(n, {dim})"
        raise ValueError(f"{name} must be a 2-D array {expected}, got shape {matrix.shape}")
    if dim is not None and matrix.shape[1] != dim:
        raise ValueError(f"{name} have dimension {matrix.shape[1]}, expected {dim}")
    if not np.issubdtype(matrix.dtype, np.floating):
        raise ValueError(f"{name} must be floating point, got dtype {matrix.dtype}")
    if not np.isfinite(matrix).all():
        raise ValueError(f"{name} contain NaN or infinite values")
    return np.ascontiguousarray(matrix, dtype=np.float32)


def as_ids(name: str, array: Any, *, unique: bool = True) -> npt.NDArray[np.int64]:
    """``array`` as a C-contiguous int64 (n,) vector of non-negative ids, or ``ValueError``.

    Negative ids are refused because -1 marks "no result" in search output;
    duplicates are refused when ``unique`` because one id must name one vector.
    """
    ids = np.asarray(array)
    if ids.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got shape {ids.shape}")
    if ids.size and not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"{name} must be integers, got dtype {ids.dtype}")
    ids = np.ascontiguousarray(ids, dtype=np.int64)
    if ids.size and ids.min() < 0:
        raise ValueError(f"{name} must be non-negative (-1 means 'no result')")
    if unique and np.unique(ids).size != ids.size:
        raise ValueError(f"{name} contain duplicates")
    return ids


def check_same_length(ids: npt.NDArray[np.int64], vectors: npt.NDArray[np.float32]) -> None:
    """``ValueError`` unless there is exactly one id per vector."""
    if ids.shape[0] != vectors.shape[0]:
        raise ValueError(f"got {ids.shape[0]} ids for {vectors.shape[0]} vectors")


def check_positive_int(name: str, value: object) -> None:
    """``ValueError`` unless ``value`` is a positive integer (``bool`` does not count)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
