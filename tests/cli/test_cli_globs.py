"""`--include`/`--exclude` globs match the paths `search` prints, which are relative to the
current folder, as well as paths from the indexed folder (issue 31; fake encoder)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedstore.cli.app import app
from embedstore.retrieval.filters import SearchFilters
from tests.fakes import FAKE_SPEC, FakeEncoder

runner = CliRunner()
CODE = "def flush_the_cache(entries):\n    return entries.clear()\n"


@pytest.fixture
def pip(tmp_path: Path, fake_encoder: FakeEncoder) -> Path:
    """site-packages/pip indexed, with _internal/ and a sibling _compat/."""
    root = tmp_path / "site-packages" / "pip"
    for folder in ("_internal/utils", "_compat"):
        (root / folder).mkdir(parents=True)
        (root / folder / "cache.py").write_text(CODE)
    done = runner.invoke(app, ["index", str(root), "--encoder", FAKE_SPEC])
    assert done.exit_code == 0, done.stderr
    return root


def files(*args: str) -> list[str]:
    result = runner.invoke(app, ["search", "flush the cache", "-l", *args])
    assert result.exit_code == 0, result.stderr
    return result.stdout.split()


def test_a_glob_written_from_above_the_indexed_folder(
    pip: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(pip.parent)
    assert sorted(files()) == ["pip/_compat/cache.py", "pip/_internal/utils/cache.py"]
    assert files("--include", "pip/_internal/**") == ["pip/_internal/utils/cache.py"]
    assert files("--exclude", "pip/_compat/") == ["pip/_internal/utils/cache.py"]
    assert files("--include", "_internal/**") == ["pip/_internal/utils/cache.py"]  # from the root
    assert files("--include", "./pip/_compat/*.py") == ["pip/_compat/cache.py"]


def test_a_glob_written_from_inside_the_indexed_folder(
    pip: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(pip / "_internal")
    assert files("--include", "utils/*.py") == ["utils/cache.py"]
    assert files("--include", "../_compat/**") == ["../_compat/cache.py"]
    assert files("--include", "_internal/utils/**") == ["utils/cache.py"]  # from the root


def test_globs_without_a_current_folder_are_the_roots_only() -> None:
    plain = SearchFilters(include=("pip/_internal/**",))
    assert plain.for_root("/sp/pip") is plain
    typed = SearchFilters(include=("pip/_internal/**", "*.py", "/top/**"),
                          exclude=("!pip/x/",), cwd="/sp")
    rooted = typed.for_root("/sp/pip")
    assert rooted.include == ("pip/_internal/**", "/_internal/**", "*.py", "/top/**")
    assert rooted.exclude == ("!pip/x/", "!/x/")
    assert rooted.cwd is None and rooted.for_root("/elsewhere") is rooted
    assert typed.for_root("/elsewhere").include == typed.include  # a glob outside stays as is
    assert typed.for_root(None).include == typed.include  # documents pushed by id
