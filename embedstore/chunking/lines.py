"""Plain text (and any language without a chunker): overlapping line windows."""

from __future__ import annotations

from embedstore.chunking.budget import Budget, Span
from embedstore.chunking.types import Chunk

LINES_KIND = "lines"
WINDOW_LINES = 40
# Consecutive windows share this fraction of a window (8 of 40 lines), so
# text cut at the edge of one window is whole in the next.
OVERLAP_FRACTION = 5


def chunk_lines(budget: Budget) -> list[Chunk]:
    """Windows of up to :data:`WINDOW_LINES` lines, fewer where the budget is tighter."""
    bounds = budget.trimmed(1, len(budget.lines))
    if bounds is None:
        return []
    start, last = bounds
    spans: list[Span] = []
    while True:
        end = budget.window_end(start, min(start + WINDOW_LINES - 1, last))
        spans.append(Span(start, end, LINES_KIND))
        if end >= last:
            break
        overlap = (end - start + 1) // OVERLAP_FRACTION
        # Always move forward, even when a window holds a single line.
        start = budget.next_content(max(end + 1 - overlap, start + 1), last)
    # Overlapping windows must not merge: fit only.
    return [piece.chunk for piece in budget.fit(spans)]
