"""The README's promise with the real default model over real standard-library code."""

from __future__ import annotations

import json
import shutil
import sysconfig
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedstore.cli.app import app

runner = CliRunner()
STDLIB = Path(sysconfig.get_paths()["stdlib"])
# Real modules, small enough to encode in seconds on two cores.
MODULES = ["textwrap.py", "shlex.py", "fnmatch.py", "colorsys.py", "json"]


@pytest.fixture(scope="module")
def stdlib_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("stdlib") / "lib"
    root.mkdir()
    for name in MODULES:
        src = STDLIB / name
        if src.is_dir():
            shutil.copytree(src, root / name)
        else:
            shutil.copy(src, root / name)
    return root


@pytest.fixture(scope="module")
def indexed(stdlib_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """The store after one real `embedstore index`, and that run's JSON report."""
    store = tmp_path_factory.mktemp("e2e") / "store"
    result = runner.invoke(app, ["index", str(stdlib_repo), "--store", str(store), "--json"])
    assert result.exit_code == 0, result.stderr
    return store, json.loads(result.stdout)


@pytest.mark.parametrize(
    ("query", "path", "symbol"),
    [
        # first sentences of the functions' own docstrings
        ("Split the string s using shell-like syntax", "shlex.py", "split"),
        ("Test whether FILENAME matches PATTERN, including case", "fnmatch.py", "fnmatchcase"),
        ("Collapse and truncate the given text to fit in the given width", "textwrap.py",
         "shorten"),
        ("Return a shell-escaped version of the string s", "shlex.py", "quote"),
        ("Translate a shell PATTERN to a regular expression", "fnmatch.py", "translate"),
    ],
)
def test_docstring_query_finds_its_function_in_top_3(
    indexed: tuple[Path, dict], stdlib_repo: Path, query: str, path: str, symbol: str
) -> None:
    store, _ = indexed
    result = runner.invoke(app, ["search", query, "-k", "3", "--json", "--store", str(store)])
    assert result.exit_code == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["query"] == query and payload["collection"] == "lib"
    hits = payload["results"]
    assert set(hits[0]) >= {"path", "start_line", "end_line", "language", "score", "text"}
    found = [h for h in hits if h["path"] == path and f"def {symbol}(" in h["text"]]
    assert found, [(h["path"], h["start_line"]) for h in hits]
    hit = found[0]
    lines = (stdlib_repo / path).read_text().splitlines()
    assert "\n".join(lines[hit["start_line"] - 1 : hit["end_line"]]) == hit["text"]


def test_human_output_shows_location_and_code(indexed: tuple[Path, dict]) -> None:
    store, _ = indexed
    result = runner.invoke(app, ["search", "shell-like syntax split", "--store", str(store)])
    assert result.exit_code == 0, result.stderr
    assert "shlex.py:" in result.stdout and "def split(" in result.stdout


def test_rerun_says_nothing_changed(indexed: tuple[Path, dict], stdlib_repo: Path) -> None:
    store, first = indexed
    assert first["chunks_encoded"] == first["chunks_total"] > 50
    again = runner.invoke(app, ["index", str(stdlib_repo), "--store", str(store), "--json"])
    assert again.exit_code == 0, again.stderr
    report = json.loads(again.stdout)
    assert report["chunks_encoded"] == 0 and report["chunks_total"] == first["chunks_total"]
    human = runner.invoke(app, ["index", str(stdlib_repo), "--store", str(store)])
    assert "Nothing changed" in human.stdout


def test_context_fits_the_budget_with_headers(indexed: tuple[Path, dict]) -> None:
    store, _ = indexed
    args = ["context", "split a shell command line into words", "--max-tokens", "300"]
    result = runner.invoke(app, [*args, "--store", str(store), "--json"])
    assert result.exit_code == 0, result.stderr
    payload = json.loads(result.stdout)
    assert 0 < payload["tokens"] <= 300
    first = payload["blocks"][0]
    ranges = first["ranges"]
    assert payload["text"].startswith(f"{first['path']}:{ranges[0][0]}-{ranges[-1][1]}\n")
    assert (first["start_line"], first["end_line"]) == (ranges[0][0], ranges[-1][1])
    assert any(b["path"] == "shlex.py" for b in payload["blocks"])


def test_exact_identifier_is_found_by_lexical_and_hybrid(indexed: tuple[Path, dict]) -> None:
    store, _ = indexed
    for mode in ("lexical", "hybrid"):
        result = runner.invoke(
            app, ["search", "py_encode_basestring_ascii", "--mode", mode, "-k", "3", "--json",
                  "--store", str(store)],
        )
        assert result.exit_code == 0, result.stderr
        hits = json.loads(result.stdout)["results"]
        assert any("def py_encode_basestring_ascii(" in h["text"] for h in hits), mode


def test_eval_scores_several_repos_pooled_with_the_strict_rule(
    stdlib_repo: Path, tmp_path: Path
) -> None:
    ranks = tmp_path / "ranks.jsonl"
    repos = [str(stdlib_repo / "textwrap.py"), str(stdlib_repo / "shlex.py")]
    result = runner.invoke(app, [
        "eval", *repos, "--index", "flat", "--strict", "--per-query", str(ranks), "--json",
    ])
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["strict"] is True and len(report["repos"]) == 2
    pooled = {r["mode"]: r for r in report["rows"] if r["repo"] == "pooled"}
    assert set(pooled) == {"hybrid", "dense", "lexical", "whole-definition dense"}
    assert all(r["queries"] == report["queries"] for r in pooled.values())
    # Real docstrings of real code: the model finds most functions in the top 10.
    assert pooled["dense"]["metrics"]["recall@10"] >= 50
    lines = ranks.read_text().splitlines()
    assert len(lines) == 4 * report["queries"]
    assert {json.loads(line)["repo"] for line in lines} == {"textwrap.py", "shlex.py"}
