"""Queries through the ONNX export: the same vectors and rankings as torch, refused when not."""

from __future__ import annotations

import shutil
import sysconfig
from pathlib import Path

import numpy as np
import pytest

from embedstore.encoders import onnx_export
from embedstore.encoders.onnx_export import ensure_exported
from embedstore.encoders.onnx_model import CONFIG_FILE, export_folder, load_exported
from embedstore.encoders.precision import PARITY
from embedstore.encoders.query import query_encoder
from embedstore.encoders.sentence_transformer import SentenceTransformerEncoder
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.retrieval.search import SearchResult, search
from embedstore.store.store import Store
from tests.fakes import FakeEncoder
from tests.tiny_model import build_tiny_model

TEXTS = ["def parse config", "close the file cache", "  return  ", "open file " * 40]


@pytest.fixture(autouse=True)
def fresh_attempts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(onnx_export, "_ATTEMPTS", {})


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> SentenceTransformerEncoder:
    folder = build_tiny_model(tmp_path_factory.mktemp("tiny"), pooling="mean")
    return SentenceTransformerEncoder(str(folder), name=str(folder), precision="fp32")


def test_the_export_encodes_and_counts_like_torch(
    tiny: SentenceTransformerEncoder, tmp_path: Path
) -> None:
    before = tiny.encode(TEXTS)
    folder = ensure_exported(tiny, tmp_path)
    assert folder is not None and (folder / CONFIG_FILE).is_file()
    exported = load_exported(tmp_path, tiny.name, tiny.pooling)
    assert exported is not None
    np.testing.assert_allclose(exported.encode(TEXTS, kind="query"), before, atol=1e-5)
    assert exported.count_tokens(TEXTS) == tiny.count_tokens(TEXTS)
    assert (exported.dim, exported.max_tokens, exported.pooling) == (32, tiny.max_tokens, "mean")
    # Exporting leaves the torch model in eval mode: dropout stays off.
    np.testing.assert_allclose(tiny.encode(TEXTS), before, atol=1e-6)


def test_an_export_that_does_not_match_torch_is_refused(
    tiny: SentenceTransformerEncoder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    true_encode = onnx_export.OnnxEncoder.encode

    def perturbed(self: object, texts: list[str], **kwargs: object) -> np.ndarray:
        vectors = true_encode(self, texts, **kwargs)  # type: ignore[arg-type]
        noisy = vectors + np.random.default_rng(0).normal(0, 0.2, vectors.shape)
        return noisy / np.linalg.norm(noisy, axis=1, keepdims=True)

    monkeypatch.setattr(onnx_export.OnnxEncoder, "encode", perturbed)
    assert ensure_exported(tiny, tmp_path) is None
    assert not export_folder(tmp_path, tiny.name, tiny.pooling).exists()
    assert load_exported(tmp_path, tiny.name, tiny.pooling) is None
    # Queries still encode, with torch.
    assert query_encoder(tmp_path, tiny.name, tiny.pooling) is not None


def test_encoders_that_cannot_export_keep_encoding_queries_with_torch(tmp_path: Path) -> None:
    assert ensure_exported(FakeEncoder(), tmp_path) is None
    assert not (tmp_path / ".onnx").exists()


@pytest.fixture(scope="module")
def small_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("repo") / "lib"
    root.mkdir()
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for name in ("textwrap.py", "shlex.py", "fnmatch.py", "colorsys.py"):
        shutil.copy(stdlib / name, root / name)
    return root


QUERIES = [
    "split a string using shell-like syntax", "wrap text to a given width",
    "match a filename against a pattern", "convert rgb color to hsv", "escape a shell argument",
]


# bf16 moves a cosine by about 1e-3: two units whose fp32 scores are closer may swap.
TIE = 2e-3


def assert_same_top_10(got: list[SearchResult], reference: list[SearchResult]) -> None:
    """The same units in the same order, up to swaps of near-ties in the fp32 scores."""
    exact = {(r.path, r.start_line): r.score for r in reference}
    want = list(exact)[:10]
    found = [(r.path, r.start_line) for r in got]
    for mine, theirs in zip(found, want, strict=True):
        assert mine in exact, f"{mine} is not in fp32's top {len(reference)}"
        assert abs(exact[mine] - exact[theirs]) < TIE, (found, want)


@pytest.mark.slow
def test_fast_paths_rank_like_fp32_on_a_small_repo(small_repo: Path, tmp_path: Path) -> None:
    """bf16 documents (where the CPU has it) and ONNX queries give fp32's top-10."""
    store = Store(tmp_path)
    index_folder(store, small_repo, IndexOptions(name="exact", precision="fp32"))
    index_folder(store, small_repo, IndexOptions(name="fast"))
    exact, fast = store.open("exact"), store.open("fast")
    assert exact.manifest.precision == "fp32"
    assert fast.manifest.precision in ("bf16", "fp32")
    torch_encoder = exact.encoder
    assert isinstance(torch_encoder, SentenceTransformerEncoder)
    assert type(fast.query_encoder).__name__ == "OnnxEncoder"  # exported by index_folder
    for query in QUERIES:
        vector = torch_encoder.encode_exact([query])  # (1, d)
        reference = search(exact, query, 15, mode="dense", query_vector=vector)
        assert_same_top_10(search(exact, query, 10, mode="dense"), reference)
        assert_same_top_10(search(fast, query, 10, mode="dense"), reference)
        onnx_vector = fast.query_encoder.encode([query], kind="query")  # (1, d)
        assert float(onnx_vector[0] @ vector[0]) >= PARITY
