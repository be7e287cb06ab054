"""A real uvicorn server under concurrent clients: lifetimes, racing writes, big bodies."""

from __future__ import annotations

import socket
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from embedstore.api.app import create_app
from embedstore.api.settings import ServerSettings
from embedstore.store.collection import MANIFEST_FILE
from tests.api.server import REQUEST_TIMEOUT_S, serving_in_thread
from tests.fakes import FAKE_SPEC

CLIENTS = 8


@pytest.fixture
def url(settings: ServerSettings) -> Iterator[str]:
    with serving_in_thread(create_app(settings)) as base:
        yield base


def create_with_documents(client: httpx.Client, n: int = 20) -> None:
    created = client.post("/v1/collections", json={"name": "c", "encoder": FAKE_SPEC})
    assert created.status_code == 201, created.text
    docs = [{"id": f"d{i}", "text": f"def fn_{i}():\n    return {i}\n"} for i in range(n)]
    assert client.post("/v1/collections/c/documents", json={"documents": docs}).status_code == 200


class Hammer:
    """CLIENTS threads searching and reading "c" until stopped; every outcome counted."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.outcomes: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=(i,)) for i in range(CLIENTS)]

    def __enter__(self) -> Hammer:
        for t in self._threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for t in self._threads:
            t.join()

    def _run(self, i: int) -> None:
        requests = [
            ("POST", "/v1/collections/c/search", {"query": "fn return", "k": 5, "mode": "hybrid"}),
            ("POST", "/v1/collections/c/search", {"query": "fn_3", "k": 3, "mode": "lexical"}),
            ("GET", "/v1/collections/c", None),
            ("GET", "/v1/collections/c/documents/d1", None),
            ("GET", "/v1/collections", None),
        ]
        with httpx.Client(base_url=self.url, timeout=REQUEST_TIMEOUT_S) as client:
            n = i
            while not self._stop.is_set():
                method, path, body = requests[n % len(requests)]
                n += 1
                try:
                    outcome = str(client.request(method, path, json=body).status_code)
                except httpx.HTTPError as exc:
                    outcome = type(exc).__name__
                with self._lock:
                    self.outcomes[outcome] += 1


def test_f3_search_during_reindex_delete_and_recreate_never_5xx(
    url: str, tmp_path: Path
) -> None:
    folder = tmp_path / "src"
    folder.mkdir()
    for i in range(30):
        (folder / f"m{i}.py").write_text(f"def module_{i}(x):\n    return x * {i}\n")
    with httpx.Client(base_url=url, timeout=REQUEST_TIMEOUT_S) as client:
        create_with_documents(client)
        with Hammer(url) as hammer:
            for _ in range(3):
                job = client.post("/v1/collections/c/index", json={"path": str(folder)}).json()
                while client.get(f"/v1/jobs/{job['id']}").json()["state"] not in ("done", "failed"):
                    time.sleep(0.05)
                assert client.get(f"/v1/jobs/{job['id']}").json()["state"] == "done"
                deleted = client.delete("/v1/collections/c")
                assert deleted.status_code == 200, deleted.text
                time.sleep(0.2)
                create_with_documents(client)
                time.sleep(0.2)
    outcomes = hammer.outcomes
    assert set(outcomes) <= {"200", "404", "409"}, outcomes
    assert outcomes["200"] > 0 and outcomes["404"] > 0, outcomes


def test_f4_concurrent_metrics_after_a_hand_edited_manifest(
    url: str, settings: ServerSettings
) -> None:
    with httpx.Client(base_url=url, timeout=REQUEST_TIMEOUT_S) as client:
        create_with_documents(client, 2)
    manifest = settings.store / "c" / MANIFEST_FILE
    statuses: Counter[int] = Counter()
    lock = threading.Lock()

    def scrape() -> None:
        with httpx.Client(base_url=url, timeout=REQUEST_TIMEOUT_S) as c:
            for _ in range(10):
                status = c.get("/metrics").status_code
                with lock:
                    statuses[status] += 1

    for _ in range(3):
        manifest.write_text(manifest.read_text() + " ")
        threads = [threading.Thread(target=scrape) for _ in range(CLIENTS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert statuses == Counter({200: 3 * CLIENTS * 10})


def post_with_urllib(url: str, data: object, headers: dict[str, str]) -> tuple[int, bytes]:
    request = urllib.request.Request(f"{url}/v1/embeddings", data=data, headers=headers)  # type: ignore[arg-type]
    try:
        with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_S) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def test_f10_oversized_body_is_a_413_that_urllib_reads(url: str) -> None:
    body = b'{"input": "' + b"x" * (10 * 1024 * 1024) + b'"}'
    status, answer = post_with_urllib(url, body, {"Content-Type": "application/json"})
    assert status == 413 and b"too_large" in answer


def test_f10_oversized_chunked_body_is_a_413(url: str) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"input": "'
        for _ in range(64):
            yield b"x" * 16384
        yield b'"}'

    status, answer = post_with_urllib(
        url, chunks(), {"Content-Type": "application/json", "Transfer-Encoding": "chunked"}
    )
    assert status == 413 and b"too_large" in answer
    # the server is still fine afterwards
    assert httpx.get(f"{url}/health", timeout=REQUEST_TIMEOUT_S).status_code == 200


def test_f10_a_client_expecting_100_continue_gets_the_413_before_sending(url: str) -> None:
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(
            b"POST /v1/embeddings HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 10485760\r\nExpect: 100-continue\r\n\r\n"
        )
        answer = b""
        while b"}}" not in answer:  # no body sent: the server must not wait for one
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 413") and b"too_large" in answer
