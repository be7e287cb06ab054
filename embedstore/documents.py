"""Documents pushed through the API instead of read from a folder."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from embedstore.languages import detect_language
from embedstore.sources import SourceFile


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
