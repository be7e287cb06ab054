"""`embedstore plt train` and `plt inspect` through Typer's runner, and a PLT index end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedstore.cli.app import app
from embedstore.cli.plt_cmd import plt_app

runner = CliRunner()


def test_inspect_prints_every_loop_and_the_cache_bytes(plt_folder: Path, tmp_path: Path) -> None:
    source = tmp_path / "code.py"
    source.write_text("def open_file(path):\n    return open(path)\n\n\nclass Cache:\n    pass\n")
    result = runner.invoke(plt_app, ["inspect", str(plt_folder), "--text", str(source)])
    assert result.exit_code == 0, result.output
    assert "R=2 loops" in result.stdout and "KV cache at 32 tokens" in result.stdout
    result = runner.invoke(plt_app, ["inspect", str(plt_folder), "--seq-len", "1000", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert [loop["loop"] for loop in report["loops"]] == [1, 2]
    assert report["loops"][1]["gate_mean"] == pytest.approx(0.5)
    assert report["kv_cache_bytes"] < report["sequential_kv_bytes"]


def test_inspect_of_a_folder_without_a_model_is_a_one_line_error(tmp_path: Path) -> None:
    result = runner.invoke(plt_app, ["inspect", str(tmp_path)])
    assert result.exit_code == 1
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "config.json, model.safetensors missing" in lines[0]


def test_bad_option_value_lists_the_valid_ones(tmp_path: Path) -> None:
    result = runner.invoke(
        plt_app, ["train", str(tmp_path), "--out", str(tmp_path / "m"), "--position", "xpos"]
    )
    assert result.exit_code == 1 and "valid: rope, alibi, sinusoidal, learned" in result.stderr


@pytest.mark.slow  # trains a tiny PLT (~1 s) after importing sentence-transformers
def test_a_trained_plt_indexes_and_searches_end_to_end(
    tiny_teacher: Path, tmp_path: Path, plt_family: None
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "files.py").write_text(
        'def open_file(path):\n    """Open the file at the given path."""\n    return open(path)\n'
    )
    (repo / "cache.py").write_text(
        'def close_cache(cache):\n    """Close the cache and its files."""\n    cache.close()\n'
    )
    model = tmp_path / "model"
    trained = runner.invoke(plt_app, [
        "train", str(repo), "--out", str(model), "--teacher", str(tiny_teacher),
        "--steps", "5", "--d-model", "32", "--layers", "1", "--max-tokens", "48",
        "--batch-size", "2", "--pair-batch-size", "2", "--warmup-steps", "1", "--json",
    ])
    assert trained.exit_code == 0, trained.output
    summary = json.loads(trained.stdout)
    assert summary["steps"] == 5 and summary["encoder"] == f"plt:{model}"

    store = str(tmp_path / "store")
    indexed = runner.invoke(
        app, ["index", str(repo), "--encoder", f"plt:{model}", "--store", store, "--json"]
    )
    assert indexed.exit_code == 0, indexed.output
    assert json.loads(indexed.stdout)["chunks_total"] == 2
    found = runner.invoke(
        app, ["search", "close the cache", "--mode", "dense", "--store", store, "--json"]
    )
    assert found.exit_code == 0, found.output
    hits = json.loads(found.stdout)["results"]
    assert {hit["path"] for hit in hits} == {"files.py", "cache.py"}
