"""Empty strings are usage errors, never the default they would otherwise stand for (G11)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedstore.cli.app import app
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder

runner = CliRunner()


@pytest.mark.parametrize(
    ("args", "where"),
    [
        (["index", "", "--encoder", FAKE_SPEC], "'PATH'"),
        (["index", " ", "--encoder", FAKE_SPEC], "'PATH'"),
        (["index", ".", "--name", "", "--encoder", FAKE_SPEC], "'--name'"),
        (["index", ".", "-n", "", "--encoder", FAKE_SPEC], "'--name'"),
        (["index", ".", "--encoder", ""], "'--encoder'"),
        (["watch", ""], "'PATH'"),
        (["watch", ".", "--name", ""], "'--name'"),
        (["search", "q", "--name", ""], "'--name'"),
        (["search", "q", "-n", "proj", "-n", ""], "'--name'"),
        (["context", "q", "--name", ""], "'--name'"),
        (["eval", ".", "--encoder", ""], "'--encoder'"),
    ],
)
def test_an_empty_value_is_a_one_line_usage_error_and_nothing_is_indexed(
    tmp_path: Path, isolated_home: Path, fake_encoder: FakeEncoder, monkeypatch: pytest.MonkeyPatch,
    args: list[str], where: str,
) -> None:
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "a.py").write_text("def alpha():\n    return 1\n")
    # In the folder that '' used to stand for: the old code indexed it.
    monkeypatch.chdir(folder)

    result = runner.invoke(app, args)

    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.exit_code == 2 and len(lines) == 1, (result.exit_code, result.stderr)
    assert lines[0].startswith("error:") and where in lines[0] and "must not be empty" in lines[0]
    assert not isolated_home.exists() or Store(isolated_home).names() == []
