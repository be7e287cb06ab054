"""Turning an outline of definitions into chunks that fit the budget.

Shared by every code chunker: tree-sitter and the ``ast`` fallback only differ
in how they find the :class:`Block` s. Lines outside any definition (imports,
module statements, class attributes) become chunks of their own, so every
non-blank line of the file is covered.
"""

from __future__ import annotations

from collections.abc import Sequence

from embedstore.chunking.budget import Budget, Span
from embedstore.chunking.outline import Block
from embedstore.chunking.types import Chunk

# Lines that are not in any definition at the top level of a file.
MODULE_KIND = "module"

# A segment of a region: lines start..end, the definition there or None for a gap.
Segment = tuple[int, int, "Block | None"]


def chunk_outline(blocks: Sequence[Block], budget: Budget) -> list[Chunk]:
    return budget.pack(_region(blocks, 1, len(budget.lines), None, "", 0, budget))


def _region(
    blocks: Sequence[Block],
    start: int,
    end: int,
    owner: Block | None,
    context: str,
    scope: int,
    budget: Budget,
) -> list[Span]:
    """Spans for lines ``start``..``end``: ``owner``'s body, or the whole file.

    A definition over budget that has members is replaced by its members and
    the lines between them, recursively; anything else over budget is left for
    :meth:`Budget.pack` to split into line pieces.
    """
    inner = _join_context(context, owner.header) if owner else context
    planned: list[tuple[Span, Block | None]] = []
    for first, last, block in _segments(blocks, start, end, budget):
        if block is not None:
            continuation = _join_context(inner, block.header)
            span = Span(first, last, block.kind, block.symbol, inner, continuation, scope)
        elif owner is None:
            span = Span(first, last, MODULE_KIND, None, "", "", scope)
        else:
            # The owner's first lines hold its header, so they need no context.
            own_context = context if first == start else inner
            span = Span(first, last, owner.kind, owner.symbol, own_context, inner, scope)
        planned.append((span, block))
    out: list[Span] = []
    fitting = budget.fits([span for span, _ in planned])
    for (span, block), fits in zip(planned, fitting, strict=True):
        if fits or block is None or not block.children:
            out.append(span)
        else:
            members = block.children
            out += _region(members, span.start, span.end, block, span.context, span.start, budget)
    return out


def _segments(blocks: Sequence[Block], start: int, end: int, budget: Budget) -> list[Segment]:
    """Definitions and the non-blank gaps between them, in order, covering the region."""
    segments: list[Segment] = []
    cursor = start
    for block in blocks:
        # Outlines come from error-tolerant parsers: skip anything out of order.
        if block.start < cursor or block.start > end:
            continue
        segments += _gap(cursor, block.start - 1, budget)
        last = min(block.end, end)
        segments.append((block.start, last, block))
        cursor = last + 1
    segments += _gap(cursor, end, budget)
    return _absorb_punctuation(segments, budget)


def _gap(start: int, end: int, budget: Budget) -> list[Segment]:
    bounds = budget.trimmed(start, end)
    return [(*bounds, None)] if bounds else []


def _absorb_punctuation(segments: list[Segment], budget: Budget) -> list[Segment]:
    """Fold gaps of bare punctuation (a closing ``}``) into a neighbour.

    Alone they would be chunks with nothing to search for. Such a gap joins
    the segment before it, or the one after when it opens the region.
    """
    out: list[Segment] = []
    for segment in segments:
        _, last, block = segment
        if out and _is_bare(segment, budget):
            out[-1] = (out[-1][0], last, out[-1][2])
        elif out and _is_bare(out[-1], budget):
            out[-1] = (out[-1][0], last, block)
        else:
            out.append(segment)
    return out


def _is_bare(segment: Segment, budget: Budget) -> bool:
    first, last, block = segment
    return block is None and not any(char.isalnum() for char in budget.text(first, last))


def _join_context(outer: str, header: str) -> str:
    return f"{outer}\n{header}" if outer and header else outer or header
