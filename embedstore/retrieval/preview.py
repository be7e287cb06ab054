"""Which lines of a hit to show a person: the head of the definition, and why it matched.

The CLI and the search page both show a result this way, so a 300-line
function takes a dozen lines of screen, yet the piece that matched is always
in view.
"""

from __future__ import annotations

from dataclasses import dataclass

from embedstore.retrieval.search import SearchResult

HEAD_LINES = 12
# Lines shown from the matched piece when it lies below the head: one line
# before it for context, then the start of the piece.
MATCH_LINES = 6


@dataclass(frozen=True)
class Preview:
    """Line ranges (1-based, inclusive, in file order) shown of one hit."""

    spans: tuple[tuple[int, int], ...]
    hidden: int  # lines of the definition not in any span

    def shows(self, line: int) -> bool:
        return any(a <= line <= b for a, b in self.spans)


def preview(hit: SearchResult) -> Preview:
    """The head of the definition, plus the start of the matched piece when the head misses it."""
    head_end = min(hit.end_line, hit.start_line + HEAD_LINES - 1)
    spans = [(hit.start_line, head_end)]
    if hit.match_start_line > head_end:
        first = max(head_end + 1, hit.match_start_line - 1)
        last = min(hit.end_line, first + MATCH_LINES - 1)
        if first == head_end + 1:  # right below the head: one run, no gap to mark
            spans = [(hit.start_line, last)]
        else:
            spans.append((first, last))
    shown = sum(b - a + 1 for a, b in spans)
    return Preview(tuple(spans), hit.end_line - hit.start_line + 1 - shown)


def matched_lines(hit: SearchResult) -> range:
    """The lines worth marking as the match: none when the match is the whole definition."""
    if (hit.match_start_line, hit.match_end_line) == (hit.start_line, hit.end_line):
        return range(0)
    return range(hit.match_start_line, hit.match_end_line + 1)
