from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch

from embedstore.encoders.plt.embedder import PLTEmbedder
from embedstore.encoders.plt.family import load_plt
from embedstore.encoders.plt.folder import save_folder
from embedstore.encoders.registry import register_family
from tests.plt.tiny import tiny_config, tiny_tokenizer


@pytest.fixture(autouse=True)
def one_torch_thread() -> Iterator[None]:
    """Tiny tensors gain nothing from a second thread, and on a busy machine two
    threads spin waiting for each other (seconds per test instead of milliseconds)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def tokenizer(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return tiny_tokenizer(tmp_path_factory.mktemp("tokenizer"))


@pytest.fixture
def plt_folder(tmp_path: Path, tokenizer: Any) -> Path:
    """A random tiny PLT saved as `plt train` saves one (projection included)."""
    config = tiny_config(vocab_size=len(tokenizer), proj_dim=24, pooling="last")
    folder = tmp_path / "plt"
    save_folder(PLTEmbedder(config).eval(), tokenizer, folder)
    return folder


@pytest.fixture
def plt_family() -> None:
    """`plt:` specs resolve, as they will once the registry registers the family."""
    register_family("plt", load_plt)


@pytest.fixture(scope="session")
def tiny_teacher(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random 32-d sentence-transformers model: a teacher that loads in a second."""
    from tests.tiny_model import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("teacher"), pooling="mean")
