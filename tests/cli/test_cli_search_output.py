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
        "path", "start_line", "end_line", "match_start_line", "match_end_line", "kind",
        "symbol", "language", "score", "text", "found_by", "dense_score", "lexical_score",
    }
    assert (top["path"], top["start_line"], top["end_line"]) == ("m.py", 1, TOTAL)
    assert (top["kind"], top["symbol"]) == ("function", "accumulate")
    assert top["text"] == "\n".join(SOURCE[:TOTAL])
    assert 12 < top["match_start_line"] <= top["match_end_line"] < TOTAL


def test_human_output_shows_the_head_the_match_and_how_many_lines_are_left(store: Path) -> None:
    (top,) = json.loads(search(store, "--json"))["results"]
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
