"""Search filters: which chunks a search may return."""

from __future__ import annotations

import functools
import re
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
        for glob in self.include + self.exclude:
            _check_glob(glob)

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


def _check_glob(glob: str) -> None:
    """Refuse a glob that is not one, whether it would include or exclude: a trailing
    backslash, a lone "!", a range such as "[z-a]", or a "[" never closed (which
    pathspec takes, and which then silently matches nothing)."""
    try:
        GitIgnoreSpec.from_lines([glob])
    except (ValueError, re.error):
        raise ValueError(f"invalid glob {glob!r}: not a .gitignore-style pattern") from None
    if _unclosed_class(glob):
        raise ValueError(
            f"invalid glob {glob!r}: a '[' opens a character class that is never closed "
            "(write '\\[' for the bracket itself)"
        )


def _unclosed_class(glob: str) -> bool:
    """Whether a "[" has no "]" to close it, as git reads a class: "[]a]" and "[!]a]"
    hold a "]"; a backslash escapes the next character."""
    i = 0
    while i < len(glob):
        if glob[i] == "\\":
            i += 2
        elif glob[i] == "[":
            start = i + 2 if glob[i + 1 : i + 2] in ("!", "^") else i + 1
            close = glob.find("]", start + 1 if glob[start : start + 1] == "]" else start)
            if close < 0:
                return True
            i = close + 1
        else:
            i += 1
    return False
