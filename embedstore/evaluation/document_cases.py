"""Mine (query -> section) cases from documents, independently of the index's readers.

Two kinds of query, both self-supervised:

- ``heading``: a section's heading, its numbering dropped ("9.8. Private Variables" ->
  "Private Variables"). Only headings found once in the whole corpus are asked: "Examples"
  or "Description" have no one answer.
- ``sentence``: the first sentence of a section's first paragraph, removed from the copy
  that is indexed (as ``eval`` removes a function's docstring): the rest of the section
  must find it. In HTML the paragraph's markup is rewritten; in a PDF the text objects
  that draw the sentence are deleted from its page (with any words they share a run with).

HTML headings and paragraphs come from :mod:`html.parser` here; PDF sections from the
document's outline (bookmarks) and the text of its page after the heading's line, through
``pypdfium2``: neither goes through ``embedstore.chunking.readers``. The readers only say,
afterwards, which lines of the indexed text a case's section became (:func:`locate`),
since hits are lines of that text.
"""

from __future__ import annotations

import ctypes
import html
import io
import random
import re
import shutil
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from html.parser import HTMLParser
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from embedstore.chunking.readers import DocumentReadError, Rendered, read_document
from embedstore.evaluation.dataset import MIN_WORDS, first_sentence

QUERY_KINDS = ("heading", "sentence")
# A PDF marks no paragraphs: a section's text runs on into syntax blocks and examples until
# some full stop. A "first sentence" longer than this is such a run, not a sentence.
MAX_SENTENCE_WORDS = 40
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
    """A section's first paragraph: its text, and where it is. In HTML, ``start``/``end``
    are its inner markup's character range in the page's source; in a PDF, its text's
    range in the text of page ``page`` (0-based)."""

    start: int
    end: int
    text: str
    page: int | None = None


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
    """Each outline entry that points at a page: its title, that page, and the text that
    follows the title's line on it, up to the next entry's title there."""
    pdf = pdfium.PdfDocument(data)
    try:
        entries = []
        for item in pdf.get_toc(max_depth=16):
            dest = item.get_dest()
            index = dest.get_index() if dest is not None else None
            title = " ".join((item.get_title() or "").split())
            if title and index is not None:
                entries.append((title, index))
        texts = {index: _page_text(pdf, index) for index in {i for _, i in entries}}
        return [
            _Found(title, f"page={index + 1}", _pdf_paragraph(
                texts[index], index, title, [t for t, i in entries if i == index and t != title]
            ))
            for title, index in entries
        ]
    finally:
        pdf.close()


def _page_text(pdf: pdfium.PdfDocument, index: int) -> str:
    page = pdf[index]
    textpage = page.get_textpage()
    try:
        return str(textpage.get_text_range())
    finally:
        textpage.close()
        page.close()


def _pdf_paragraph(text: str, page: int, title: str, others: Sequence[str]) -> _Paragraph | None:
    """The text after ``title``'s own line on the page, up to another title's line."""
    heading = _line_of(title).search(text)
    if heading is None:
        return None  # the title is set otherwise than the outline writes it
    after = [m.start() for t in others if (m := _line_of(t).search(text, heading.end()))]
    end = min(after, default=len(text))
    return _Paragraph(heading.end(), end, text[heading.end():end], page)


def _line_of(title: str) -> re.Pattern[str]:
    """A line of a page's text that is ``title`` alone (pdfium ends lines with CR LF)."""
    return re.compile(r"(?m)^[ \t]*" + _words_pattern(title) + r"[ \t]*\r?$")


def _words_pattern(text: str) -> str:
    """``text``'s words, each literal, with any run of whitespace (line ends too) between."""
    return r"\s+".join(re.escape(word) for word in text.split())


def build_cases(
    root: Path, dest: Path, *, seed: int = 0, max_queries: int | None = None,
    max_files: int | None = None,
) -> MinedCorpus:
    """Copy ``root``'s documents to ``dest``, sampled sentences removed; return the cases.

    ``max_queries`` caps each query kind; ``max_files`` samples the documents (seeded)
    when the corpus is too big to index in the time at hand.
    """
    files = sorted(p for p in root.rglob("*") if p.suffix.lower() in FORMATS and p.is_file())
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
        return FORMATS[path.suffix.lower()].mine(path.read_bytes())
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
            if MIN_WORDS <= len(sentence.split()) <= MAX_SENTENCE_WORDS:
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
    target.write_bytes(FORMATS[source.suffix.lower()].strip(source.read_bytes(), paragraphs))


def strip_html(data: bytes, paragraphs: Sequence[_Paragraph]) -> bytes:
    """The page with each paragraph's markup replaced by its text after the first sentence."""
    text = data.decode("utf-8", errors="replace")
    for p in sorted(paragraphs, key=lambda p: p.start, reverse=True):
        text = text[: p.start] + html.escape(_after_first_sentence(p.text)) + text[p.end:]
    return text.encode("utf-8")


def strip_pdf(data: bytes, paragraphs: Sequence[_Paragraph]) -> bytes:
    """The PDF without the text objects that draw each paragraph's first sentence.

    A sentence not found as its page's text (it goes on to the next page) stays, and
    :func:`locate` drops its case. The objects are taken from the same loaded page they
    are removed from: pdfium's handles belong to one load of a page.
    """
    pdf = pdfium.PdfDocument(data)
    pages: dict[int, pdfium.PdfPage] = {}
    try:
        doomed: dict[int, dict[int, object]] = {}  # page -> object address -> handle
        for p in paragraphs:
            assert p.page is not None, "a PDF paragraph has its page"
            page = pages.setdefault(p.page, pdf[p.page])
            textpage = page.get_textpage()
            found = re.search(_words_pattern(first_sentence(p.text)),
                              textpage.get_text_range()[p.start:p.end])
            for i in range(p.start + found.start(), p.start + found.end()) if found else ():
                handle = pdfium_c.FPDFText_GetTextObject(textpage.raw, i)
                if address := ctypes.cast(handle, ctypes.c_void_p).value:
                    doomed.setdefault(p.page, {})[address] = handle
            textpage.close()
        for index, handles in doomed.items():
            for handle in handles.values():
                if pdfium_c.FPDFPage_RemoveObject(pages[index].raw, handle):
                    pdfium_c.FPDFPageObj_Destroy(handle)  # removed, it is ours to free
            pages[index].gen_content()
        out = io.BytesIO()
        pdf.save(out)
        return out.getvalue()
    finally:
        for page in pages.values():
            page.close()
        pdf.close()


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


@dataclass(frozen=True)
class _Format:
    mine: Callable[[bytes], list[_Found]]
    strip: Callable[[bytes, Sequence[_Paragraph]], bytes]


# By file extension: the formats cases are mined from. Other documents are copied as they
# are, as distractors.
_HTML = _Format(mine_html, strip_html)
FORMATS: dict[str, _Format] = {".html": _HTML, ".htm": _HTML, ".pdf": _Format(mine_pdf, strip_pdf)}
