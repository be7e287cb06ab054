"""Server-side syntax highlighting, so the search page needs no JavaScript library."""

from __future__ import annotations

import functools

from pygments import highlight as pygments_highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import TextLexer, get_lexer_by_name
from pygments.util import ClassNotFound

CSS_CLASS = "hl"


@functools.lru_cache(maxsize=64)
def _lexer(language: str) -> Lexer:
    try:
        return get_lexer_by_name(language)
    except ClassNotFound:
        return TextLexer()


def highlight(code: str, language: str, first_line: int) -> str:
    formatter = HtmlFormatter(cssclass=CSS_CLASS, linenos="inline", linenostart=first_line)
    return pygments_highlight(code, _lexer(language), formatter)


@functools.cache
def stylesheet() -> str:
    return str(HtmlFormatter(style="friendly").get_style_defs(f".{CSS_CLASS}"))
