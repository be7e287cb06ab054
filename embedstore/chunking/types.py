"""The unit of retrieval: a chunk of one file."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

# Counts the encoder tokens of each text, special tokens included.
TokenCounter = Callable[[list[str]], list[int]]


@dataclass(frozen=True)
class Chunk:
    """A contiguous piece of a file, or of a class's outline (see ``chunk_file``).

    ``start_line``/``end_line`` are 1-based and inclusive. ``context`` is a short
    header for the embedding (enclosing class, or the signature a split function
    continues); ``symbol`` names the function/class/heading when there is one.
    """

    text: str
    start_line: int
    end_line: int
    kind: str  # "function" | "class" | "method" | "module" | "section" | "lines" ...
    symbol: str | None = None
    context: str = ""
    unit: tuple[int, int] | None = None

    @property
    def unit_lines(self) -> tuple[int, int]:
        """The lines of the whole unit this chunk belongs to."""
        return self.unit or (self.start_line, self.end_line)


def chunk_body(chunk: Chunk) -> str:
    """The text the chunker budgets for: its context line(s), then the code."""
    return f"{chunk.context}\n{chunk.text}" if chunk.context else chunk.text
