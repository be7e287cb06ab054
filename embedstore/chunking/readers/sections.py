"""A read document's sections as chunks: prose by paragraphs under its heading path, code as code.

Every chunk of a section carries the section's heading path as its context
(``Tutorial > Classes > Private Variables``), so what is embedded says where it sits. A
section is one unit, as a definition is: one search result. Over the budget it is cut
into chunks between paragraphs (a table or a code block is one paragraph, so it stays
whole where it fits), each with the heading path again. Units never straddle two
locations (pages, slides, cells), and short sections at one location are joined as in
Markdown. A code section (a notebook's code cell) is chunked as
code in its language (:func:`embedstore.chunking.chunk_file`).
"""

from __future__ import annotations

import bisect
from dataclasses import replace

from embedstore.chunking.budget import MIN_MAX_TOKENS, Budget, Span
from embedstore.chunking.markdown import PATH_SEPARATOR, SECTION_KIND
from embedstore.chunking.readers.base import Rendered
from embedstore.chunking.types import Chunk, TokenCounter


def chunk_document(
    document: Rendered, *, max_tokens: int, count_tokens: TokenCounter
) -> list[Chunk]:
    """The chunks of a rendered document, in line order (see the module's docstring)."""
    # Imported here: the package imports the readers to route documents to them.
    from embedstore.chunking import chunk_file

    budget = Budget(document.text.split("\n"), max_tokens, count_tokens)
    spans: list[Span] = []  # sections of one window: joined with short neighbours
    chunks: list[Chunk] = []
    placed = list(zip(document.sections, document.starts, document.ends, strict=True))
    # Counted together, in one batch: most sections fit whole.
    whole = budget.fits([Span(start, end, SECTION_KIND, None, PATH_SEPARATOR.join(s.path))
                         for s, start, end in placed])
    scope, previous = 0, None
    for (section, start, end), fits in zip(placed, whole, strict=True):
        if section.location != previous:
            scope, previous = scope + 1, section.location
        context = PATH_SEPARATOR.join(section.path)
        if section.language is None:
            bounds = budget.trimmed(start, end)
            if bounds is None:
                continue
            symbol = section.path[-1] if section.path else None
            if fits:
                spans.append(Span(*bounds, SECTION_KIND, symbol, context, context, scope))
                continue
            windows = _paragraph_spans(budget, *bounds, context, scope)
            pieces = [piece.chunk for piece in budget.fit(windows)]
            unit = (pieces[0].start_line, pieces[-1].end_line)
            chunks.extend(replace(piece, unit=unit) for piece in pieces)
            scope += 1  # no join across this section
            continue
        (context_tokens,) = count_tokens([context]) if context else (0,)
        cell = chunk_file(
            budget.text(start, end), section.language,
            # One more token for the newline that joins the two contexts.
            max_tokens=max(MIN_MAX_TOKENS, max_tokens - context_tokens - 1),
            count_tokens=count_tokens,
        )
        chunks.extend(_placed(chunk, start - 1, context) for chunk in cell)
        scope += 1
    return sorted(budget.pack(spans) + chunks, key=lambda c: (c.start_line, c.end_line))


def _paragraph_spans(
    budget: Budget, first: int, last: int, context: str, scope: int
) -> list[Span]:
    """Lines ``first``..``last`` (not blank) as windows that fit the budget by estimate,
    cut between paragraphs."""
    # Blank lines, in order: where paragraphs end.
    breaks = [line for line in range(first, last + 1) if budget.is_blank(line)]
    symbol = context.rsplit(PATH_SEPARATOR, 1)[-1] or None
    spans: list[Span] = []
    while first <= last:
        limit = budget.window_end(first, last)
        # The last paragraph end within the window; a paragraph over it on its own is
        # one unit, which the budget cuts into pieces.
        within = bisect.bisect_right(breaks, limit + 1)
        after = bisect.bisect_right(breaks, first)
        if within > after:
            cut = breaks[within - 1] - 1
        else:
            cut = breaks[after] - 1 if after < len(breaks) else last
        spans.append(Span(first, cut, SECTION_KIND, symbol, context, context, scope))
        first = budget.next_content(cut + 1, last)
    return spans


def _placed(chunk: Chunk, offset: int, context: str) -> Chunk:
    """A chunk of one section's text, moved to the section's lines, under its heading path."""
    unit = None if chunk.unit is None else (chunk.unit[0] + offset, chunk.unit[1] + offset)
    inner = f"{context}\n{chunk.context}" if chunk.context and context else (
        chunk.context or context)
    return replace(chunk, start_line=chunk.start_line + offset,
                   end_line=chunk.end_line + offset, context=inner, unit=unit)
