"""Turning an outline of definitions into chunks that fit the budget.

Shared by every code chunker: tree-sitter and the ``ast`` fallback only differ
in how they find the :class:`Block` s. Lines outside any definition (imports,
module statements) become chunks of their own, so every non-blank line of the
file is covered. A class with members is a unit of its own, embedded as its
outline, beside one unit per member: see :func:`_outline`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from embedstore.chunking.budget import Budget, Span
from embedstore.chunking.grammars import CLASS_KINDS
from embedstore.chunking.outline import Block
from embedstore.chunking.types import Chunk

# Lines that are not in any definition at the top level of a file.
MODULE_KIND = "module"

# A segment of a region: lines start..end, the definition there or None for a gap.
Segment = tuple[int, int, "Block | None"]


def chunk_outline(blocks: Sequence[Block], budget: Budget) -> list[Chunk]:
    outlines: list[Chunk] = []
    spans = _region(blocks, 1, len(budget.lines), None, "", 0, budget, outlines)
    return sorted(budget.pack(spans) + outlines, key=lambda chunk: chunk.start_line)


def _region(
    blocks: Sequence[Block],
    start: int,
    end: int,
    owner: Block | None,
    context: str,
    scope: int,
    budget: Budget,
    outlines: list[Chunk],
) -> list[Span]:
    """Spans for lines ``start``..``end``: ``owner``'s body, or the whole file.

    A class with members, and any other definition with members that is over
    budget, is replaced by its members and the lines between them, recursively;
    a class keeps a unit of its own, whose chunks (its outline) go to
    ``outlines``. Anything else over budget is left for :meth:`Budget.pack` to
    split into line pieces.
    """
    inner = _join_context(context, owner.header) if owner else context
    segments = _segments(blocks, start, end, budget)
    # A class keeps a unit of its own: its outline.
    outlined = owner if owner is not None and owner.kind in CLASS_KINDS else None
    planned: list[tuple[Span, Block | None]] = []
    for first, last, block in segments:
        if block is not None:
            continuation = _join_context(inner, block.header)
            own = _merge_scope(block, scope, first)
            span = Span(first, last, block.kind, block.symbol, inner, continuation, own)
        elif owner is None:
            span = Span(first, last, MODULE_KIND, None, "", "", scope)
        elif outlined is not None:
            # The class's own lines are in its outline. Members on either side of
            # them are not joined: the join would hold them again, unmeasured.
            scope = first
            continue
        else:
            # The owner's first lines hold its header, so they need no context.
            own_context = context if first == start else inner
            span = Span(first, last, owner.kind, owner.symbol, own_context, inner, scope)
        planned.append((span, block))
    out: list[Span] = []
    fitting = budget.fits([span for span, _ in planned])
    if outlined is not None:
        # After measuring the members, so the outline is planned with what they taught.
        outlines += _outline(outlined, segments, start, end, context, inner, budget)
    for (span, block), fits in zip(planned, fitting, strict=True):
        if block is None or not _opened(block, fits):
            out.append(span)
        else:
            members = block.children
            out += _region(
                members, span.start, span.end, block, span.context, span.start, budget, outlines
            )
    return out


def _opened(block: Block, fits: bool) -> bool:
    """Whether a definition is replaced by its members: a class with members always is,
    so that a search for a method finds the method and not its class; any other
    container (a namespace, a Rust `mod`) only when it is over budget."""
    return bool(block.children) and (not fits or block.kind in CLASS_KINDS)


def _outline(
    owner: Block,
    segments: Sequence[Segment],
    start: int,
    end: int,
    context: str,
    inner: str,
    budget: Budget,
) -> list[Chunk]:
    """The chunks of a class with members: its own lines with its members' signatures.

    The class stays one unit, lines ``start``..``end``, beside its members'
    units: a query about the class as a whole finds it, one about a method the
    method. What it embeds is its header, docstring and fields (every line
    outside its members, so no line goes unembedded) and each member's
    signature: what a reader skims a class for. An outline over budget is
    split like any text, each piece standing for the lines it outlines.
    """
    rows: list[str] = []
    reach: list[tuple[int, int]] = []  # the lines of the class each row stands for
    for first, last, block in segments:
        if block is None:
            rows += budget.lines[first - 1 : last]
            reach += [(line, line) for line in range(first, last + 1)]
        else:
            line = budget.lines[block.head - 1]
            indent = line[: len(line) - len(line.lstrip())]
            signature = [f"{indent}{row}" for row in block.header.split("\n") if row]
            rows += signature
            reach += [(first, last)] * len(signature)
    span = Span(1, len(rows), owner.kind, owner.symbol, context, inner)
    pieces = [piece.chunk for piece in budget.over(rows).fit([span])]
    chunks = []
    for index, piece in enumerate(pieces):
        # The first and last pieces reach the edges of the class: its blank lines too.
        first = start if index == 0 else reach[piece.start_line - 1][0]
        last = end if index == len(pieces) - 1 else reach[piece.end_line - 1][1]
        unit = None if (first, last) == (start, end) else (start, end)
        chunks.append(replace(piece, start_line=first, end_line=last, unit=unit))
    return chunks


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


def _merge_scope(block: Block, region: int, first: int) -> int:
    """The scope of a definition's span in a region: spans merge only within one.

    A named definition merges with nothing: it is looked up by its name and its doc
    comment, and a search hit should be the definition itself, not a run of one-line
    getters that starts at another. Unnamed lines merge within their region. Regions'
    scopes are their first lines (>= 0); a named definition's is below zero.
    """
    if block.symbol is None:
        return region
    return -first - 1


def _join_context(outer: str, header: str) -> str:
    return f"{outer}\n{header}" if outer and header else outer or header
