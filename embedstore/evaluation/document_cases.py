"""Mine (query -> section) cases from documents, independently of the index's readers.

Two kinds of query, both self-supervised:

- ``heading``: a section's heading, its numbering dropped ("9.8. Private Variables" ->
  "Private Variables"). Only headings found once in the whole corpus are asked: "Examples"
  or "Description" have no one answer.
- ``sentence``: the first sentence of a section's first paragraph, removed from the copy
  that is indexed (as ``eval`` removes a function's docstring): the rest of the section
  must find it. Needs a format whose text can be edited in place, so HTML only.

HTML headings and paragraphs come from :mod:`html.parser` here; PDF sections from the
document's outline (bookmarks) through ``pypdfium2``: neither goes through
``embedstore.chunking.readers``. The readers only say, afterwards, which lines of the
indexed text a case's section became (:func:`locate`), since hits are lines of that text.
"""

from __future__ import annotations

import html
import random
import re
import shutil
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from html.parser import HTMLParser
from pathlib import Path

import pypdfium2 as pdfium

from embedstore.chunking.readers import DocumentReadError, Rendered, read_document
from embedstore.evaluation.dataset import MIN_WORDS, first_sentence

QUERY_KINDS = ("heading", "sentence")
# "9.8. ", "A.1. ", "Chapter 9. ", "Appendix B. ", "IV. ": numbering, not words a reader asks.
_NUMBERING = re.compile(
    r"^(?:(?:chapter|appendix|part)\s+)?(?:\d+|[A-Z]|[IVXLC]+)(?:\.\d+)*\.\s+", re.IGNORECASE
)
# Permalink marks some generators put after a heading (Sphinx's pilcrow).
_PERMALINK_MARKS = "¶#§🔗"
_HEADING_TAGS = frozenset(f"h{level}" for level in range(1, 7))
_SKIPPED_TAGS = frozenset({"script", "style", "template"})


@dataclass(frozen=True)
class DocumentCase:
    query: str
    kind: str  # one of QUERY_KINDS
    path: str  # relative, in the indexed copy
    title: str  # the section's heading as the document writes it
    # Where the section is for formats with places: "page=12" (the outline's page); None
    # where the heading alone names the section in its file (HTML: titles unique per file).
    location: str | None = None
    # The lines of the indexed text that are this section ((first, last), 1-based): a hit
    # overlaps one. Filled by :func:`locate`.
    spans: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class _Paragraph:
    """A section's first paragraph: its inner HTML's character range, and its text."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class _Found:
    """A section as the miner saw it."""

    title: str
    location: str | None = None
    paragraph: _Paragraph | None = None
    main: bool = False  # inside the page's marked main content (HTML)


# A case, and the paragraph whose first sentence it asks (a sentence case's) or None.
_Pair = tuple[DocumentCase, _Paragraph | None]


@dataclass(frozen=True)
class MinedCorpus:
    """The cases of one corpus, the sentences to strip from each file, and what was lost."""

    cases: list[DocumentCase]
    files: int
    # Sampled cases whose section the reader's text does not show (heading renamed or
    # dropped, sentence not removed): left out, and counted as a reader finding.
    unlocated: int = 0


def normalize(title: str) -> str:
    """A heading as compared: whitespace collapsed, permalink marks dropped, case folded."""
    return " ".join(title.split()).strip(_PERMALINK_MARKS).strip().casefold()


def heading_query(title: str) -> str:
    """What a reader would ask for a heading: its text without the numbering."""
    clean = " ".join(title.split()).strip(_PERMALINK_MARKS).strip()
    return _NUMBERING.sub("", clean, count=1)


def mine_html(data: bytes) -> list[_Found]:
    """Each heading of the page, with its section's first paragraph (None if it has none)."""
    parser = _SectionParser(data.decode("utf-8", errors="replace"))
    parser.feed(parser.source)
    parser.close()
    # A page that marks its main content (<main>, role="main") has its sections there; the
    # headings around it are navigation ("Previous topic").
    main = [f for f in parser.found if f.main]
    return main or parser.found


