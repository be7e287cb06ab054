"""Sampling and 2-D projection of unit vectors: PCA, t-SNE (scikit-learn) or UMAP (umap-learn).

Everything is seeded: the same vectors, method and seed give the same map.
"""

from __future__ import annotations

import importlib.util
import warnings

import numpy as np

from embedstore.errors import UserInputError

METHODS = ("pca", "tsne", "umap")
METHOD_NAMES = {"pca": "PCA", "tsne": "t-SNE", "umap": "UMAP"}
# t-SNE and UMAP place each point among its neighbours; with fewer points than
# this they fail or say nothing, so such tiny maps are drawn with PCA instead.
MIN_NEIGHBOURHOOD = 5
# scikit-learn and umap-learn take a seed that fits in 32 bits.
MAX_SEED = 2**32 - 1
UMAP_MISSING = "UMAP needs the optional extra (it pulls numba): pip install 'embedstore[umap]'"


def umap_installed() -> bool:
    # find_spec, not an import: importing umap compiles numba code for seconds.
    return importlib.util.find_spec("umap") is not None


def available_methods() -> list[str]:
    """The methods this installation can run."""
    return [m for m in METHODS if m != "umap" or umap_installed()]


def check_method(method: str) -> None:
    if method not in METHODS:
        raise ValueError(f"unknown projection method {method!r}; valid methods: "
                         f"{', '.join(METHODS)}")
    if method == "umap" and not umap_installed():
        raise UserInputError(UMAP_MISSING)


def check_seed(seed: int) -> None:
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be between 0 and {MAX_SEED}, got {seed}")


def check_limit(limit: int) -> None:
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")


def sample_ids(ids: np.ndarray, limit: int, seed: int) -> np.ndarray:
    """At most ``limit`` of ``ids`` (int64 (n,)), chosen at random by ``seed``, ascending."""
    check_limit(limit)
    if len(ids) <= limit:
        return ids
    chosen = np.random.default_rng(seed).choice(ids, size=limit, replace=False)
    return np.sort(chosen)


def project(
    fitted: np.ndarray, extra: np.ndarray, method: str, seed: int
) -> tuple[np.ndarray, str]:
    """2-D positions of ``fitted`` (n, d) then ``extra`` (m, d) rows; returns (n + m, 2), method.

    PCA is fitted on ``fitted`` alone and places ``extra`` (queries, hits outside
    the sample) with the same axes. t-SNE and UMAP cannot place a new point
    after the fact, so they are fitted on both together. The method returned is
    the one used: PCA when there are too few points for t-SNE or UMAP.
    """
    check_method(method)
    everything = np.vstack([fitted, extra]).astype(np.float32)  # (n + m, d)
    if method == "pca" or len(everything) < MIN_NEIGHBOURHOOD:
        return _pca(fitted, everything), "pca"
    if method == "tsne":
        return _tsne(everything, seed), method
    return _umap(everything, seed), method


def _pca(fitted: np.ndarray, placed: np.ndarray) -> np.ndarray:
    """``placed`` (m, d) on the first two principal axes of ``fitted`` (n, d) -> (m, 2)."""
    if len(fitted) == 0:
        return np.zeros((len(placed), 2), dtype=np.float32)
    mean = fitted.mean(axis=0, dtype=np.float64)  # (d,)
    centred = fitted - mean  # (n, d) float64
    # Eigenvectors of the (d, d) scatter matrix rather than an SVD of the (n, d)
    # data: the same axes, many times faster when other jobs share the cores.
    _, vectors = np.linalg.eigh(centred.T @ centred)  # ascending eigenvalues
    axes = vectors[:, ::-1][:, :2].T  # (2, d), largest variance first
    # Eigenvector signs are arbitrary: make each axis's largest entry positive so
    # that the map never mirrors between runs or machines.
    largest = axes[np.arange(2), np.abs(axes).argmax(axis=1)]  # (2,)
    axes = axes * np.where(largest < 0, -1.0, 1.0)[:, None]
    return ((placed - mean) @ axes.T).astype(np.float32)  # (m, 2)


def _tsne(vectors: np.ndarray, seed: int) -> np.ndarray:
    from sklearn.manifold import TSNE

    # scikit-learn requires perplexity < n; 30 (its default) once there are enough points.
    perplexity = min(30.0, (len(vectors) - 1) / 3)
    model = TSNE(n_components=2, perplexity=perplexity, init="pca", random_state=seed)
    return np.asarray(model.fit_transform(vectors), dtype=np.float32)  # (n, 2)


def _umap(vectors: np.ndarray, seed: int) -> np.ndarray:
    import umap  # present: check_method saw it

    model = umap.UMAP(
        n_components=2, n_neighbors=min(15, len(vectors) - 1), metric="cosine", random_state=seed,
    )
    with warnings.catch_warnings():
        # A seed makes UMAP run on one thread, which is the point (it is then
        # deterministic); it warns about that on every call.
        warnings.filterwarnings("ignore", message=".*n_jobs value.*", category=UserWarning)
        return np.asarray(model.fit_transform(vectors), dtype=np.float32)  # (n, 2)
