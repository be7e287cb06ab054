"""`context --at PATH:LINE` and `--code FILE` say what is wrong in one line, and read only
regular files of bounded size (issue 30 G3 and G14, issue 31; fake encoder)."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from embedstore.cli.app import app
from embedstore.cli.cursor import MAX_SOURCE_BYTES
from tests.fakes import FAKE_SPEC, FakeEncoder

runner = CliRunner()
APP = "def helper(value):\n    return value + 1\n\n\ndef main():\n    return helper(2)\n"


@pytest.fixture
def site(tmp_path: Path, fake_encoder: FakeEncoder) -> Path:
    """Two collections, so that a file no collection holds cannot be told apart by them."""
    for name in ("site", "other"):
        root = tmp_path / name
        root.mkdir()
        (root / "app.py").write_text(APP)
        done = runner.invoke(app, ["index", str(root), "--encoder", FAKE_SPEC])
        assert done.exit_code == 0, done.stderr
    return tmp_path / "site"


def context(*args: str) -> Any:
    return runner.invoke(app, ["context", *args, "--format", "json"])


def one_line_error(result: Any, code: int) -> str:
    assert result.exit_code == code, (result.exit_code, result.stdout, result.stderr)
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.stderr
    return str(result.stderr)


def test_a_path_without_a_line_is_named_before_any_collection_is_chosen(site: Path) -> None:
    stderr = one_line_error(context("--at", "app.py"), 2)
    assert "'app.py' has no line: write PATH:LINE, e.g. app.py:42" in stderr
    assert "several collections" not in stderr


@pytest.mark.parametrize("line", ["²", "x", "0", "-3", ""])
def test_a_line_that_is_not_a_number_says_so(site: Path, line: str) -> None:
    stderr = one_line_error(context("--at", f"{site / 'app.py'}:{line}", "--name", "site"), 2)
    assert "is not a line number" in stderr or "has no line" in stderr
    assert "int()" not in stderr and "invalid literal" not in stderr


def test_a_line_past_the_end_names_the_file_and_its_length(site: Path) -> None:
    stderr = one_line_error(context("--at", f"{site / 'app.py'}:99999", "--name", "site"), 2)
    assert "line 99999 is past the end of app.py (6 lines)" in stderr
    # The cursor may stand after the last line (a new line being typed), not further.
    assert one_line_error(context("--at", f"{site / 'app.py'}:8", "--name", "site"), 2)
    after_last = context("--at", f"{site / 'app.py'}:7", "--name", "site")
    assert after_last.exit_code == 0, after_last.stderr


@pytest.mark.parametrize("column", ["0", "x", "²", ""])
def test_a_column_that_is_not_a_number_from_1_says_so(site: Path, column: str) -> None:
    stderr = one_line_error(context("--at", f"{site / 'app.py'}:2:{column}", "--name", "site"), 2)
    assert "is not a column" in stderr


def test_a_column_past_the_end_of_its_line_names_the_line_and_its_length(site: Path) -> None:
    # Line 2 is `    return value + 1`, 20 characters: the cursor may stand after the last.
    stderr = one_line_error(context("--at", f"{site / 'app.py'}:2:22", "--name", "site"), 2)
    assert "column 22 is past the end of line 2 of app.py (20 characters)" in stderr
    after_last = context("--at", f"{site / 'app.py'}:2:21", "--name", "site")
    assert after_last.exit_code == 0, after_last.stderr


@pytest.mark.parametrize("option", ["--at", "--code"])
def test_a_device_is_refused_not_read(site: Path, option: str) -> None:
    where = "/dev/zero:1" if option == "--at" else "/dev/zero"
    stderr = one_line_error(context(option, where, "--name", "site"), 1)
    assert "'/dev/zero' is not a regular file" in stderr


def test_a_fifo_is_refused_at_once(site: Path) -> None:
    fifo = site / "pipe.py"
    os.mkfifo(fifo)
    answers: list[Any] = []
    worker = threading.Thread(
        target=lambda: answers.append(context("--at", f"{fifo}:1", "--name", "site")),
        daemon=True,
    )
    worker.start()
    worker.join(timeout=60)  # a generous bound: today it waits for a writer forever
    assert not worker.is_alive(), "reading a FIFO hung"
    assert "is not a regular file" in one_line_error(answers[0], 1)


@pytest.mark.parametrize("option", ["--at", "--code"])
def test_a_file_over_the_bound_is_refused(site: Path, option: str) -> None:
    big = site / "big.py"
    big.write_text("x = 1\n" * (MAX_SOURCE_BYTES // 6 + 1))
    where = f"{big}:1" if option == "--at" else str(big)
    stderr = one_line_error(context(option, where, "--name", "site"), 1)
    assert f"code-at-cursor reads files of up to {MAX_SOURCE_BYTES:,} bytes" in stderr


def test_stdin_over_the_bound_is_refused(site: Path) -> None:
    result = runner.invoke(app, ["context", "--code", "-", "--name", "site"],
                           input="x" * (MAX_SOURCE_BYTES + 1))
    assert "stdin holds more than" in one_line_error(result, 1)