def mine_pdf(data: bytes) -> list[_Found]:
    """Each outline entry that points at a page: its title, and that page."""
    pdf = pdfium.PdfDocument(data)
    try:
        found = []
        for item in pdf.get_toc(max_depth=16):
            dest = item.get_dest()
            index = dest.get_index() if dest is not None else None
            title = " ".join((item.get_title() or "").split())
            if title and index is not None:
                found.append(_Found(title, f"page={index + 1}"))
        return found
    finally:
        pdf.close()


# By file extension: the formats cases are mined from. Other documents are copied as they
# are, as distractors.
MINERS: dict[str, Callable[[bytes], list[_Found]]] = {
    ".html": mine_html,
    ".htm": mine_html,
    ".pdf": mine_pdf,
}


def build_cases(
    root: Path, dest: Path, *, seed: int = 0, max_queries: int | None = None,
    max_files: int | None = None,
) -> MinedCorpus:
    """Copy ``root``'s documents to ``dest``, sampled sentences removed; return the cases.

    ``max_queries`` caps each query kind; ``max_files`` samples the documents (seeded)
    when the corpus is too big to index in the time at hand.
    """
    files = sorted(p for p in root.rglob("*") if p.suffix.lower() in MINERS and p.is_file())
    if max_files is not None and len(files) > max_files:
        files = sorted(random.Random(seed).sample(files, max_files))
    found = {p.relative_to(root).as_posix(): _mine(p) for p in files}
    headings = _sample(_heading_cases(found), seed, max_queries)
    sentences = _sample(_sentence_cases(found), seed, max_queries)
    strip = {path: [p for _, p in group] for path, group in _by_path(sentences).items()}
    for path in found:
        _write(root / path, dest / path, strip.get(path, []))
    located = locate(dest, [c for c, _ in headings] + [c for c, _ in sentences])
    return MinedCorpus(located, len(found), len(headings) + len(sentences) - len(located))


def _mine(path: Path) -> list[_Found]:
    try:
        return MINERS[path.suffix.lower()](path.read_bytes())
    except (pdfium.PdfiumError, OSError):
        return []  # a file the miner cannot read gives no case; the index decides the rest


def _heading_cases(found: dict[str, list[_Found]]) -> list[_Pair]:
    counts = Counter(normalize(heading_query(f.title)) for sections in found.values()
                     for f in sections)
    cases: list[_Pair] = []
    for path, sections in found.items():
        for f in sections:
            query = heading_query(f.title)
            if query and counts[normalize(query)] == 1:
                cases.append((DocumentCase(query, "heading", path, f.title, f.location), None))
    return cases


def _sentence_cases(found: dict[str, list[_Found]]) -> list[_Pair]:
    cases: list[_Pair] = []
    for path, sections in found.items():
        titles = Counter(normalize(f.title) for f in sections)
        for f in sections:
            if f.paragraph is None or titles[normalize(f.title)] > 1:
                continue  # the section could not be told from another of its file
            sentence = first_sentence(f.paragraph.text)
            if len(sentence.split()) >= MIN_WORDS:
                cases.append((DocumentCase(sentence, "sentence", path, f.title, f.location),
                              f.paragraph))
    return cases


def _sample(cases: list[_Pair], seed: int, limit: int | None) -> list[_Pair]:
    if limit is not None and len(cases) > limit:
        cases = random.Random(seed).sample(cases, limit)
    return sorted(cases, key=lambda pair: (pair[0].path, pair[0].title))


def _by_path(pairs: Sequence[_Pair]) -> dict[str, list[_Pair]]:
    grouped: dict[str, list[_Pair]] = {}
    for pair in pairs:
        grouped.setdefault(pair[0].path, []).append(pair)
    return grouped


def _write(source: Path, target: Path, strip: Sequence[_Paragraph | None]) -> None:
    """Copy ``source``; each paragraph in ``strip`` loses its first sentence."""
    target.parent.mkdir(parents=True, exist_ok=True)
    paragraphs = [p for p in strip if p is not None]
    if not paragraphs:
        shutil.copyfile(source, target)
        return
    text = source.read_bytes().decode("utf-8", errors="replace")
    for p in sorted(paragraphs, key=lambda p: p.start, reverse=True):
        text = text[: p.start] + html.escape(_after_first_sentence(p.text)) + text[p.end:]
    target.write_text(text, encoding="utf-8")


