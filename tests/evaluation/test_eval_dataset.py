from __future__ import annotations

from pathlib import Path

from embedstore.evaluation.dataset import build_corpus, first_sentence, strip_docstrings

SOURCE = '''import os


def short():
    """Too short."""
    return 1


@cache
def load_settings(path):
    """Read the settings file and merge it with defaults.

    More words that are not part of the query.
    """
    data = read(path)
    return data


class Store:
    def only_docstring(self):
        """This method body is nothing but its own docstring."""
'''


def test_first_sentence_stops_at_full_stop_or_blank_line() -> None:
    assert first_sentence("Read the file.  Then more.") == "Read the file"
    assert first_sentence("No stop here\n\nsecond paragraph") == "No stop here"
    assert first_sentence("Keep v1.2 intact. End") == "Keep v1.2 intact"


def test_docstrings_removed_and_lines_mapped() -> None:
    stripped, queries = strip_docstrings(SOURCE, "pkg/mod.py")
    lines = stripped.split("\n")
    assert [q.symbol for q in sorted(queries, key=lambda q: q.start_line)] == [
        "load_settings", "only_docstring",
    ]
    by_name = {q.symbol: q for q in queries}
    load = by_name["load_settings"]
    assert load.query == "Read the settings file and merge it with defaults"
    assert lines[load.start_line - 1] == "@cache"
    assert lines[load.end_line - 1] == "    return data"
    assert "Read the settings" not in stripped and '"""Too short."""' in stripped
    only = by_name["only_docstring"]
    assert lines[only.start_line - 1 : only.end_line] == [
        "    def only_docstring(self):", "        pass"
    ]
    compile(stripped, "mod.py", "exec")  # still valid Python


def test_build_corpus_samples_deterministically(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    for i in range(6):
        (repo / f"m{i}.py").write_text(
            f'def f{i}():\n    """Compute the number {i} for the test suite."""\n    return {i}\n'
        )
    first = build_corpus(repo, tmp_path / "a", seed=3, max_queries=4)
    again = build_corpus(repo, tmp_path / "b", seed=3, max_queries=4)
    assert first == again and len(first) == 4
    assert len(list((tmp_path / "a").glob("*.py"))) == 6  # every file stays a distractor


OVERLOADED = '''from typing import overload
import typing


class Box:
    @overload
    def get(self, key: int) -> int: ...
    @typing.overload
    def get(self, key: str) -> str: ...
    def get(self, key):
        """Return the item stored under the given key."""
        return self.items[key]
'''


def test_a_function_starts_at_its_overload_stubs() -> None:
    # The stubs declare the function the docstring documents; the chunker folds them in.
    _, (query,) = strip_docstrings(OVERLOADED, "box.py")
    assert (query.symbol, query.start_line, query.def_line, query.end_line) == ("get", 6, 10, 11)
