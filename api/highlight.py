"""Server-side syntax highlighting, so the search page needs no JavaScript library."""

from __future__ import annotations

import functools
from collections.abc import Iterator

from pygments import highlight as pygments_highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import TextLexer, get_lexer_by_name
from pygments.util import ClassNotFound

from embedstore.retrieval.preview import matched_lines, preview
from embedstore.retrieval.search import SearchResult

CSS_CLASS = "hl"


@functools.lru_cache(maxsize=64)
def _lexer(language: str) -> Lexer:
    # stripnl=False: by default Pygments drops a text's leading and trailing blank lines,
    # and every line number after them would be off.
    try:
        return get_lexer_by_name(language, stripnl=False)
    except ClassNotFound:
        return TextLexer(stripnl=False)


class _LineFormatter(HtmlFormatter):
    """Pygments' HTML with each line in ``<span class="line ...">``.

    The classes say what the page does with a line: ``match`` marks the matched
    piece, ``folded`` hides a line outside the preview until the hit is opened,
    ``resume`` starts a shown run after folded lines (the page puts "…" there).
    """

    def __init__(self, hit: SearchResult) -> None:
        super().__init__(cssclass=CSS_CLASS, linenos="inline", linenostart=hit.start_line)
        self._preview = preview(hit)
        self._matched = matched_lines(hit)
        self._resumes = {first for first, _ in self._preview.spans[1:]}

    def wrap(self, source: Iterator[tuple[int, str]]) -> Iterator[tuple[int, str]]:
        return super().wrap(self._wrap_lines(source))

    def _wrap_lines(self, source: Iterator[tuple[int, str]]) -> Iterator[tuple[int, str]]:
        number = self.linenostart
        for is_line, html in source:
            if is_line:
                # The line's own newline stays inside its span, so a folded line leaves no gap.
                yield 1, f'<span class="{self._classes(number)}">{html}</span>'
                number += 1
            else:
                yield is_line, html

    def _classes(self, number: int) -> str:
        return " ".join(["line"] + [
            name for name, on in (
                ("match", number in self._matched),
                ("folded", not self._preview.shows(number)),
                ("resume", number in self._resumes),
            ) if on
        ])


def highlight(hit: SearchResult) -> str:
    """The hit's whole definition as highlighted HTML, its lines classed for the page."""
    return pygments_highlight(hit.text, _lexer(hit.language), _LineFormatter(hit))


def highlight_lines(text: str, language: str) -> list[str]:
    """A whole file as highlighted HTML, one string per line, for the page's file view.

    Pygments closes its spans at each line's end, so every line stands alone: the page
    numbers, links and marks lines without parsing the HTML.
    """
    if not text:
        return []
    html = pygments_highlight(text, _lexer(language), HtmlFormatter(nowrap=True))
    lines = html.split("\n")
    # The text's own final newline ends its last line; it starts no line of its own.
    return lines[:-1] if lines[-1] == "" else lines


@functools.cache
def stylesheet() -> str:
    return str(HtmlFormatter(style="friendly").get_style_defs(f".{CSS_CLASS}"))
