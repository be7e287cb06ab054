"""Plain text and unknown languages: overlapping line windows."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from embedstore.chunking import Chunk

if TYPE_CHECKING:
    from conftest import Layout

NUMBERED = "".join(f"line {n}\n" for n in range(1, 101))


def test_windows_of_forty_lines_overlap_by_eight(outline: Callable[..., Layout]) -> None:
    assert outline(NUMBERED, None) == [
        ("lines", None, 1, 40),
        ("lines", None, 33, 72),
        ("lines", None, 65, 100),
    ]


def test_windows_shrink_to_the_budget_and_still_overlap(
    chunk: Callable[..., list[Chunk]],
) -> None:
    chunks = chunk(NUMBERED, "text", 30)
    assert len(chunks) > 100 // 14
    for before, after in itertools.pairwise(chunks):
        assert after.start_line <= before.end_line < after.end_line


@pytest.mark.parametrize("language", ["text", "json", "yaml", "klingon", None])
def test_other_languages_are_plain_text(
    outline: Callable[..., Layout], language: str | None
) -> None:
    assert outline('{\n  "name": "x",\n  "size": 3\n}\n', language) == [("lines", None, 1, 4)]


@pytest.mark.parametrize("language", ["python", "markdown", "go", None])
def test_empty_and_blank_files_have_no_chunks(
    chunk: Callable[..., list[Chunk]], language: str | None
) -> None:
    assert chunk("", language) == []
    assert chunk("\n  \n\t\n", language) == []


def test_blank_lines_at_window_edges_are_dropped(outline: Callable[..., Layout]) -> None:
    assert outline("\n\nfirst\nsecond\n\n\n", None) == [("lines", None, 3, 4)]