def _after_first_sentence(text: str) -> str:
    """The paragraph's text after its first sentence (inline markup is not kept: the
    readers keep only an inline element's words)."""
    collapsed = " ".join(text.split())
    return collapsed[len(first_sentence(collapsed)):].lstrip(".").strip()


def locate(dest: Path, cases: Sequence[DocumentCase]) -> list[DocumentCase]:
    """The cases with the lines their section has in the indexed text, as the reader lays
    each file out; a case whose section is not there (or still holds its query) is dropped."""
    located = []
    for path, group in _by_path([(c, None) for c in cases]).items():
        try:
            rendered = read_document(path, (dest / path).read_bytes())
        except DocumentReadError:
            continue
        for case, _ in group:
            spans = _spans(rendered, case)
            if spans:
                located.append(replace(case, spans=spans))
    return located


def _spans(rendered: Rendered, case: DocumentCase) -> tuple[tuple[int, int], ...]:
    """The lines of the case's section: each rendered section under its heading; with a
    location (a PDF's page), the one there and those that go on from it on the next pages
    (the same heading path, one after the other), as a long HTML section's pieces all count."""
    title = normalize(case.title)
    lines = rendered.text.split("\n")
    spans = []
    going_on: tuple[str, ...] | None = None  # the path of the located section, while it lasts
    for section, start, end in zip(rendered.sections, rendered.starts, rendered.ends,
                                   strict=True):
        if going_on is not None and section.path == going_on:
            spans.append((start, end))
            continue
        going_on = None
        if not section.path or normalize(section.path[-1]) != title:
            continue
        if case.location is not None:
            if section.location != case.location:
                continue
            going_on = section.path
        if case.kind == "sentence" and _holds(lines[start - 1 : end], case.query):
            return ()  # the sentence was not removed: the case would ask for its own words
        spans.append((start, end))
    return tuple(spans)


def _holds(lines: Sequence[str], sentence: str) -> bool:
    return " ".join(sentence.split()) in " ".join(" ".join(lines).split())


class _SectionParser(HTMLParser):
    """Headings in document order, each with the first ``<p>`` of its section."""

    def __init__(self, source: str) -> None:
        super().__init__(convert_charrefs=True)
        self.source = source
        self.found: list[_Found] = []
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", source)]
        self._heading: list[str] | None = None  # text of the open heading
        self._paragraph: tuple[int, list[str]] | None = None  # inner start, text
        self._wants_paragraph = False  # the last heading has no paragraph yet
        self._skipping = 0
        self._main: list[str] = []  # the main element's tag, once per nested same tag

    def _offset(self) -> int:
        line, column = self.getpos()
        return self._line_starts[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if (self._main and tag == self._main[0]) or (
            not self._main and (tag == "main" or dict(attrs).get("role") == "main")
        ):
            self._main.append(tag)
        if tag in _SKIPPED_TAGS:
            self._skipping += 1
        elif tag in _HEADING_TAGS:
            self._heading = []
            self._paragraph = None
        elif tag == "p" and self._wants_paragraph and self._heading is None:
            self._paragraph = (self._offset() + len(self.get_starttag_text() or ""), [])
            self._wants_paragraph = False

    def handle_endtag(self, tag: str) -> None:
        if self._main and tag == self._main[0]:
            self._main.pop()
        if tag in _SKIPPED_TAGS:
            self._skipping = max(0, self._skipping - 1)
        elif tag in _HEADING_TAGS and self._heading is not None:
            title = " ".join("".join(self._heading).split()).strip(_PERMALINK_MARKS).strip()
            self._heading = None
            if title:
                self.found.append(_Found(title, main=bool(self._main)))
                self._wants_paragraph = True
        elif tag == "p" and self._paragraph is not None and self.found:
            start, words = self._paragraph
            self._paragraph = None
            paragraph = _Paragraph(start, self._offset(), "".join(words))
            self.found[-1] = replace(self.found[-1], paragraph=paragraph)

    def handle_data(self, data: str) -> None:
        if self._skipping:
            return
        if self._heading is not None:
            self._heading.append(data)
        elif self._paragraph is not None:
            self._paragraph[1].append(data)
