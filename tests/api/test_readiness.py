"""/ready is 503 until the models are loaded, so a load balancer sends no search to a server
that would make it wait (issue 31: /health answered at once, and the first searches took 3x
longer). TestClient; the default model's load held back by the test."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from embedstore.api import app as app_module
from embedstore.api.app import create_app
from embedstore.api.settings import ServerSettings
from embedstore.encoders.base import Encoder


def test_ready_is_503_until_the_models_are_loaded_and_health_stays_200(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()

    def slow_load(spec: str | None = None) -> Encoder | None:
        assert release.wait(30), "the test never released the model"
        return None

    monkeypatch.setattr(app_module, "load_encoder", slow_load)
    with TestClient(create_app(ServerSettings(store=tmp_path / "store"))) as client:
        loading = client.get("/ready")
        assert loading.status_code == 503 and loading.json() == {"status": "loading"}
        assert loading.headers["retry-after"] == "1"
        health = client.get("/health")
        assert health.status_code == 200 and health.json()["ready"] is False

        release.set()
        deadline = time.monotonic() + 30
        while (answer := client.get("/ready")).status_code == 503:
            assert time.monotonic() < deadline, "never ready"
            time.sleep(0.05)
        assert answer.status_code == 200 and answer.json() == {"status": "ready"}
        assert client.get("/health").json()["ready"] is True


def test_without_preloading_the_server_is_ready_at_once(tmp_path: Path) -> None:
    settings = ServerSettings(store=tmp_path / "store", preload_model=False)
    with TestClient(create_app(settings)) as client:
        assert client.get("/ready").status_code == 200
        assert client.get("/health").json()["ready"] is True
