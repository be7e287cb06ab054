"""CLI error paths: one line on stderr, exit code 1 (fake encoder, fast)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedstore.cli.app import app
from embedstore.encoders.registry import load_encoder
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder

runner = CliRunner()


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("def alpha():\n    return 'first letter'\n")
    return root


def assert_one_line_error(code: int, stderr: str, fragment: str) -> None:
    assert code == 1
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error:") and fragment in lines[0]


def test_missing_path(tmp_path: Path) -> None:
    code, _, stderr = invoke("index", str(tmp_path / "nowhere"))
    assert_one_line_error(code, stderr, "does not exist")


def test_unknown_collection(fake_encoder: FakeEncoder) -> None:
    code, _, stderr = invoke("search", "anything", "--name", "ghost")
    assert_one_line_error(code, stderr, "no collection named 'ghost'")


def test_unknown_pooling_lists_valid_ones(repo: Path, fake_encoder: FakeEncoder) -> None:
    code, _, stderr = invoke("index", str(repo), "--pooling", "median")
    assert_one_line_error(code, stderr, "mean, cls, max, last, weighted_mean")


def test_unknown_index_kind_lists_valid_ones(repo: Path, fake_encoder: FakeEncoder) -> None:
    code, _, stderr = invoke("index", str(repo), "--encoder", FAKE_SPEC, "--index", "hnsw")
    assert_one_line_error(code, stderr, "flat")


def test_a_bad_stream_count_is_refused_before_anything_is_written(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    load_encoder(None)  # cached, as after earlier tests: the check is not only at load
    monkeypatch.setenv("EMBEDSTORE_ENCODE_STREAMS", "two")
    store = str(tmp_path / "store")
    code, _, stderr = invoke("index", str(repo), "--name", "proj", "--store", store)
    assert_one_line_error(code, stderr, "EMBEDSTORE_ENCODE_STREAMS must be a whole number")
    assert not Store(tmp_path / "store").names()


def test_encoder_mismatch(repo: Path, fake_encoder: FakeEncoder) -> None:
    assert invoke("index", str(repo), "--encoder", FAKE_SPEC)[0] == 0
    code, _, stderr = invoke("index", str(repo), "--encoder", FAKE_SPEC, "--pooling", "cls")
    assert_one_line_error(code, stderr, "--rebuild")


def test_list_info_rm_json(repo: Path, fake_encoder: FakeEncoder) -> None:
    assert invoke("index", str(repo), "--encoder", FAKE_SPEC, "--json")[0] == 0
    code, stdout, _ = invoke("list", "--json")
    assert code == 0
    assert [c["name"] for c in json.loads(stdout)["collections"]] == ["proj"]
    code, stdout, _ = invoke("info", "proj", "--json")
    info = json.loads(stdout)
    assert (info["encoder"], info["dim"], info["files"], info["units"]) == (FAKE_SPEC, 64, 1, 1)
    assert info["lexical_index"] == "fts5"  # one unit: far below lexical_index.MIN_UNITS
    assert invoke("rm", "proj")[0] == 0
    code, _, stderr = invoke("info", "proj")
    assert_one_line_error(code, stderr, "no collection named 'proj'")


def test_empty_query(repo: Path, fake_encoder: FakeEncoder) -> None:
    invoke("index", str(repo), "--encoder", FAKE_SPEC)
    code, _, stderr = invoke("search", "   ")
    assert_one_line_error(code, stderr, "empty")


def test_a_collection_of_the_old_format_is_listed_and_asks_for_a_rebuild(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("def f():\n    return 1\n")
    store = Store(tmp_path / "store")
    index_folder(store, repo, IndexOptions(name="old", encoder=FAKE_SPEC))
    index_folder(store, repo, IndexOptions(name="new", encoder=FAKE_SPEC))
    with sqlite3.connect(tmp_path / "store" / "old" / "meta.sqlite") as conn:
        conn.execute("PRAGMA user_version = 0")
    listed = runner.invoke(app, ["list", "--store", str(tmp_path / "store"), "--json"])
    assert listed.exit_code == 0, listed.stderr
    rows = {r["name"]: r for r in json.loads(listed.stdout)["collections"]}
    assert "--rebuild" in rows["old"]["outdated"] and rows["new"]["units"] == 1
    searched = runner.invoke(
        app, ["search", "f", "--name", "old", "--store", str(tmp_path / "store")]
    )
    assert searched.exit_code == 1
    assert "re-index it" in searched.stderr and len(searched.stderr.strip().splitlines()) == 1
