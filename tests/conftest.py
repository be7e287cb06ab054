from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


@pytest.hookimpl(optionalhook=True)  # a run without xdist (`-p no:xdist`) has no such hook
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """One work unit per test file, so that a module's fixtures (a server, an indexed
    store) are built once, on one worker; Ray's tests are one unit, as two local Ray
    clusters on one machine would fight over its CPUs.

    xdist's `--dist loadgroup` markers cannot say this under pytest 9: xdist 3.8 writes the
    group into `item._nodeid`, which pytest 9 no longer reads, so each module's tests were
    spread over both workers and its fixtures built twice (some 25 s a browser module).
    """
    from xdist.scheduler import LoadScopeScheduling

    class ByFile(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return "ray" if path.startswith("tests/ingest/ray/") else path

    return ByFile(config, log)
