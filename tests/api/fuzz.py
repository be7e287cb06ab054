"""Schemathesis against a live server: the app and the run shared by the test and the bench.

The server is a real uvicorn on 127.0.0.1 in this process, with the fake
encoder: what is fuzzed is the HTTP layer, and the fake keeps every case fast.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from fastapi import FastAPI
from fastapi.testclient import TestClient

from embedstore.api.app import create_app
from embedstore.api.settings import ServerSettings
from tests.api.server import REQUEST_TIMEOUT_S
from tests.fakes import FAKE_SPEC, install_fake_encoder

# `--checks all` less the deliberate exceptions listed, with reasons, in this file.
CONFIG = Path(__file__).with_name("schemathesis.toml")


# The key of a keyed fuzz run: its schema declares a bearer scheme, so schemathesis'
# ignored_auth check also sends requests without it, or with another, and expects a 401.
FUZZ_KEY = "fuzz-key-1234"


def fuzz_app(tmp: Path, api_key: str | None = None) -> FastAPI:
    """An app with small limits (declared in its schema, so the fuzzer respects them) and a
    collection "c" with two documents, so that some generated requests reach real data;
    ``api_key`` guards it."""
    install_fake_encoder()
    allowed = tmp / "allowed"
    allowed.mkdir(parents=True, exist_ok=True)
    (allowed / "m.py").write_text("def module_fn(x):\n    return x + 1\n")
    settings = ServerSettings(
        store=tmp / "store", preload_model=False, allowed_roots=[allowed],
        max_request_bytes=256 * 1024, max_document_chars=4000, max_query_chars=500,
        max_batch_items=16, max_embedding_inputs=16, max_k=50,
        api_keys=[api_key] if api_key else [],
    )
    app = create_app(settings)
    with TestClient(app, headers=auth_header(api_key)) as client:
        client.post("/v1/collections", json={"name": "c", "encoder": FAKE_SPEC})
        client.post("/v1/collections/c/documents", json={"documents": [
            {"id": "a", "text": "def alpha():\n    return 'first'\n", "path": "a.py"},
            {"id": "b", "text": "Notes about beta releases.", "metadata": {"team": "x"}},
        ]})
    return app


def auth_header(api_key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}"} if api_key else {}


@dataclass(frozen=True)
class FuzzRun:
    returncode: int
    output: str
    cases: int | None


def run_schemathesis(url: str, *, max_examples: int, max_time: int | None = None,
                     seed: int = 1, workers: int = 1, api_key: str | None = None) -> FuzzRun:
    """One run; run again once, with the next seed, when Hypothesis' own engine crashed (its
    target optimiser can index past a test case that shrank under it: an IndexError raised in
    hypothesis/internal/), since that says nothing about the API."""
    run = _run_once(url, max_examples, max_time, seed, workers, api_key)
    if engine_crashed(run.output):
        run = _run_once(url, max_examples, max_time, seed + 1, workers, api_key)
    return run


def engine_crashed(output: str) -> bool:
    """Whether the run's only errors are tracebacks that end inside Hypothesis' engine."""
    tracebacks = output.split("Traceback (most recent call last):")[1:]
    if not tracebacks or "Failures:" in output:
        return False
    return all("/hypothesis/internal/" in _last_frame(tb) for tb in tracebacks)


def _last_frame(traceback: str) -> str:
    frames = [line for line in traceback.splitlines() if line.strip().startswith('File "')]
    return frames[-1] if frames else ""


def _run_once(url: str, max_examples: int, max_time: int | None, seed: int, workers: int,
              api_key: str | None) -> FuzzRun:
    args = [
        str(Path(sys.executable).parent / "schemathesis"), "--config-file", str(CONFIG),
        # No --checks: every check runs by default, and `--checks all` would
        # re-enable the ones the config file turns off.
        "run", f"{url}/openapi.json",
        "--max-examples", str(max_examples), "--seed", str(seed), "--workers", str(workers),
        "--no-color", "--request-timeout", str(REQUEST_TIMEOUT_S), "--generation-database", "none",
    ]
    if max_time is not None:
        args += ["--max-time", str(max_time)]
    for name, value in auth_header(api_key).items():
        args += ["--header", f"{name}: {value}"]
    # In a scratch folder: schemathesis writes its cache (.schemathesis/) where it runs.
    with tempfile.TemporaryDirectory() as scratch:
        done = subprocess.run(args, capture_output=True, text=True, check=False, cwd=scratch)
    output = done.stdout + done.stderr
    return FuzzRun(done.returncode, output, _case_count(output))


def _case_count(output: str) -> int | None:
    # The summary ends with "Test cases:" and, on the next line, "N generated, ...".
    lines = output.splitlines()
    for i, line in enumerate(lines[:-1]):
        words = lines[i + 1].split()
        if line.strip() == "Test cases:" and words and words[0].isdigit():
            return int(words[0])
    return None
