"""GET /v1/collections/{name}/map through a real uvicorn server on 127.0.0.1 (fake encoder)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema_rs
import pytest

from embedstore.api.app import create_app
from embedstore.api.map_schemas import MapResponse
from embedstore.api.settings import ServerSettings
from tests.api.server import REQUEST_TIMEOUT_S, serving_in_thread
from tests.fakes import FakeEncoder
from tests.plot.corpus import indexed_store

KEY = "map-test-key"


@pytest.fixture
def base_url(tmp_path: Path, fake_encoder: FakeEncoder) -> Iterator[str]:
    store = indexed_store(tmp_path)
    settings = ServerSettings(store=store.root, preload_model=False, api_keys=[KEY])
    with serving_in_thread(create_app(settings)) as url:
        yield url


def response_schema(openapi: dict[str, Any], path: str) -> dict[str, Any]:
    """The 200 response's JSON schema, with the components its $refs point into."""
    ok = openapi["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]
    return {**ok["schema"], "components": openapi["components"]}


def test_map_json_validates_against_the_published_schema(base_url: str) -> None:
    headers = {"Authorization": f"Bearer {KEY}"}
    with httpx.Client(base_url=base_url, headers=headers, timeout=REQUEST_TIMEOUT_S) as client:
        openapi = client.get("/openapi.json").json()
        schema = response_schema(openapi, "/v1/collections/{name}/map")
        for method in ("pca", "tsne"):
            response = client.get("/v1/collections/proj/map", params={
                "method": method, "limit": 20, "seed": 3,
            })
            assert response.status_code == 200, response.text
            body = response.json()
            jsonschema_rs.Draft202012Validator(schema).validate(body)
            MapResponse.model_validate(body)
            assert (body["method"], body["sampled"], body["total_units"]) == (method, 20, 31)
            assert len(body["points"]) == 20 and body["queries"] == []
            first = body["points"][0]
            assert first["path"].endswith((".py", ".md")) and first["end_line"] >= first[
                "start_line"]
            # The second call is served from the collection's map cache: the same JSON.
            assert client.get("/v1/collections/proj/map", params={
                "method": method, "limit": 20, "seed": 3,
            }).json() == body
        # The published enum is what this server runs.
        method_param = next(p for p in openapi["paths"]["/v1/collections/{name}/map"]["get"][
            "parameters"] if p["name"] == "method")
        assert method_param["schema"]["enum"][:2] == ["pca", "tsne"]

        bad = client.get("/v1/collections/proj/map", params={"method": "mds"})
        assert bad.status_code == 422 and "pca, tsne, umap" in bad.json()["error"]["message"]
        too_many = client.get("/v1/collections/proj/map", params={"limit": 10**6})
        assert too_many.status_code == 422
        assert client.get("/v1/collections/ghost/map").status_code == 404


def test_map_needs_the_api_key_like_every_v1_route(base_url: str) -> None:
    response = httpx.get(f"{base_url}/v1/collections/proj/map", timeout=REQUEST_TIMEOUT_S)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"


def test_the_map_reads_one_snapshot_while_documents_change(base_url: str) -> None:
    """Issue 21, F5: ids, vectors and rows read while a writer commits used to disagree (a
    KeyError, a 500 that also closed the keep-alive connection)."""
    headers = {"Authorization": f"Bearer {KEY}"}
    stop = threading.Event()

    def write() -> None:
        with httpx.Client(base_url=base_url, headers=headers, timeout=REQUEST_TIMEOUT_S) as writer:
            i = 0
            while not stop.is_set():
                doc = {"id": f"churn{i % 3}", "text": f"def churn_{i}():\n    return {i}\n"}
                writer.post("/v1/collections/proj/documents", json={"documents": [doc]})
                writer.delete(f"/v1/collections/proj/documents/churn{(i + 1) % 3}")
                i += 1

    writer = threading.Thread(target=write)
    writer.start()
    try:
        with httpx.Client(base_url=base_url, headers=headers, timeout=REQUEST_TIMEOUT_S) as client:
            statuses = [
                client.get("/v1/collections/proj/map", params={"limit": 40, "seed": seed})
                .status_code for seed in range(25)
            ]
    finally:
        stop.set()
        writer.join()
    assert statuses == [200] * 25
