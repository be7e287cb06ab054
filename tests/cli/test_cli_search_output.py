"""What `embedstore search` prints for a long definition (fake encoder, fast)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedstore.cli.app import app
from tests.fakes import FAKE_SPEC, FakeEncoder
from tests.long_function import QUERY, accumulate_source

runner = CliRunner()
# Wider than the 80 columns Rich assumes for a pipe.
LONG_LINE = "    note = '" + "the long comment line stays whole " * 5 + "'"
SOURCE, TOTAL = accumulate_source(LONG_LINE)


@pytest.fixture
def store(tmp_path: Path, fake_encoder: FakeEncoder) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "m.py").write_text("\n".join(SOURCE) + "\n")
    result = runner.invoke(app, ["index", str(repo), "--encoder", FAKE_SPEC,
                                 "--store", str(tmp_path / "store")])
    assert result.exit_code == 0, result.stderr
    return tmp_path / "store"


def search(store: Path, *args: str) -> str:
    result = runner.invoke(app, ["search", QUERY, "-k", "1", "--store", str(store), *args])
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_json_carries_the_whole_definition_and_the_matched_piece(store: Path) -> None:
    (top,) = json.loads(search(store, "--json"))["results"]
    assert set(top) == {
        "collection", "path", "abs_path", "start_line", "end_line", "match_start_line",
        "match_end_line", "kind", "symbol", "language", "score", "text", "found_by",
        "dense_score", "lexical_score", "location", "owner_header", "heading_path",
    }
    assert top["collection"] == "repo" and top["abs_path"].endswith("/repo/m.py")
    assert (top["path"], top["start_line"], top["end_line"]) == ("m.py", 1, TOTAL)
    assert (top["kind"], top["symbol"]) == ("function", "accumulate")
    assert top["text"] == "\n".join(SOURCE[:TOTAL])
    assert 12 < top["match_start_line"] <= top["match_end_line"] < TOTAL


def test_human_output_shows_the_head_the_match_and_how_many_lines_are_left(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (top,) = json.loads(search(store, "--json"))["results"]
    monkeypatch.chdir(store.parent / "repo")  # paths print from the current folder
    printed = search(store).splitlines()
    assert printed[0].startswith(f"1. m.py:1-{TOTAL}  score ") and "accumulate" in printed[0]
    numbered = [int(m.group(1)) for line in printed
                if (m := re.match(r"^(?:❱ |  )\s*(\d+) ", line))]
    assert numbered[:12] == list(range(1, 13))  # the head, with the file's line numbers
    assert top["match_start_line"] in numbered[12:]  # then the matched piece, after a gap
    assert "…" in printed
    assert printed[-1] == f"… {TOTAL - len(numbered)} more lines"
    matched = [line for line in printed if line.startswith("❱ ")]
    assert matched and all("# accumulate step" in line for line in matched)


def test_a_pipe_gets_whole_lines(store: Path) -> None:
    printed = search(store)
    assert LONG_LINE in printed  # neither wrapped nor cut at 80 columns
    assert not any(line.endswith(" ") for line in printed.splitlines())  # nor padded


def fail(store: Path, *args: str) -> str:
    """stderr of a search that must be refused as a usage error (exit code 2)."""
    result = runner.invoke(app, ["search", QUERY, "--store", str(store), *args])
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    return result.stderr


def test_json_is_also_spelled_format_json(store: Path) -> None:
    assert search(store, "--json") == search(store, "--format", "json")
    assert "--json means --format json" in fail(store, "--json", "--format", "jsonl")


def test_jsonl_gives_each_result_on_one_line_as_json_has_it(store: Path) -> None:
    payload = json.loads(search(store, "--format", "json", "-k", "2"))
    assert payload["source_root"] == str(store.parent / "repo")
    lines = search(store, "--format", "jsonl", "-k", "2").splitlines()
    assert len(lines) == 2
    assert [json.loads(line) for line in lines] == payload["results"]


def test_vimgrep_points_from_the_current_folder_at_the_matched_line(
    store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (top,) = json.loads(search(store, "--json"))["results"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    (line,) = search(store, "--format", "vimgrep").splitlines()
    path, number, column, text = line.split(":", 3)
    assert (path, column) == ("../repo/m.py", "1")
    assert int(number) == top["match_start_line"] > 12
    assert text == SOURCE[int(number) - 1] and "# accumulate step" in text


def test_an_unknown_language_is_refused_with_the_nearest_and_the_valid_ones(store: Path) -> None:
    stderr = fail(store, "--language", "pyhton")
    assert ("'pyhton' is not a language of collection 'repo'; did you mean 'python'? "
            "(valid here: python)") in stderr
    assert "did you mean" not in fail(store, "--language", "cobol")


def test_a_cosine_floor_is_refused_where_no_cosine_is_scored(store: Path) -> None:
    assert "valid with --mode dense or hybrid" in fail(
        store, "--mode", "lexical", "--min-score", "0.2"
    )
    assert search(store, "--mode", "dense", "--min-score", "0.2")


def test_an_empty_collection_says_so_in_one_line(tmp_path: Path, fake_encoder: FakeEncoder) -> None:
    (tmp_path / "empty").mkdir()
    store = str(tmp_path / "store")
    made = runner.invoke(app, ["index", str(tmp_path / "empty"), "--encoder", FAKE_SPEC,
                               "--store", store])
    assert made.exit_code == 0, made.stderr
    text = runner.invoke(app, ["search", "anything", "--store", store])
    assert text.exit_code == 0, text.stderr
    assert text.stdout.splitlines() == [
        "Collection 'empty' has 0 chunks: nothing to search. Index a folder into it: "
        "embedstore index PATH --name empty"
    ]
    machine = runner.invoke(app, ["search", "anything", "--store", store, "--format", "json"])
    assert json.loads(machine.stdout)["results"] == []
    assert "0 chunks" in machine.stderr  # the reason, off the parsed stream


@pytest.mark.parametrize("command", ["search", "context"])
def test_help_shows_defaults_and_readable_metavars(command: str) -> None:
    result = runner.invoke(app, [command, "--help"], terminal_width=200)
    assert result.exit_code == 0
    assert "[default: hybrid]" in result.stdout
    assert "[default: every collection]" in result.stdout  # help text, not markup
    assert "--include GLOB" in result.stdout and "--language LANG" in result.stdout
    assert "list[str]" not in result.stdout
    if command == "search":
        assert "[default: 10; 1<=x<=1000]" in result.stdout
        assert "<text|json|jsonl|vimgrep>" in result.stdout
        assert "w x cosine + (1 - w) x BM25 / the query's best BM25" in " ".join(
            result.stdout.split()
        )
