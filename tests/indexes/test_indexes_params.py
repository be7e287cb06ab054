"""Choosing the index kind and the IVF-PQ parameters."""

from __future__ import annotations

import numpy as np
import pytest

from embedstore.indexes import (
    EXACT_THRESHOLD,
    INDEX_KINDS,
    MIN_IVFPQ_VECTORS,
    VectorIndex,
    choose_kind,
    ivfpq_params,
)
from embedstore.indexes.params import MIN_POINTS_PER_CENTROID, resolve_ivfpq_params


def test_auto_is_exact_below_the_threshold_and_ivfpq_at_it() -> None:
    assert choose_kind("auto", 0) == "flat"
    assert choose_kind("auto", EXACT_THRESHOLD - 1) == "flat"
    assert choose_kind("auto", EXACT_THRESHOLD) == "ivfpq"
    assert choose_kind("auto", 500, threshold=500) == "ivfpq"


def test_auto_never_picks_an_ivfpq_too_small_to_train() -> None:
    assert choose_kind("auto", MIN_IVFPQ_VECTORS - 1, threshold=10) == "flat"


def test_explicit_kinds_are_kept() -> None:
    assert choose_kind("flat", 10**7) == "flat"
    assert choose_kind("ivfpq", 100) == "ivfpq"


def test_unknown_kind_lists_the_valid_ones() -> None:
    with pytest.raises(ValueError) as raised:
        choose_kind("hnsw", 10)
    for kind in INDEX_KINDS:
        assert kind in str(raised.value)


def test_negative_size_is_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        choose_kind("auto", -1)


@pytest.mark.parametrize(
    ("n", "d", "expected"),
    [
        (20_000, 384, {"nlist": 512, "m": 48, "nbits": 8, "nprobe": 128}),
        (1_000_000, 384, {"nlist": 4096, "m": 48, "nbits": 8, "nprobe": 256}),
        (1_000, 768, {"nlist": 16, "m": 64, "nbits": 4, "nprobe": 16}),
        (300, 384, {"nlist": 4, "m": 48, "nbits": 2, "nprobe": 4}),
        (300, 97, {"nlist": 4, "m": 1, "nbits": 2, "nprobe": 4}),
        (MIN_IVFPQ_VECTORS, 32, {"nlist": 2, "m": 4, "nbits": 1, "nprobe": 2}),
    ],
)
def test_ivfpq_params_follow_the_documented_rule(n: int, d: int, expected: dict[str, int]) -> None:
    assert ivfpq_params(n, d) == expected


@pytest.mark.parametrize("n", [78, 100, 300, 1_000, 5_000, 49_999, 123_457, 10**8])
def test_every_codebook_gets_enough_training_points(n: int) -> None:
    params = ivfpq_params(n, 384)
    assert params["nlist"] & (params["nlist"] - 1) == 0, "nlist is a power of two"
    assert params["nlist"] * MIN_POINTS_PER_CENTROID <= n
    assert 2 ** params["nbits"] * MIN_POINTS_PER_CENTROID <= n
    assert 1 <= params["nprobe"] <= params["nlist"]


def test_too_small_for_ivfpq_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="flat"):
        ivfpq_params(MIN_IVFPQ_VECTORS - 1, 384)


@pytest.mark.parametrize("n", [300, 1_000])
def test_small_collections_train_without_faiss_warnings(
    n: int, capfd: pytest.CaptureFixture[str]
) -> None:
    rng = np.random.default_rng(n)
    vectors = rng.standard_normal((n, 64)).astype(np.float32)  # (n, 64)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index = VectorIndex.build("ivfpq", 64, vectors, np.arange(n))
    assert index.ntotal == n
    _, ids = index.search(vectors[:5], 1, nprobe=index.params["nlist"])
    assert (ids >= 0).all()
    assert "WARNING" not in capfd.readouterr().err


def test_overrides_are_merged_and_nprobe_follows_nlist() -> None:
    params = resolve_ivfpq_params(20_000, 384, {"nlist": 256})
    assert params == {"nlist": 256, "m": 48, "nbits": 8, "nprobe": 64}
    # Values often come out of NumPy arrays; they must still fit the JSON header.
    numpy_value = {"nprobe": np.int64(5)}
    resolved = resolve_ivfpq_params(20_000, 384, numpy_value)  # type: ignore[arg-type]
    assert type(resolved["nprobe"]) is int


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"nlists": 8}, "unknown IVF-PQ parameter"),
        ({"m": 7}, "divide"),
        ({"nbits": 0}, "positive integer"),
        ({"nbits": 17}, "at most 16"),
        ({"nlist": 16, "nprobe": 32}, "exceeds nlist"),
        ({"nlist": 4096}, "training vectors"),
    ],
)
def test_bad_overrides_are_refused(overrides: dict[str, int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        resolve_ivfpq_params(2_000, 384, overrides)
