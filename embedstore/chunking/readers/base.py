"""What every document reader returns: sections with their heading path, text and location.

A reader turns a file's bytes into a :class:`Document`: its sections in reading order, each
with the path of headings it sits under, its text (paragraphs separated by a blank line, a
table's rows on consecutive lines, code lines as they are) and where it is in the file (a
URL fragment such as ``page=12``, ``slide=7``, ``cell=5`` or an HTML id). A file a reader
cannot open raises :class:`DocumentReadError` with a short reason ("encrypted", "damaged").

:func:`render` lays a document out as lines: that text is what the index stores and shows,
and each line knows the section (hence the location) it came from.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Protocol

from embedstore.errors import EmbedstoreError


class DocumentReadError(EmbedstoreError):
    """A document that cannot be read: ``reason`` is a word for the summary ("encrypted")."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


@dataclass(frozen=True)
class Section:
    """A piece of a document under one heading path, at one location.

    ``path`` is the headings above and including this section's own, outermost first
    (empty before the first heading). ``language`` is set for code in that language (a
    notebook's code cell), None for prose.
    """

    path: tuple[str, ...]
    text: str
    location: str = ""
    language: str | None = None


@dataclass(frozen=True)
class Document:
    """A document's sections in reading order, and its pages that had no text (scanned)."""

    sections: tuple[Section, ...]
    pages_without_text: int = 0


class Reader(Protocol):
    """Reads one format: ``data`` is the whole file."""

    def __call__(self, data: bytes) -> Document: ...


@dataclass(frozen=True)
class Rendered:
    """A document laid out as lines (numbered from 1); section ``i`` spans
    ``starts[i]``..``ends[i]`` (its heading line, when shown, included)."""

    text: str
    sections: tuple[Section, ...]
    starts: tuple[int, ...]
    ends: tuple[int, ...]
    pages_without_text: int = 0

    def section_at(self, line: int) -> Section | None:
        """The section holding ``line``, None on a line between sections."""
        index = bisect.bisect_right(self.starts, line) - 1
        if index < 0 or line > self.ends[index]:
            return None
        return self.sections[index]

    def location_at(self, line: int) -> str | None:
        """Where ``line`` is in the file (``page=3``), None where the format has no places."""
        section = self.section_at(line)
        return section.location or None if section is not None else None

    def language_at(self, line: int) -> str | None:
        """The language of the code at ``line`` (a notebook's code cell), None for prose."""
        section = self.section_at(line)
        return None if section is None else section.language


def render(document: Document) -> Rendered:
    """The document as text: each section's heading (where the path changes), then its text,
    sections separated by a blank line. Empty sections are left out."""
    lines: list[str] = []
    sections: list[Section] = []
    starts: list[int] = []
    ends: list[int] = []
    previous: tuple[str, ...] | None = None
    for section in document.sections:
        body = section.text.strip("\n")
        if not body.strip():
            continue
        if lines:
            lines.append("")
        starts.append(len(lines) + 1)
        title = section.path[-1] if section.path else ""
        if title and section.path != previous and section.language is None \
                and not body.lstrip().startswith(title):
            lines.append(title)
        lines.extend(body.split("\n"))
        ends.append(len(lines))
        sections.append(section)
        previous = section.path
    return Rendered("\n".join(lines), tuple(sections), tuple(starts), tuple(ends),
                    document.pages_without_text)


def paragraphs(blocks: list[str]) -> str:
    """Blocks of text (paragraphs, tables, code) joined with one blank line between them."""
    return "\n\n".join(block.strip("\n") for block in blocks if block.strip())
