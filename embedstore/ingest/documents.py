"""Documents pushed through the API instead of read from a folder."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from embedstore.errors import DocumentConflictError
from embedstore.ingest.sources import SourceFile
from embedstore.languages import detect_language

MAX_ID_CHARS = 512
MAX_PATH_CHARS = 1024
# Ids and paths are keys, shown in results and sent in URLs: no control
# characters (a NUL used to cut an id short, and then collide with itself).
PRINTABLE = r"^[^\x00-\x1f\x7f]+$"
_PRINTABLE = re.compile(PRINTABLE)


@dataclass(frozen=True)
class Document:
    """A text with a caller-chosen id; chunked and indexed exactly like a file.

    ``path`` (default: the id) is what results show and what path filters and
    the language guess look at; ``language`` overrides that guess.
    """

    id: str
    text: str
    path: str | None = None
    language: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _check_key("id", self.id, MAX_ID_CHARS)
        if self.path is not None:
            _check_key("path", self.path, MAX_PATH_CHARS)

    @property
    def shown_path(self) -> str:
        return self.path or self.id

    def as_source(self) -> SourceFile:
        raw = self.text.encode("utf-8")
        text = self.text.replace("\r\n", "\n").replace("\r", "\n")
        return SourceFile(
            path=Path(self.shown_path),
            rel_path=self.shown_path,
            language=self.language or detect_language(self.shown_path),
            text=text,
            sha256=hashlib.sha256(raw).hexdigest(),
            size=len(raw),
        )


def check_distinct(documents: Sequence[Document]) -> None:
    """Refuse two documents of one batch with one id, or that would share a path.

    A document without ``path`` takes its id as path, so ``{"id": "a"}`` and
    ``{"id": "b", "path": "a"}`` conflict too.
    """
    owners: dict[str, str] = {}
    ids: set[str] = set()
    for document in documents:
        if document.id in ids:
            raise DocumentConflictError(
                f"document id {document.id!r} appears twice: ids must be unique within one request"
            )
        ids.add(document.id)
        owner = owners.setdefault(document.shown_path, document.id)
        if owner != document.id:
            raise DocumentConflictError(
                f"documents {owner!r} and {document.id!r} both have the path "
                f"{document.shown_path!r}: give each its own `path`"
            )


def _check_key(field_name: str, value: str, max_chars: int) -> None:
    if not _PRINTABLE.match(value) or len(value) > max_chars:
        raise ValueError(
            f"document {field_name} {value!r} must be 1-{max_chars} characters "
            "without control characters"
        )
