"""Flags as rg and git users expect them: one meaning per short flag, global options after
the command too (issue 31; fake encoder)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedstore.cli.app import app
from embedstore.cli.global_options import hoist_global_options
from embedstore.cli.reference import commands, long_name, options
from tests.fakes import FAKE_SPEC, FakeEncoder

runner = CliRunner()


def test_each_short_flag_has_one_meaning_across_the_commands() -> None:
    meanings: dict[str, set[str]] = {}
    for _, command in commands():
        for option in options(command):
            for short in (o for o in option.opts + option.secondary_opts if len(o) == 2):
                meanings.setdefault(short, set()).add(long_name(option))
    clashes = {short: longs for short, longs in meanings.items() if len(longs) > 1}
    assert not clashes
    assert meanings["-l"] == {"--files-with-matches"}  # as rg -l
    assert meanings["-t"] == {"--language"}  # as rg -t


@pytest.fixture
def indexed(tmp_path: Path, fake_encoder: FakeEncoder) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "data.py").write_text("def load_data_file(path):\n    return open(path).read()\n")
    done = runner.invoke(app, ["index", str(root), "--encoder", FAKE_SPEC])
    assert done.exit_code == 0, done.stderr
    return root


@pytest.mark.parametrize("where", ["before", "after"])
def test_color_is_taken_before_or_after_the_command(indexed: Path, where: str) -> None:
    search = ["search", "load data file", "-k", "1"]
    args = ["--color", "always", *search] if where == "before" else [*search, "--color=always"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.stderr
    assert "\x1b[" in result.stdout  # coloured although stdout is no terminal


def test_the_last_color_written_wins_and_nothing_after_dashdash_moves() -> None:
    assert hoist_global_options(["--color", "always", "search", "q", "--color", "never"]) == [
        "--color", "always", "--color", "never", "search", "q"]
    assert hoist_global_options(["search", "--", "--color", "never"]) == [
        "search", "--", "--color", "never"]
    assert hoist_global_options(["plot", "x", "--color-by", "language"]) == [
        "plot", "x", "--color-by", "language"]


def test_store_is_taken_before_the_command_too(tmp_path: Path) -> None:
    assert hoist_global_options(["--store", "s", "search", "q", "--", "-x"]) == [
        "search", "q", "--store", "s", "--", "-x"]
    result = runner.invoke(app, ["--store", str(tmp_path / "elsewhere"), "list"])
    assert result.exit_code == 0, result.stderr
    assert f"No collections in {tmp_path / 'elsewhere'}" in result.stdout


def test_a_color_without_its_value_is_one_usage_line() -> None:
    result = runner.invoke(app, ["list", "--color"])
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.endswith("Option '--color' requires an argument")


def test_language_by_its_short_flag(indexed: Path) -> None:
    result = runner.invoke(app, ["search", "load", "-t", "python", "-l"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip().endswith("data.py")
