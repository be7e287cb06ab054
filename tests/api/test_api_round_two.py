"""Findings of the second hardening review (issue 21) that a TestClient reproduces."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import uvicorn
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from embedstore.api.app import create_app
from embedstore.api.settings import ServerSettings
from embedstore.cli.app import app as cli_app
from embedstore.errors import UserInputError
from tests.api.conftest import error_of
from tests.fakes import FakeEncoder

KEY = "round-two-key"


@pytest.fixture
def keyed(settings: ServerSettings) -> TestClient:
    return TestClient(create_app(settings.model_copy(update={"api_keys": [KEY]})))


@pytest.mark.parametrize("token", [b"\xff\xfe", "k\u00e9y".encode(), b"\x80" * 40])
def test_f2_a_non_ascii_key_is_a_401_everywhere(keyed: TestClient, token: bytes) -> None:
    headers = {"authorization": b"Bearer " + token}
    with keyed as client:
        for method, path in (("GET", "/v1/collections"), ("GET", "/metrics"),
                             ("POST", "/mcp")):
            response = client.request(method, path, headers=headers, json={})
            assert error_of(response)[:2] == (401, "unauthorized"), (path, response.text)
        ok = client.get("/v1/collections", headers={"authorization": f"Bearer {KEY}"})
        assert ok.status_code == 200


@pytest.mark.parametrize("key", ["k\u00e9y42", "tab\tkey", "bell\x07"])
def test_f2_a_key_that_cannot_be_sent_is_refused_at_start(tmp_path: Path, key: str) -> None:
    with pytest.raises(UserInputError, match="printable ASCII"):
        create_app(ServerSettings(store=tmp_path, api_keys=[key], preload_model=False))


def refuses_to_serve(monkeypatch: pytest.MonkeyPatch, *args: str, env: dict[str, str]) -> str:
    """The one stderr line of a `serve` that must not start."""

    def serve_forever(*args: object, **kwargs: object) -> None:
        raise AssertionError("the server started")

    monkeypatch.setattr(uvicorn, "run", serve_forever)
    monkeypatch.setattr(uvicorn.Server, "run", serve_forever)
    result = CliRunner().invoke(cli_app, ["serve", *args], env=env)
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 1 and len(lines) == 1, result.stderr
    return lines[0]


def test_f2_serve_with_a_non_ascii_key_does_not_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    line = refuses_to_serve(monkeypatch, "--api-key", "k\u00e9y42", "--store", str(tmp_path),
                            env={})
    assert "printable ASCII" in line


@pytest.mark.parametrize("value", [" ", ",", "", "good,", "good, ,other"])
def test_f3_a_blank_environment_key_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    with pytest.raises(UserInputError, match="must not be empty"):
        monkeypatch.setenv("EMBEDSTORE_API_KEYS", value)
        create_app(ServerSettings(store=tmp_path, preload_model=False))
    line = refuses_to_serve(monkeypatch, "--store", str(tmp_path),
                            env={"EMBEDSTORE_API_KEYS": value})
    assert "must not be empty" in line


def test_f3_environment_keys_are_split_at_commas(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_encoder: FakeEncoder
) -> None:
    monkeypatch.setenv("EMBEDSTORE_API_KEYS", "first, second")
    with TestClient(create_app(ServerSettings(store=tmp_path, preload_model=False))) as client:
        for key in ("first", "second"):
            headers = {"authorization": f"Bearer {key}"}
            assert client.get("/v1/collections", headers=headers).status_code == 200
        assert client.get("/v1/collections").status_code == 401


def test_f6_one_damaged_collection_is_listed_as_such_beside_the_others(
    client: TestClient, settings: ServerSettings
) -> None:
    damaged = settings.store / "broken"
    damaged.mkdir()
    (damaged / "meta.sqlite").write_bytes(b"not a database at all " * 300)
    listed = client.get("/v1/collections")
    assert listed.status_code == 200, listed.text
    entries = {entry["name"]: entry for entry in listed.json()}
    assert entries["c"]["files"] == 1
    assert "is damaged" in entries["broken"]["unreadable"]
    metrics = client.get("/metrics")
    assert metrics.status_code == 200
    assert 'embedstore_collection_units{collection="c"} 1.0' in metrics.text
    assert 'embedstore_collection_unreadable{collection="broken"} 1.0' in metrics.text
    models = client.get("/v1/models")
    served = {model["id"]: model["collections"] for model in models.json()["data"]}
    assert models.status_code == 200 and ["c"] in served.values()
    status, code, message = error_of(client.get("/v1/collections/broken"))
    assert (status, code) == (500, "damaged") and "embedstore rm broken" in message
    cli = CliRunner().invoke(cli_app, ["list", "--store", str(settings.store), "--json"])
    assert cli.exit_code == 0, cli.stderr
    rows = {row["name"]: row for row in json.loads(cli.stdout)["collections"]}
    assert rows["c"]["files"] == 1 and "is damaged" in rows["broken"]["unreadable"]
    table = CliRunner().invoke(cli_app, ["list", "--store", str(settings.store)])
    assert table.exit_code == 0 and "unreadable: collection 'broken' is damaged" in table.stdout


@pytest.mark.parametrize("path", ["x" * 300, "sub/" + "z" * 256, "deep/" + "q" * 3000])
def test_f7_a_path_too_long_for_the_system_is_a_404(client: TestClient, path: str) -> None:
    status, code, message = error_of(client.post("/v1/collections/c/index", json={"path": path}))
    assert (status, code) == (404, "not_found") and "not a folder on the server" in message


def test_f7_a_loop_of_links_is_a_404(client: TestClient, tmp_path: Path) -> None:
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    status, code, message = error_of(client.post("/v1/collections/c/index",
                                                 json={"path": "loop1"}))
    assert (status, code) == (404, "not_found") and "loop" in message


def test_f4_a_keyed_server_declares_its_bearer_scheme(
    keyed: TestClient, client: TestClient
) -> None:
    with keyed as secured:
        spec = secured.get("/openapi.json").json()
    assert spec["components"]["securitySchemes"] == {"bearerAuth": {
        "type": "http", "scheme": "bearer",
        "description": "One of the server's API keys (--api-key, EMBEDSTORE_API_KEYS).",
    }}
    operations = [(path, op) for path, ops in spec["paths"].items() for op in ops.values()]
    secured_paths = {path for path, op in operations if op.get("security")}
    assert "/v1/collections/{name}/search" in secured_paths and "/metrics" in secured_paths
    assert all(op.get("security") == [{"bearerAuth": []}] for path, op in operations
               if path.startswith("/v1/"))
    assert "/health" not in secured_paths
    # Without keys there is nothing to send.
    assert "securitySchemes" not in client.get("/openapi.json").json()["components"]
