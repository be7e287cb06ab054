"""What a search returns."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class SearchResult:
    """One hit: a chunk with its place in the source and its score."""

    chunk_id: int
    path: str
    start_line: int
    end_line: int
    language: str
    score: float
    text: str
    symbol: str | None = None

    @property
    def location(self) -> str:
        return f"{self.path}:{self.start_line}-{self.end_line}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
