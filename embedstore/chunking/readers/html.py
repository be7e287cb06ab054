"""HTML: the main text by headings; scripts, styles and navigation dropped, code kept as code.

Navigation is what the page marks as such: ``<nav>``, an ARIA navigation role, or
DocBook's navigation classes (its prev/next header and footer, its tables of contents).

Each heading (``h1``-``h6``) starts a section whose path is the headings above it; its
location is the heading's id (or its permalink's or named anchor's, or else the id of the
``<section>`` or ``<div>`` it opens, as DocBook writes them), the fragment a browser scrolls
to. Where the page marks its main content (``<main>``, ``role="main"``) only that is read.
Paragraphs are separated by a blank line; ``<pre>`` keeps its lines as they are; a table
is a block of rows, its cells joined by `` | ``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

from embedstore.chunking.readers.base import Document, Section, paragraphs

# Whole subtrees that are not the page's text.
_DROPPED_TAGS = frozenset({"script", "style", "nav", "noscript", "template", "svg", "footer",
                           "iframe", "object", "select", "button", "form", "head"})
_DROPPED_ROLES = frozenset({"navigation", "banner", "contentinfo", "search", "complementary"})
# Navigation that generators mark by class alone: DocBook's page header and footer (prev,
# up, next) and its tables of contents, which repeat every section title of a chapter.
_DROPPED_CLASSES = frozenset({"navheader", "navfooter", "toc"})
# Tags that end a line of text; those in _PARAGRAPH_TAGS also end a paragraph.
_LINE_TAGS = frozenset({"br", "li", "dt", "dd", "tr", "div", "caption", "figcaption", "td", "th"})
_PARAGRAPH_TAGS = frozenset({"p", "ul", "ol", "dl", "table", "blockquote", "section", "article",
                             "main", "hr", "figure", "aside", "header", "address", "details",
                             "summary"})
_HEADINGS = {f"h{level}": level for level in range(1, 7)}
# Sphinx's and others' permalink marks after a heading's text.
_PERMALINK_MARKS = "¶#§🔗"
_CHARSET = re.compile(rb"""charset\s*=\s*["']?([\w.:-]+)""", re.IGNORECASE)
# Elements whose id a heading inside them, without one of its own, is reached by: Sphinx's
# <section id>, DocBook's <div class="sect1" id> (the PostgreSQL manual).
_ANCHORING_TAGS = frozenset({"section", "div", "article"})
_VOID_TAGS = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
                        "meta", "param", "source", "track", "wbr"})


def read_html(data: bytes) -> Document:
    parser = _Parser()
    parser.feed(decode_html(data))
    parser.close()
    return parser.document()


def decode_html(data: bytes) -> str:
    """The page's text in the charset it declares (UTF-8 when it declares none)."""
    declared = _CHARSET.search(data[:4096])
    encoding = declared.group(1).decode("ascii") if declared else "utf-8"
    try:
        return data.decode(encoding, errors="replace")
    except LookupError:  # an unknown charset name
        return data.decode("utf-8", errors="replace")


@dataclass
class _Heading:
    level: int
    title: str
    anchor: str
    main: bool


@dataclass
class _Block:
    text: str
    main: bool


