"""Saving and loading a VectorIndex: round trips, atomicity, damaged files."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from embedstore.errors import VectorIndexError
from embedstore.indexes import VectorIndex
from embedstore.indexes import io as index_io

Collection = tuple[npt.NDArray[np.float32], npt.NDArray[np.int64], npt.NDArray[np.float32]]


@pytest.fixture(params=["flat", "ivfpq"])
def index(request: pytest.FixtureRequest, small_collection: Collection) -> VectorIndex:
    base, ids, _ = small_collection
    return VectorIndex.build(request.param, base.shape[1], base, ids)


def test_round_trip_keeps_kind_params_ids_and_results(
    index: VectorIndex, small_collection: Collection, tmp_path: Path
) -> None:
    _, ids, queries = small_collection
    index.remove(ids[:10])
    path = tmp_path / "vectors.faiss"
    index.save(path)
    loaded = VectorIndex.load(path)
    assert (loaded.kind, loaded.dim, loaded.params, loaded.ntotal) == (
        index.kind,
        index.dim,
        index.params,
        index.ntotal,
    )
    before = index.search(queries, 10)
    after = loaded.search(queries, 10)
    np.testing.assert_array_equal(after[1], before[1])
    np.testing.assert_array_equal(after[0], before[0])
    assert set(after[1].ravel().tolist()) <= set(ids[10:].tolist()) | {-1}


def test_a_loaded_index_can_still_change(
    index: VectorIndex, small_collection: Collection, tmp_path: Path
) -> None:
    _, ids, queries = small_collection
    index.save(tmp_path / "vectors.faiss")
    loaded = VectorIndex.load(tmp_path / "vectors.faiss")
    assert loaded.remove(ids[:5]) == 5
    loaded.add(np.array([5, 6]), queries[:2])
    assert loaded.ntotal == index.ntotal - 3


def test_save_leaves_only_the_target_and_replaces_it(index: VectorIndex, tmp_path: Path) -> None:
    path = tmp_path / "vectors.faiss"
    path.write_bytes(b"an older index")
    index.save(path)
    assert os.listdir(tmp_path) == ["vectors.faiss"]
    assert VectorIndex.load(path).ntotal == index.ntotal


def test_a_failed_save_keeps_the_old_file_and_no_temporary(
    index: VectorIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "vectors.faiss"
    index.save(path)
    old_bytes = path.read_bytes()

    def crash(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(VectorIndexError, match="disk full"):
        index.save(path)
    assert os.listdir(tmp_path) == ["vectors.faiss"]
    assert path.read_bytes() == old_bytes


@pytest.mark.parametrize("keep", [0.5, 0.99])
def test_a_truncated_file_is_refused(index: VectorIndex, tmp_path: Path, keep: float) -> None:
    path = tmp_path / "vectors.faiss"
    index.save(path)
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    with pytest.raises(VectorIndexError, match="damaged"):
        VectorIndex.load(path)


def test_a_flipped_byte_is_refused(index: VectorIndex, tmp_path: Path) -> None:
    path = tmp_path / "vectors.faiss"
    index.save(path)
    data = bytearray(path.read_bytes())
    data[-100] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(VectorIndexError, match="checksum"):
        VectorIndex.load(path)


@pytest.mark.parametrize("content", [b"", b"not an index at all", b"EMBSTIDX\xff\xff\xff\x7f{}"])
def test_a_foreign_file_is_refused(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "vectors.faiss"
    path.write_bytes(content)
    with pytest.raises(VectorIndexError, match="damaged"):
        VectorIndex.load(path)


def test_a_missing_file_says_to_build(tmp_path: Path) -> None:
    with pytest.raises(VectorIndexError, match="build the index"):
        VectorIndex.load(tmp_path / "absent.faiss")


def test_a_file_from_another_format_version_is_refused(
    index: VectorIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "vectors.faiss"
    monkeypatch.setattr(index_io, "FORMAT_VERSION", index_io.FORMAT_VERSION + 1)
    index.save(path)
    monkeypatch.undo()
    with pytest.raises(VectorIndexError, match="format"):
        VectorIndex.load(path)


def test_a_header_that_contradicts_the_index_is_refused(index: VectorIndex, tmp_path: Path) -> None:
    path = tmp_path / "vectors.faiss"
    index.save(path)
    header, payload = index_io.read_index_file(path)
    header["kind"] = "ivfpq" if index.exact else "flat"
    index_io.write_index_file(path, header, payload)
    with pytest.raises(VectorIndexError, match="does not match its header"):
        VectorIndex.load(path)
