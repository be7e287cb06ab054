"""End to end against a real uvicorn server with the real default model."""

from __future__ import annotations

import shutil
import sysconfig
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest

from embedstore.encoders.registry import load_encoder
from tests.api.server import REQUEST_TIMEOUT_S, SERVED_PRECISION, Server, running_server

STDLIB = Path(sysconfig.get_paths()["stdlib"])


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("api")
    allowed = base / "allowed"
    small = allowed / "small"
    small.mkdir(parents=True)
    for name in ("shlex.py", "fnmatch.py"):
        shutil.copy(STDLIB / name, small / name)
    big = allowed / "big"
    shutil.copytree(STDLIB / "json", big / "json", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("shlex.py", "fnmatch.py", "textwrap.py", "colorsys.py", "glob.py"):
        shutil.copy(STDLIB / name, big / name)
    secret = base / "secret"
    secret.mkdir()
    (secret / "keys.py").write_text("API_TOKEN = 'do not index me'\n")
    (allowed / "escape").symlink_to(secret)
    return {"allowed": allowed, "small": small, "big": big, "store": base / "store"}


@pytest.fixture(scope="module")
def server(roots: dict[str, Path]) -> Iterator[Server]:
    with running_server(roots["store"], "--allow-root", str(roots["allowed"])) as srv:
        yield srv


def wait_for_job(client: httpx.Client, job_id: str, timeout: float = 300) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = client.get(f"/v1/jobs/{job_id}").json()
        if job["state"] in ("done", "failed"):
            return job
        time.sleep(0.3)
    raise TimeoutError(job_id)


@pytest.fixture(scope="module")
def client(server: Server, roots: dict[str, Path]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=REQUEST_TIMEOUT_S) as c:
        started = c.post("/v1/collections/code/index", json={"path": str(roots["small"])})
        assert started.status_code == 202, started.text
        job = wait_for_job(c, started.json()["id"])
        assert job["state"] == "done", job
        yield c


def test_health_is_ready(client: httpx.Client) -> None:
    body = client.get("/health").json()
    assert body == {"status": "ok", "ready": True, "collections": body["collections"]}


def test_index_job_reports_progress_and_search_finds_function(client: httpx.Client) -> None:
    jobs = client.get("/v1/jobs").json()
    done = next(j for j in jobs if j["collection"] == "code")
    assert done["stages"]["encode"]["done"] == done["report"]["chunks_encoded"] > 0
    r = client.post("/v1/collections/code/search",
                    json={"query": "Split the string s using shell-like syntax", "k": 3})
    assert r.status_code == 200
    hits = r.json()["results"]
    assert any(h["path"] == "shlex.py" and "def split(" in h["text"] for h in hits)
    assert set(hits[0]) >= {"id", "path", "start_line", "end_line", "language", "score", "text"}


def test_batch_search_and_highlight(client: httpx.Client) -> None:
    r = client.post("/v1/collections/code/search/batch",
                    json={"queries": ["shell quoting", "filename pattern matching"], "k": 2})
    assert r.status_code == 200
    assert [len(x["results"]) for x in r.json()["results"]] == [2, 2]
    one = client.post("/v1/collections/code/search",
                      json={"query": "fnmatch", "k": 1, "highlight": True}).json()
    assert '<div class="hl">' in one["results"][0]["html"]


def test_context_endpoint_fits_budget(client: httpx.Client) -> None:
    r = client.post("/v1/collections/code/context",
                    json={"query": "match file names against shell patterns", "max_tokens": 200})
    body = r.json()
    assert r.status_code == 200 and 0 < body["tokens"] <= 200
    assert body["text"].startswith(body["blocks"][0]["path"] + ":")


def test_context_for_the_code_at_a_cursor(client: httpx.Client, roots: dict[str, Path]) -> None:
    """The code before a cursor that imports from another file gets that file's definitions."""
    code = "import shlex\nfrom fnmatch import translate\n\n\ndef glob_to_regex(pat):\n    return "
    r = client.post("/v1/collections/code/context", json={
        "code": code, "code_after": "\n", "path": "mine.py", "max_tokens": 300,
        "tokenizer": "cl100k_base",
    })
    assert r.status_code == 200, r.text
    body = r.json()
    assert 0 < body["tokens"] <= 300
    assert "def translate(pat):" in body["text"]
    assert "fnmatch.py" in {b["path"] for b in body["blocks"]}
    folder = client.post("/v1/collections/code/context", json={
        "code": code, "tokenizer": str(roots["allowed"] / "nowhere"),
    })
    assert folder.status_code == 404 and "nowhere" in folder.json()["error"]["message"]
    for bad in ({"query": "x", "code": "y"}, {}, {"query": "x", "path": "a.py"}):
        refused = client.post("/v1/collections/code/context", json=bad)
        assert refused.status_code == 422, bad
    secret = client.post("/v1/collections/code/context", json={
        "code": code, "tokenizer": "/etc",
    })
    assert secret.status_code == 403


def test_context_for_a_cursor_in_a_models_prompt_format(client: httpx.Client) -> None:
    code = "from fnmatch import translate\n\nregex = "
    qwen = client.post("/v1/collections/code/context", json={
        "code": code, "code_after": "\n", "path": "mine.py", "format": "qwen",
    })
    assert qwen.status_code == 200, qwen.text
    prompt = qwen.json()["prompt"]
    assert prompt.startswith("<|repo_name|>code\n<|file_sep|>fnmatch.py\n")
    assert prompt.endswith(f"<|file_sep|>mine.py\n<|fim_prefix|>{code}<|fim_suffix|>\n"
                           "<|fim_middle|>")
    infill = client.post("/v1/collections/code/context",
                         json={"code": code, "format": "llama-infill"}).json()["prompt"]
    assert infill["input_prefix"] == code
    assert "fnmatch.py" in {e["filename"] for e in infill["input_extra"]}
    for bad in ({"code": code, "format": "gpt"}, {"query": "x", "format": "qwen"}):
        refused = client.post("/v1/collections/code/context", json=bad)
        assert refused.status_code == 422, bad


def test_search_and_context_across_collections(
    client: httpx.Client, roots: dict[str, Path]
) -> None:
    """POST /v1/search and /v1/context cover every collection unless some are named."""
    made = client.post("/v1/collections", json={"name": "crossnotes", "index_kind": "flat"})
    assert made.status_code == 201, made.text
    doc = {"id": "n1", "text": "def quote_shell_word(s):\n    return repr(s)\n", "path": "q.py"}
    assert client.post("/v1/collections/crossnotes/documents",
                       json={"documents": [doc]}).status_code == 200
    try:
        every = client.post("/v1/search", json={"query": "quote a word for the shell", "k": 10})
        assert every.status_code == 200, every.text
        body = every.json()
        assert {"code", "crossnotes"} <= set(body["collections"])
        hits = body["results"]
        assert {h["collection"] for h in hits} >= {"code", "crossnotes"}
        assert hits == sorted(hits, key=lambda h: -h["score"])
        shlex_hit = next(h for h in hits if h["collection"] == "code")
        assert shlex_hit["abs_path"] == str(roots["small"] / shlex_hit["path"])
        only = client.post("/v1/search", json={"query": "quote", "collections": ["crossnotes"]})
        assert {h["collection"] for h in only.json()["results"]} == {"crossnotes"}
        packed = client.post("/v1/context", json={"query": "quote a word for the shell",
                                                  "collections": ["code", "crossnotes"],
                                                  "max_tokens": 400}).json()
        assert 0 < packed["tokens"] <= 400
        assert all(b["path"].split("/")[0] in ("code", "crossnotes") for b in packed["blocks"])
        missing = client.post("/v1/search", json={"query": "x", "collections": ["nope"]})
        assert missing.status_code == 404
    finally:
        client.delete("/v1/collections/crossnotes")


def test_collection_and_document_lifecycle(client: httpx.Client) -> None:
    created = client.post("/v1/collections", json={"name": "notes", "index_kind": "flat"})
    assert created.status_code == 201, created.text
    assert created.json()["dim"] == 384
    assert client.post("/v1/collections", json={"name": "notes"}).status_code == 409
    docs = [
        {"id": "d1", "text": "def rotate_api_key(user):\n    return new_key(user)\n",
         "path": "auth/keys.py", "metadata": {"team": "auth"}},
        {"id": "d2", "text": "The deployment guide explains blue-green releases.",
         "path": "docs/deploy.md"},
    ]
    up = client.post("/v1/collections/notes/documents", json={"documents": docs})
    assert up.status_code == 200 and up.json()["files_new"] == 2
    got = client.get("/v1/collections/notes/documents/d1").json()
    assert got["metadata"] == {"team": "auth"} and got["text"] == docs[0]["text"]
    hits = client.post("/v1/collections/notes/search",
                       json={"query": "rotate the api key of a user", "k": 1}).json()["results"]
    assert hits[0]["document_id"] == "d1" and hits[0]["path"] == "auth/keys.py"
    info = client.get("/v1/collections/notes").json()
    assert (info["files"], info["index_kind"]) == (2, "flat")
    assert client.delete("/v1/collections/notes/documents/d1").status_code == 200
    assert client.get("/v1/collections/notes/documents/d1").status_code == 404
    assert client.delete("/v1/collections/notes").json() == {"deleted": "notes"}
    assert client.get("/v1/collections/notes").status_code == 404


def test_path_traversal_and_symlink_escape_are_refused(
    client: httpx.Client, roots: dict[str, Path]
) -> None:
    for path in ("../secret", str(roots["allowed"] / "escape"), "/etc"):
        r = client.post("/v1/collections/x/index", json={"path": path})
        assert r.status_code == 403, (path, r.text)
        assert "outside" in r.json()["error"]["message"]


def test_search_during_an_index_job_returns_complete_results(
    client: httpx.Client, roots: dict[str, Path]
) -> None:
    started = client.post("/v1/collections/code/index", json={"path": str(roots["big"])})
    job_id = started.json()["id"]
    searches, complete = 0, True
    stop = threading.Event()

    def hammer() -> None:
        nonlocal complete, searches
        with httpx.Client(base_url=str(client.base_url), timeout=REQUEST_TIMEOUT_S) as c:
            while not stop.is_set():
                r = c.post("/v1/collections/code/search", json={"query": "parse", "k": 5})
                hits = r.json().get("results", [])
                complete = complete and r.status_code == 200 and len(hits) == 5
                complete = complete and all(h["text"] and h["end_line"] >= h["start_line"]
                                            for h in hits)
                searches += 1

    worker = threading.Thread(target=hammer)
    worker.start()
    job = wait_for_job(client, job_id)
    stop.set()
    worker.join()
    assert searches >= 3  # searches really ran while the job wrote
    assert job["state"] == "done", job
    assert complete
    paths = {h["path"] for h in client.post(
        "/v1/collections/code/search", json={"query": "JSON decoder", "k": 10}
    ).json()["results"]}
    assert any(p.startswith("json/") for p in paths)


def test_openai_client_gets_the_same_vectors(server: Server) -> None:
    openai = pytest.importorskip("openai")
    client = openai.OpenAI(base_url=f"{server.url}/v1", api_key="unused-on-loopback")
    texts = ["open a file", "close the cache"]
    response = client.embeddings.create(model="all-MiniLM-L6-v2", input=texts)
    got = np.array([d.embedding for d in response.data], dtype=np.float32)
    expected = load_encoder("all-MiniLM-L6-v2", precision=SERVED_PRECISION).encode(texts)
    np.testing.assert_allclose(got, expected, atol=1e-5)
    assert response.usage.prompt_tokens > 0 and response.model.endswith("all-MiniLM-L6-v2")


def test_metrics_count_requests(client: httpx.Client) -> None:
    # Its own search: the test must not depend on which tests ran before it.
    searched = client.post("/v1/collections/code/search", json={"query": "JSON decoder"})
    assert searched.status_code == 200, searched.text
    text = client.get("/metrics").text
    assert 'embedstore_requests_total{method="POST",route="/v1/collections/{name}/search"' in text
    assert 'embedstore_collection_chunks{collection="code"}' in text


def test_api_key_required_when_configured(tmp_path: Path) -> None:
    with running_server(tmp_path / "s", "--api-key", "s3cret") as srv, \
            httpx.Client(base_url=srv.url, timeout=REQUEST_TIMEOUT_S) as client:
        assert client.get("/v1/collections").status_code == 401
        assert client.get("/v1/collections",
                          headers={"Authorization": "Bearer wrong"}).status_code == 401
        ok = client.get("/v1/collections", headers={"Authorization": "Bearer s3cret"})
        assert ok.status_code == 200
        assert client.get("/health").status_code == 200  # liveness stays open
