from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

# A model that is not on disk must fail at once instead of waiting on the network.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

from tests.fakes import FAKE_SPEC, FakeEncoder, install_fake_encoder


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own store, never the user's."""
    home = tmp_path / "store"
    monkeypatch.setenv("EMBEDSTORE_HOME", str(home))
    return home


@pytest.fixture
def fake_encoder() -> Iterator[FakeEncoder]:
    encoder = install_fake_encoder()
    encoder.encoded.clear()
    yield encoder


__all__ = ["FAKE_SPEC"]


# First: xdist's own hook reads the group markers to schedule (with `--dist loadgroup`).
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """One xdist group per test file, so that a module's fixtures (a server, an indexed
    store) are built once, on one worker; Ray's tests share one group, as two local Ray
    clusters on one machine would fight over its CPUs."""
    for item in items:
        path = item.path.as_posix()
        group = "ray" if "/tests/ingest/ray/" in path else path
        item.add_marker(pytest.mark.xdist_group(group))
