"""Which lines of a hit to show a person: the head of the definition, and why it matched.

The CLI and the search page both show a result this way, so a 300-line
function takes a dozen lines of screen, yet the piece that matched is always
in view. A class shows as its outline: its own lines, then one line per member.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, replace

from embedstore.chunking import code_outline
from embedstore.chunking.grammars import CLASS_KINDS
from embedstore.chunking.outline import Block
from embedstore.retrieval.search import SearchResult

HEAD_LINES = 12
# Lines shown from the matched piece when it lies below the head: one line
# before it for context, then the start of the piece.
MATCH_LINES = 6


@dataclass(frozen=True)
class Preview:
    """Line ranges (1-based, inclusive, in file order) shown of one hit.

    ``note`` says what the lines are when they are a class's outline rather
    than the head of the definition: ``"class, 12 methods"``.
    """

    spans: tuple[tuple[int, int], ...]
    hidden: int  # lines of the definition not in any span
    note: str = ""

    def shows(self, line: int) -> bool:
        return any(a <= line <= b for a, b in self.spans)


def preview(hit: SearchResult) -> Preview:
    """A class's outline, or the head of the definition plus the matched piece if below it."""
    members = _members(hit)
    if members is not None:
        return _outline(hit, members)
    head_end = min(hit.end_line, hit.start_line + HEAD_LINES - 1)
    spans = [(hit.start_line, head_end)]
    if hit.match_start_line > head_end:
        first = max(head_end + 1, hit.match_start_line - 1)
        last = min(hit.end_line, first + MATCH_LINES - 1)
        if first == head_end + 1:  # right below the head: one run, no gap to mark
            spans = [(hit.start_line, last)]
        else:
            spans.append((first, last))
    return _preview(hit, spans)


def matched_lines(hit: SearchResult) -> range:
    """The lines worth marking as the match: none when the match is the whole definition."""
    if (hit.match_start_line, hit.match_end_line) == (hit.start_line, hit.end_line):
        return range(0)
    return range(hit.match_start_line, hit.match_end_line + 1)


def _preview(hit: SearchResult, spans: Sequence[tuple[int, int]], note: str = "") -> Preview:
    shown = sum(b - a + 1 for a, b in spans)
    return Preview(tuple(spans), hit.end_line - hit.start_line + 1 - shown, note)


def _members(hit: SearchResult) -> list[Block] | None:
    """The members of a class hit longer than a head, numbered as in the file; else None.

    The hit's text is parsed again: what it shows needs the members' lines,
    which the index does not keep. Dedented, so a nested class parses too.
    """
    if hit.kind not in CLASS_KINDS or hit.end_line - hit.start_line < HEAD_LINES:
        return None
    blocks = code_outline(textwrap.dedent(hit.text), hit.language)
    owner = next((b for b in blocks or () if b.kind in CLASS_KINDS), None)
    if owner is None or not owner.children:
        return None
    shift = hit.start_line - 1
    return [
        replace(b, start=b.start + shift, end=b.end + shift, head=b.head + shift, children=())
        for b in owner.children
    ]


def _outline(hit: SearchResult, members: Sequence[Block]) -> Preview:
    """The class's own lines (a head's worth of each run), and each member's first line."""
    lines = hit.text.split("\n")
    spans: list[tuple[int, int]] = []
    cursor = hit.start_line  # the first line after the members seen so far
    for member in members:
        _add_own(spans, lines, hit.start_line, cursor, member.start - 1)
        _add(spans, (member.head, member.head))
        cursor = max(cursor, member.end + 1)
    _add_own(spans, lines, hit.start_line, cursor, hit.end_line)
    methods = sum(m.kind == "method" for m in members)  # a nested class is no method
    return _preview(hit, spans, f"{hit.kind}, {methods} method{'' if methods == 1 else 's'}")


def _add_own(
    spans: list[tuple[int, int]], lines: list[str], base: int, first: int, last: int
) -> None:
    """Add the head of the class's own lines ``first``..``last`` (``lines`` start at ``base``).

    Header, docstring and fields: blank lines at the edges left out, a long
    run cut to its head.
    """
    while first <= last and not lines[first - base].strip():
        first += 1
    while last >= first and not lines[last - base].strip():
        last -= 1
    if first <= last:
        _add(spans, (first, min(last, first + HEAD_LINES - 1)))


def _add(spans: list[tuple[int, int]], span: tuple[int, int]) -> None:
    """Append ``span``, joined to the last one when they touch: one run, no gap marked."""
    if spans and span[0] <= spans[-1][1] + 1:
        spans[-1] = (spans[-1][0], max(spans[-1][1], span[1]))
    else:
        spans.append(span)
