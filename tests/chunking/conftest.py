"""Shared fixtures: a deterministic token counter and the chunk invariants."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from embedstore.chunking import Chunk, TokenCounter, chunk_body, chunk_file
from embedstore.chunking.grammars import CLASS_KINDS

Layout = list[tuple[str, str | None, int, int]]


def count_words(texts: list[str]) -> list[int]:
    """Whitespace-separated words plus two special tokens, like [CLS] and [SEP]."""
    return [len(text.split()) + 2 for text in texts]


class RecordingCounter:
    """``count_words`` that remembers the batches of texts it was called with."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def __call__(self, texts: list[str]) -> list[int]:
        self.batches.append(list(texts))
        return count_words(texts)


def check_chunks(
    text: str, chunks: list[Chunk], max_tokens: int, count_tokens: TokenCounter = count_words
) -> None:
    """The guarantees of ``chunk_file``: exact lines, within budget, nothing lost."""
    lines = text.split("\n")
    covered: set[int] = set()
    pieces_of_line: dict[int, list[str]] = {}
    for chunk in chunks:
        assert 1 <= chunk.start_line <= chunk.end_line <= len(lines), chunk
        assert count_tokens([chunk_body(chunk)])[0] <= max_tokens, chunk
        exact = "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
        if chunk.text == exact:
            covered.update(range(chunk.start_line, chunk.end_line + 1))
        elif chunk.start_line == chunk.end_line:
            # A line too long for the budget alone is cut into pieces.
            assert chunk.text in exact, chunk
            pieces_of_line.setdefault(chunk.start_line, []).append(chunk.text)
            covered.add(chunk.start_line)
        else:
            # Otherwise only a class with members has a text of its own: its outline.
            assert chunk.kind in CLASS_KINDS, chunk
            covered.update(outlined_lines(lines, chunk))
    for number, line in enumerate(lines, 1):
        if line.strip():
            assert number in covered, f"line {number} is in no chunk: {line!r}"
    for number, pieces in pieces_of_line.items():
        assert "".join(pieces).split() == lines[number - 1].split()


def outlined_lines(lines: list[str], chunk: Chunk) -> list[int]:
    """The lines of an outline chunk's rows, which must be lines of its range, in order.

    Matched from the end: a closing row (Ruby's `end`) is the class's own last line, where
    a match from the start would take the first member's `end`.
    """
    found: list[int] = []
    line = chunk.end_line
    for row in reversed(chunk.text.split("\n")):
        if not row.strip():
            continue
        while line >= chunk.start_line and lines[line - 1].strip() != row.strip():
            line -= 1
        assert line >= chunk.start_line, f"{row!r} is no line of {chunk}"
        found.append(line)
        line -= 1
    return found[::-1]


@pytest.fixture
def check() -> Callable[..., None]:
    return check_chunks


def layout(chunks: list[Chunk]) -> Layout:
    return [(chunk.kind, chunk.symbol, chunk.start_line, chunk.end_line) for chunk in chunks]


@pytest.fixture
def count_tokens() -> TokenCounter:
    return count_words


@pytest.fixture
def recording_counter() -> RecordingCounter:
    return RecordingCounter()


@pytest.fixture
def chunk() -> Callable[..., list[Chunk]]:
    """``chunk_file`` with the word counter, checking its guarantees on every call."""

    def run(text: str, language: str | None, max_tokens: int = 1000) -> list[Chunk]:
        chunks = chunk_file(text, language, max_tokens=max_tokens, count_tokens=count_words)
        check_chunks(text, chunks, max_tokens)
        return chunks

    return run


@pytest.fixture
def outline(chunk: Callable[..., list[Chunk]]) -> Callable[..., Layout]:
    """(kind, symbol, start_line, end_line) of each chunk."""

    def run(text: str, language: str | None, max_tokens: int = 1000) -> Layout:
        return layout(chunk(text, language, max_tokens))

    return run