@dataclass
class _Parser(HTMLParser):
    items: list[_Heading | _Block] = field(default_factory=list)
    title: str = ""

    def __post_init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self._drop: list[str] = []  # the dropped subtree's tag, then one entry per nested same tag
        self._main: list[str] = []  # likewise for the main content
        self._seen_main = False
        self._words: list[str] = []  # inline text of the current line
        self._lines: list[str] = []  # lines of the current paragraph
        self._pre: list[str] | None = None  # raw text inside <pre>
        self._row: list[str] | None = None  # cells of the current table row
        self._heading: tuple[int, str] | None = None  # level and anchor of an open heading
        # The id of the last section-like element opened, for headings without one.
        self._section_id = ""
        self._in_title = False

    # -- the parser's callbacks

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = {name: value or "" for name, value in attrs}
        if tag == "body":
            self._drop.clear()  # the head ends where the body starts, closed or not
        if tag == "title":
            self._in_title = True
            return
        if self._drop:
            if tag == self._drop[0] and tag not in _VOID_TAGS:
                self._drop.append(tag)
            return
        if (tag in _DROPPED_TAGS or attr.get("role") in _DROPPED_ROLES
                or not _DROPPED_CLASSES.isdisjoint(attr.get("class", "").split())):
            if tag not in _VOID_TAGS:
                self._drop.append(tag)
            return
        if tag == "main" or attr.get("role") == "main":
            self._main.append(tag)
            self._seen_main = True
        elif self._main and tag == self._main[0]:
            self._main.append(tag)
        if tag in _ANCHORING_TAGS and attr.get("id"):
            self._section_id = attr["id"]
        if tag in _HEADINGS:
            self._end_paragraph()
            self._heading = (_HEADINGS[tag], attr.get("id") or self._section_id)
        elif tag == "a" and self._heading is not None:
            # A permalink (Sphinx's headerlink) or a named anchor inside the heading.
            level, anchor = self._heading
            link = attr.get("href", "").lstrip("#") if "headerlink" in attr.get("class", "") else ""
            self._heading = (level, anchor or link or attr.get("id") or attr.get("name", ""))
        elif tag == "pre":
            self._end_paragraph()
            self._pre = []
        elif tag == "tr":
            self._end_line()
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._end_cell()
        elif tag in _PARAGRAPH_TAGS:
            self._end_paragraph()
        elif tag in _LINE_TAGS:
            self._end_line()

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("br", "hr"):
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
            return
        if self._drop:
            if tag == self._drop[-1]:
                self._drop.pop()
            return
        if tag in _HEADINGS and self._heading is not None:
            level, anchor = self._heading
            title = " ".join("".join(self._words).split()).rstrip(_PERMALINK_MARKS).strip()
            self._words = []
            self._heading = None
            if title:
                self.items.append(_Heading(level, title, anchor, self._in_main))
        elif tag == "pre" and self._pre is not None:
            code = "".join(self._pre).strip("\n")
            self._pre = None
            if code.strip():
                self.items.append(_Block(code, self._in_main))
        elif tag in ("td", "th") and self._row is not None:
            self._end_cell()
        elif tag == "tr" and self._row is not None:
            self._end_cell()
            cells = [cell for cell in self._row if cell]
            self._row = None
            if cells:
                self._lines.append(" | ".join(cells))
        elif tag in _PARAGRAPH_TAGS:
            self._end_paragraph()
        elif tag in _LINE_TAGS:
            self._end_line()
        if self._main and tag == self._main[-1]:
            self._main.pop()

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif self._drop:
            return
        elif self._pre is not None:
            self._pre.append(data)
        else:
            self._words.append(data)

    # -- text assembly

    @property
    def _in_main(self) -> bool:
        return bool(self._main)

    def _end_cell(self) -> None:
        if self._row is not None:
            cell = " ".join("".join(self._words).split())
            self._words = []
            if cell:
                self._row.append(cell)

    def _end_line(self) -> None:
        if self._heading is not None:
            return  # a <br> or <span class="line"> inside a heading
        line = " ".join("".join(self._words).split())
        self._words = []
        if line:
            self._lines.append(line)

    def _end_paragraph(self) -> None:
        self._end_line()
        if self._lines:
            self.items.append(_Block("\n".join(self._lines), self._in_main))
            self._lines = []

    def document(self) -> Document:
        self._end_paragraph()
        items = [i for i in self.items if i.main] if self._seen_main else self.items
        title = " ".join(self.title.split())
        sections: list[Section] = []
        path: list[_Heading] = []
        blocks: list[str] = []
        anchor = ""

        def close() -> None:
            names = tuple(h.title for h in path) or ((title,) if title else ())
            sections.append(Section(names, paragraphs(blocks), anchor))

        for item in items:
            if isinstance(item, _Block):
                blocks.append(item.text)
                continue
            close()
            while path and path[-1].level >= item.level:
                path.pop()
            path.append(item)
            blocks, anchor = [item.title], item.anchor
        close()
        return Document(tuple(s for s in sections if s.text.strip()))
