"""`embedstore search` and `context` over every collection, `--name` repeated, `-l`, and
locations that open from the current folder (fake encoder, fast)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedstore.cli.app import app
from tests.fakes import FAKE_SPEC, FakeEncoder

runner = CliRunner()


@pytest.fixture
def store(tmp_path: Path, fake_encoder: FakeEncoder) -> Path:
    store = tmp_path / "store"
    for name, files in {
        "web": {"retry.py": "def retry_with_backoff(call):\n    return call()\n",
                "setup.py": "def setup_web():\n    pass\n"},
        "cli": {"parse.py": "def parse_arguments(argv):\n    return argv\n",
                "setup.py": "def setup_cli():\n    pass\n"},
    }.items():
        root = tmp_path / name
        root.mkdir()
        for rel, text in files.items():
            (root / rel).write_text(text)
        done = runner.invoke(app, ["index", str(root), "--encoder", FAKE_SPEC,
                                   "--store", str(store)])
        assert done.exit_code == 0, done.stderr
    return store


def run(store: Path, *args: str) -> str:
    done = runner.invoke(app, [*args, "--store", str(store)])
    assert done.exit_code == 0, done.stderr
    return done.stdout


def test_search_without_a_name_covers_every_collection(store: Path, tmp_path: Path) -> None:
    body = json.loads(run(store, "search", "setup", "-k", "4", "--json"))
    assert body["collections"] == ["cli", "web"] and body["collection"] is None
    found = {(r["collection"], r["path"]) for r in body["results"]}
    assert {("web", "setup.py"), ("cli", "setup.py")} <= found
    web = next(r for r in body["results"] if r["collection"] == "web")
    assert web["abs_path"] == str(tmp_path / "web" / web["path"])


def test_name_may_be_repeated_or_given_once(store: Path) -> None:
    both = json.loads(run(store, "search", "setup", "-n", "web", "-n", "cli", "--json"))
    assert both["collections"] == ["web", "cli"]
    one = json.loads(run(store, "search", "setup", "-n", "cli", "--json"))
    assert one["collection"] == "cli" and {r["collection"] for r in one["results"]} == {"cli"}


def test_text_and_files_only_print_paths_from_the_current_folder(
    store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path / "web")
    text = run(store, "search", "retry with backoff", "-k", "1")
    assert text.startswith("1. retry.py:1-2") and "[web]" in text
    files = run(store, "search", "setup", "-l", "-k", "10").splitlines()
    assert "setup.py" in files and "../cli/setup.py" in files
    assert len(files) == len(set(files))  # one line per file, as rg -l


def test_context_without_a_name_packs_from_every_collection(store: Path) -> None:
    body = json.loads(run(store, "context", "setup", "--max-tokens", "200", "--json"))
    paths = {b["path"] for b in body["blocks"]}
    assert {"web/setup.py", "cli/setup.py"} <= paths
