"""Search filters: which chunks a search may return."""

from __future__ import annotations

import difflib
import functools
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from pathspec import GitIgnoreSpec

from embedstore.errors import UserInputError
from embedstore.store import db

if TYPE_CHECKING:
    from embedstore.store.collection import Collection


@dataclass(frozen=True)
class SearchFilters:
    """Restrictions applied to the dense and the lexical side alike, before fusion.

    Path globs use .gitignore syntax against paths relative to the indexed
    folder: ``*.py`` matches at any depth, ``src/`` a folder, ``src/**/test_*.py``
    a pattern below one. A path must match one ``include`` glob (when any are
    given) and no ``exclude`` glob. ``min_score`` drops dense hits whose cosine
    similarity is below it (BM25 scores have no fixed scale to compare with).

    ``cwd``, the folder a person typed the globs in (the CLI's), lets a glob with
    a slash also be read from there, as the CLI prints paths: ``pip/_internal/**``
    typed above an indexed ``pip/`` folder, ``sub/*.py`` typed beside it. See
    ``for_root``.
    """

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    min_score: float | None = None
    cwd: str | None = None

    def __post_init__(self) -> None:
        if self.min_score is not None and not -1.0 <= self.min_score <= 1.0:
            raise ValueError(f"min_score is a cosine similarity in [-1, 1], got {self.min_score}")
        for glob in self.include + self.exclude:
            _check_glob(glob)

    def for_root(self, root: str | None) -> SearchFilters:
        """These filters for a collection indexed from ``root``: each glob both as written
        (from the root) and, where it names a place under the root, from ``cwd``."""
        if self.cwd is None:
            return self
        if root is None:  # documents pushed by id: no folder to read the globs from
            return replace(self, cwd=None)
        return replace(
            self, cwd=None,
            include=_with_cwd_spellings(self.include, self.cwd, root),
            exclude=_with_cwd_spellings(self.exclude, self.cwd, root),
        )

    @property
    def restricts_files(self) -> bool:
        return bool(self.include or self.exclude or self.languages)

    def allows(self, path: str, language: str) -> bool:
        if self.languages and language not in self.languages:
            return False
        if self.include and not _spec(self.include).match_file(path):
            return False
        return not (self.exclude and _spec(self.exclude).match_file(path))


def check_languages(collections: Sequence[Collection], languages: Sequence[str]) -> None:
    """Refuse a language no file of ``collections`` has: any such name would silently find
    nothing. The collections' own languages are the valid ones (documents pushed through the
    API may carry any language name)."""
    present = sorted({language for c in collections
                      for _, _, language in db.file_filter_rows(c.conn)})
    unknown = [name for name in languages if name not in present]
    if not unknown:
        return
    where = f"collection {collections[0].name!r}" if len(collections) == 1 else "these collections"
    near = difflib.get_close_matches(unknown[0], present, n=1)
    hint = f"; did you mean {near[0]!r}?" if near else ""
    raise UserInputError(
        f"{', '.join(map(repr, unknown))} is not a language of {where}{hint} "
        f"(valid here: {', '.join(present) or 'none, it is empty'})"
    )


def _with_cwd_spellings(globs: tuple[str, ...], cwd: str, root: str) -> tuple[str, ...]:
    """``globs``, each followed by its spelling from ``root`` when it was written from
    ``cwd`` (in order, so that a later "!" glob still overrides an earlier one). A glob
    without an inner slash (``*.py``, ``tests/``) matches at any depth either way, and one
    anchored by a leading ``/`` is the root's: those stay as they are."""
    spelled: list[str] = []
    for glob in globs:
        spelled.append(glob)
        bang = "!" if glob.startswith("!") else ""
        body = glob[len(bang):]
        if body.startswith("/") or "/" not in body.rstrip("/"):
            continue
        target = os.path.normpath(os.path.join(cwd, body))
        if target == os.path.normpath(root):
            spelled.append(f"{bang}**")
        elif target.startswith(os.path.join(root, "")):
            slash = "/" if body.endswith("/") else ""
            spelled.append(f"{bang}/{os.path.relpath(target, root)}{slash}")
    return tuple(spelled)


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
