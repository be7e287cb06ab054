"""Search filters: which chunks a search may return."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from pathspec import GitIgnoreSpec


@dataclass(frozen=True)
class SearchFilters:
    """Restrictions applied to the dense and the lexical side alike, before fusion.

    Path globs use .gitignore syntax against paths relative to the indexed
    folder: ``*.py`` matches at any depth, ``src/`` a folder, ``src/**/test_*.py``
    a pattern below one. A path must match one ``include`` glob (when any are
    given) and no ``exclude`` glob. ``min_score`` drops dense hits whose cosine
    similarity is below it (BM25 scores have no fixed scale to compare with).
    """

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    min_score: float | None = None

    def __post_init__(self) -> None:
        if self.min_score is not None and not -1.0 <= self.min_score <= 1.0:
            raise ValueError(f"min_score is a cosine similarity in [-1, 1], got {self.min_score}")

    @property
    def restricts_files(self) -> bool:
        return bool(self.include or self.exclude or self.languages)

    def allows(self, path: str, language: str) -> bool:
        if self.languages and language not in self.languages:
            return False
        if self.include and not _spec(self.include).match_file(path):
            return False
        return not (self.exclude and _spec(self.exclude).match_file(path))


@functools.lru_cache(maxsize=64)
def _spec(globs: tuple[str, ...]) -> GitIgnoreSpec:
    return GitIgnoreSpec.from_lines(globs)
