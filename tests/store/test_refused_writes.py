"""A refused or failed write changes nothing, and says so in one line (issue 21)."""

from __future__ import annotations

import json
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from embedstore.api.app import create_app
from embedstore.api.settings import ServerSettings
from embedstore.cli.app import app as cli_app
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.store import connection, db
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder

runner = CliRunner()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "r"
    root.mkdir()
    (root / "good.py").write_text("def good():\n    return 'a good answer'\n")
    return root


def one_error_line(result) -> str:  # type: ignore[no-untyped-def]
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.exit_code == 1 and len(lines) == 1, result.stderr
    assert lines[0].startswith("error:")
    return lines[0]


def test_f1_index_refused_for_its_index_kind_leaves_the_manifest(
    repo: Path, fake_encoder: FakeEncoder
) -> None:
    store = Store()
    index_folder(store, repo, IndexOptions(name="r", encoder=FAKE_SPEC))
    before = store.open("r").manifest
    line = one_error_line(
        runner.invoke(cli_app, ["index", str(repo), "--index", "ivfpq", "--json"])
    )
    assert "IVF-PQ needs at least 78 vectors" in line
    assert store.open("r").manifest == before
    for mode in ("dense", "hybrid"):
        found = runner.invoke(cli_app, ["search", "good answer", "--mode", mode, "--json"])
        assert found.exit_code == 0, found.stderr
        assert [hit["path"] for hit in json.loads(found.stdout)["results"]] == ["good.py"]


def test_f1_document_writes_refused_by_the_index_kind_change_nothing(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    settings = ServerSettings(store=tmp_path / "store", preload_model=False)
    with TestClient(create_app(settings)) as client:
        created = client.post("/v1/collections",
                              json={"name": "pq", "encoder": FAKE_SPEC, "index_kind": "ivfpq"})
        assert created.status_code == 201, created.text
        refused = client.post("/v1/collections/pq/documents",
                              json={"documents": [{"id": "one", "text": "a lone document"}]})
        assert refused.status_code == 409
        assert refused.json()["error"]["code"] == "index_too_small"
        assert client.get("/v1/collections/pq/documents/one").status_code == 404
        assert client.get("/v1/collections/pq").json()["files"] == 0
        # 78 units train an IVF-PQ index; deleting one would leave 77.
        docs = [{"id": f"d{i}", "text": f"document number {i} about topic {i % 7}"}
                for i in range(78)]
        stored = client.post("/v1/collections/pq/documents", json={"documents": docs})
        assert stored.status_code == 200, stored.text
        refused = client.delete("/v1/collections/pq/documents/d0")
        assert (refused.status_code, refused.json()["error"]["code"]) == (409, "index_too_small")
        assert client.get("/v1/collections/pq/documents/d0").status_code == 200
        assert client.get("/v1/collections/pq").json()["files"] == 78
        found = client.post("/v1/collections/pq/search",
                            json={"query": "document number 5", "mode": "dense"})
        assert found.status_code == 200 and found.json()["results"]


def snapshot_of(store: Store, name: str) -> tuple[object, ...]:
    """What a collection holds and answers: counts, manifest, search hits, integrity."""
    collection = store.open(name)
    try:
        hits = runner.invoke(cli_app, ["search", "answer", "--name", name, "--json"])
        assert hits.exit_code == 0, hits.stderr
        check = collection.conn.execute("PRAGMA integrity_check").fetchone()[0]
        stats = collection.stats()
        return ((stats.files, stats.units, stats.chunks), stats.manifest,
                db.generation(collection.conn),
                json.loads(hits.stdout)["results"], check)
    finally:
        collection.close()


def test_f9_a_full_disk_during_index_is_one_line_and_changes_nothing(
    repo: Path, tmp_path: Path, fake_encoder: FakeEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store()
    neighbour = tmp_path / "neighbour"
    neighbour.mkdir()
    (neighbour / "n.py").write_text("def near():\n    return 'the neighbour answer'\n")
    for folder, name in ((repo, "r"), (neighbour, "n")):
        index_folder(store, folder, IndexOptions(name=name, encoder=FAKE_SPEC))
    before = {name: snapshot_of(store, name) for name in ("r", "n")}
    # Far more new text than the free pages of meta.sqlite can take.
    (repo / "big.py").write_text("".join(
        f"def answer_{i}(value):\n    return value * {i} + len('words number {i}')\n\n"
        for i in range(400)))
    real_connect = connection.connect

    def disk_full_for_r(path: Path) -> connection.Connection:
        # SQLite's own SQLITE_FULL, as on a full disk: the file may not grow.
        conn = real_connect(path)
        if path.parent.name == "r":
            pages = conn.execute("PRAGMA page_count").fetchone()[0]
            conn.execute(f"PRAGMA max_page_count = {pages}")
        return conn

    with monkeypatch.context() as patch:
        patch.setattr(connection, "connect", disk_full_for_r)
        result = runner.invoke(cli_app, ["index", str(repo), "--name", "r", "--json"])
    line = one_error_line(result)
    assert "collection 'r'" in line and "full" in line, line
    assert {name: snapshot_of(store, name) for name in ("r", "n")} == before
    # and the next run, with room again, goes through
    assert index_folder(store, repo, IndexOptions(name="r")).files_new == 1


# `embedstore ...` in a child process that knows the fake encoder.
CLI_WITH_FAKE = (
    "from tests.fakes import install_fake_encoder; install_fake_encoder(); "
    "from embedstore.cli.app import main; main()"
)


def no_file_may_grow() -> None:
    # What a full disk does to every file: a write past its size fails (EFBIG here,
    # ENOSPC there). SQLite then cannot create a reader's shared-memory file.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))


def test_f9_reads_while_the_disk_is_full_are_one_line(
    repo: Path, isolated_home: Path, fake_encoder: FakeEncoder
) -> None:
    index_folder(Store(), repo, IndexOptions(name="r", encoder=FAKE_SPEC))
    for args in (["info", "r"], ["search", "answer"]):
        done = subprocess.run(
            [sys.executable, "-c", CLI_WITH_FAKE, *args], capture_output=True, text=True,
            preexec_fn=no_file_may_grow, cwd=Path(__file__).parents[2], timeout=120,
            check=False,
        )
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 1 and len(lines) == 1, done.stderr
        assert lines[0].startswith("error: cannot read or write collection 'r'"), lines[0]
