"""CLI error paths: one line on stderr, exit code 1, or 2 for usage errors (fake encoder)."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
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


# --- usage errors, pipes and ports (issue 21): one line, and the exit code a script expects


def assert_one_line_usage_error(result, fragment: str) -> str:  # type: ignore[no-untyped-def]
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.exit_code == 2 and len(lines) == 1, (result.exit_code, result.stderr)
    assert lines[0].startswith("error:") and fragment in lines[0], lines[0]
    assert "Value error" not in lines[0] and "Usage:" not in lines[0]
    return lines[0]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["search", "q", "--mode", "dnse"],
         "'dnse' is not one of 'hybrid', 'dense', 'lexical'; did you mean 'dense'?"),
        (["search", "q", "--format", "xml"],
         "'xml' is not one of 'text', 'json', 'jsonl', 'vimgrep'"),
        (["search", "q", "--format", "jsn"], "did you mean 'json'?"),
        (["search", "q", "-k", "0"], "Input should be greater than or equal to 1"),
        (["search", "q", "-k", "1001"], "Input should be less than or equal to 1000"),
        (["search", "q", "--min-score", "2"], "'--min-score'"),
        (["search", "q", "--include", "["], "invalid glob '['"),
        (["search", "q", "--exclude", "\\"], "invalid glob '\\\\'"),
        (["search"], "Missing argument 'QUERY' (see 'embedstore search --help')"),
        (["serch", "q"], "No such command 'serch'"),
        (["list", "--colour"], "No such option: --colour"),
        (["context", "q", "--mode", "lexicl"], "did you mean 'lexical'?"),
    ],
)
def test_every_usage_error_is_one_plain_line_and_exit_2(
    repo: Path, fake_encoder: FakeEncoder, args: list[str], fragment: str
) -> None:
    assert invoke("index", str(repo), "--encoder", FAKE_SPEC, "--json")[0] == 0
    assert_one_line_usage_error(runner.invoke(app, args), fragment)


def test_the_clis_k_limit_is_the_librarys() -> None:
    from embedstore.cli import search_args
    from embedstore.retrieval import search

    assert search_args.MAX_K == search.MAX_K


def test_plot_refuses_to_write_html_into_a_png(
    repo: Path, tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    assert invoke("index", str(repo), "--encoder", FAKE_SPEC, "--json")[0] == 0
    result = runner.invoke(app, ["plot", "proj", "--out", str(tmp_path / "map.png")])
    assert_one_line_usage_error(result, "--out writes an interactive HTML map")
    result = runner.invoke(app, ["plot", "proj", "--png", str(tmp_path / "map.html")])
    assert_one_line_usage_error(result, "--png writes a PNG image")
    assert not (tmp_path / "map.png").exists() and not (tmp_path / "map.html").exists()


def test_serve_on_a_busy_port_is_one_line_and_exit_1(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        result = runner.invoke(app, ["serve", "--port", port, "--store", str(tmp_path)])
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 1 and len(lines) == 1, result.stderr
    assert lines == [f"error: cannot listen on 127.0.0.1:{port}: Address already in use"]


# `embedstore ...` in a child process that knows the fake encoder.
CLI_WITH_FAKE = (
    "from tests.fakes import install_fake_encoder; install_fake_encoder(); "
    "from embedstore.cli.app import main; main()"
)


@pytest.mark.parametrize(
    ("fmt", "k"), [("text", "40"), ("json", "1"), ("jsonl", "40"), ("vimgrep", "1")]
)
def test_a_reader_that_stops_early_ends_the_search_quietly(
    repo: Path, fake_encoder: FakeEncoder, fmt: str, k: str
) -> None:
    """`embedstore search ... | head -1` under `set -o pipefail`: exit 0, nothing on stderr."""
    for i in range(40):
        (repo / f"m{i}.py").write_text(f"def alpha_{i}():\n    return 'first letter {i}'\n")
    assert invoke("index", str(repo), "--encoder", FAKE_SPEC, "--json")[0] == 0
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first write
    try:
        done = subprocess.run(
            [sys.executable, "-c", CLI_WITH_FAKE, "search", "first letter", "-k", k,
             "--format", fmt],
            stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120, check=False,
            cwd=Path(__file__).parents[2],
        )
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (0, "")
