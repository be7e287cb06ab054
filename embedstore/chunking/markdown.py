"""Markdown and reStructuredText, one section per heading.

A section is a heading and the text up to the next heading of any level; its
``symbol`` is the heading and its ``context`` the path of enclosing headings
(``Install > Linux``), so a short subsection still says where it sits.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from embedstore.chunking.budget import Budget, Span
from embedstore.chunking.types import Chunk

SECTION_KIND = "section"
PATH_SEPARATOR = " > "

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
# reST adornments: one punctuation character repeated.
_ADORNMENT = re.compile(r"""^([!-/:-@\[-`{-~])\1+\s*$""")


class Heading(NamedTuple):
    line: int  # first line of the heading (an reST overline included)
    level: int
    title: str


def chunk_markup(budget: Budget, *, rst: bool) -> list[Chunk]:
    """Sections of a Markdown (or, with ``rst``, reStructuredText) file."""
    headings = rst_headings(budget.lines) if rst else markdown_headings(budget.lines)
    spans: list[Span] = []
    preamble = budget.trimmed(1, headings[0].line - 1 if headings else len(budget.lines))
    if preamble:
        spans.append(Span(*preamble, SECTION_KIND))
    path: list[Heading] = []
    for index, heading in enumerate(headings):
        end = headings[index + 1].line - 1 if index + 1 < len(headings) else len(budget.lines)
        while path and path[-1].level >= heading.level:
            path.pop()
        context = PATH_SEPARATOR.join(parent.title for parent in path)
        path.append(heading)
        continuation = PATH_SEPARATOR.join(parent.title for parent in path)
        bounds = budget.trimmed(heading.line, end)
        if bounds:
            symbol = heading.title or None
            spans.append(Span(*bounds, SECTION_KIND, symbol, context, continuation))
    return budget.pack(spans)


def markdown_headings(lines: list[str]) -> list[Heading]:
    """ATX (``## Title``) and setext (underlined) headings outside code fences."""
    headings: list[Heading] = []
    fence = ""
    for index, line in enumerate(lines):
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            continue
        if opened:
            fence = opened.group(1)
            continue
        atx = _ATX.match(line)
        previous = lines[index - 1].strip() if index else ""
        if atx:
            headings.append(Heading(index + 1, len(atx.group(1)), (atx.group(2) or "").strip()))
        elif _SETEXT.match(line) and previous and not _is_heading_line(headings, index):
            level = 1 if line.strip().startswith("=") else 2
            headings.append(Heading(index, level, previous))
    return headings


def _is_heading_line(headings: list[Heading], index: int) -> bool:
    """Whether line ``index`` (1-based) already is a heading: no underline for it."""
    return bool(headings) and headings[-1].line == index


def rst_headings(lines: list[str]) -> list[Heading]:
    """Underlined (optionally also overlined) titles; levels in order of first use."""
    headings: list[Heading] = []
    levels: dict[tuple[str, bool], int] = {}
    for index in range(1, len(lines)):
        title, under = lines[index - 1].rstrip(), lines[index].rstrip()
        adornment = _ADORNMENT.match(under)
        if not adornment or not title.strip() or _ADORNMENT.match(title):
            continue
        if len(under) < len(title.strip()):
            continue
        over = index >= 2 and lines[index - 2].rstrip() == under
        style = (adornment.group(1), over)
        level = levels.setdefault(style, len(levels) + 1)
        headings.append(Heading(index - 1 if over else index, level, title.strip()))
    return headings
