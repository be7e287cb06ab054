"""Fitting candidate spans of a file into the encoder's token budget.

Every chunker proposes :class:`Span` s (line ranges with their metadata); this
module is the one place that measures them, splits the ones over budget into
line pieces (or, for a single over-long line, character pieces) and merges tiny
neighbours.

The real counter is a HuggingFace tokenizer, whose cost grows with both the
text and the number of texts, so counting is batched and memoised, spans
certainly over budget are never tokenized whole, and lines are not tokenized
one by one: pieces are planned from their length in tokens per character
learnt from this file's exact counts, then verified, and planned again where
the estimate fell short.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from embedstore.chunking.types import Chunk, TokenCounter, chunk_body

# Below this a signature plus one line of code rarely fits, so splitting
# degenerates into character shreds; refuse instead.
MIN_MAX_TOKENS = 16
# A continuation context (the signature a split function continues) may use at
# most this share of the budget, so each piece keeps room for its own code.
CONTEXT_SHARE = 4
# Chunks shorter than this many lines are merged with equally short neighbours.
MERGE_BELOW_LINES = 5
# Planned pieces aim at this share of the budget, as estimates scatter around
# the truth: fewer pieces fail verification and need planning again.
FILL = 0.8
# A piece may run this much past an equal share of its span, so that line
# granularity does not leave a tiny last piece.
BALANCE_SLACK = 1.1
# Characters counted to calibrate estimates when nothing else was counted yet.
SAMPLE_CHARS = 4000

# A planned piece: lines start..end with the context it carries.
Range = tuple[int, int, str]


@dataclass(frozen=True)
class Span:
    """A candidate chunk: lines ``start``..``end`` (1-based, inclusive)."""

    start: int
    end: int
    kind: str
    symbol: str | None = None
    context: str = ""
    # Context of the pieces after the first when the span has to be split.
    continuation: str = ""
    # Spans merge only with neighbours of the same scope (e.g. members of one class).
    scope: int = 0


@dataclass(frozen=True)
class Piece:
    """A chunk known to fit, with its token count.

    ``scope`` None never merges with neighbours; ``whole`` is False for a
    piece of a line, which can only stand alone.
    """

    chunk: Chunk
    tokens: int
    scope: int | None
    whole: bool = True


# Whether two consecutive pieces may be joined into one chunk.
Joinable = Callable[[Piece, Piece], bool]


def _visible(text: str) -> int:
    """Characters that are not spaces, tabs or newlines: what tokens are made of.

    Additive over lines joined with newlines, which the re-planning relies on.
    """
    return len(text) - text.count(" ") - text.count("\t") - text.count("\n")


class Budget:
    """The lines of one file, the token budget and a memoised batch counter."""

    def __init__(self, lines: list[str], max_tokens: int, count_tokens: TokenCounter) -> None:
        if max_tokens < MIN_MAX_TOKENS:
            raise ValueError(
                f"max_tokens must be at least {MIN_MAX_TOKENS} to hold a line of code "
                f"with its context, got {max_tokens}"
            )
        self.lines = lines
        self.max_tokens = max_tokens
        self._count_tokens = count_tokens
        self._memo: dict[str, int] = {}
        # Tokens (less specials) and visible characters of the texts counted so far.
        self._seen_tokens = 0
        self._seen_chars = 0
        self._overhead, newline = self._count(["", "\n"])
        # What joining one more line costs beyond its own tokens.
        self._newline = max(0, newline - self._overhead)

    def _count(self, texts: Sequence[str]) -> list[int]:
        """Token counts of ``texts``, asking the counter once for the unseen ones."""
        unseen = list(dict.fromkeys(text for text in texts if text not in self._memo))
        if unseen:
            counts = self._count_tokens(unseen)
            if len(counts) != len(unseen):
                raise ValueError(
                    f"count_tokens returned {len(counts)} counts for {len(unseen)} texts"
                )
            self._memo.update(zip(unseen, counts, strict=True))
        return [self._memo[text] for text in texts]

    def _measure(self, chunks: Sequence[Chunk]) -> list[int]:
        """Token counts of the chunks' bodies, where only fitting ones must be exact.

        Tokenizers give every whitespace-separated word at least one token, so
        a body with more words than the budget is over it and is not
        tokenized; its result is that lower bound, which exceeds ``max_tokens``.
        """
        bodies = [chunk_body(chunk) for chunk in chunks]
        result: list[int] = []
        unknown: list[int] = []
        for body in bodies:
            known = self._memo.get(body)
            if known is None:
                known = len(body.split()) + self._overhead
                if known <= self.max_tokens:
                    unknown.append(len(result))
            result.append(known)
        counts = self._count([bodies[index] for index in unknown])
        for index, tokens in zip(unknown, counts, strict=True):
            result[index] = tokens
            self._seen_tokens += tokens - self._overhead
            self._seen_chars += _visible(bodies[index])
        return result

    def over(self, lines: list[str]) -> Budget:
        """This budget for other lines: a text made of this file's (a class's outline).

        It shares the counts memoised so far and starts from what they taught
        of this file's tokens per character.
        """
        other = copy.copy(self)
        other.lines = lines
        return other

    def text(self, start: int, end: int) -> str:
        return "\n".join(self.lines[start - 1 : end])

    def is_blank(self, line: int) -> bool:
        return not self.lines[line - 1].strip()

    def trimmed(self, start: int, end: int) -> tuple[int, int] | None:
        """``start``..``end`` without blank lines at either edge; None if all blank."""
        start = self.next_content(start, end)
        return (start, self._trim_end(start, end)) if start <= end else None

    def next_content(self, line: int, end: int) -> int:
        """The first non-blank line from ``line`` on, or ``end + 1``."""
        while line <= end and self.is_blank(line):
            line += 1
        return line

    def _chunk(self, span: Span, start: int, end: int, context: str) -> Chunk:
        unit = None if (start, end) == (span.start, span.end) else (span.start, span.end)
        return Chunk(self.text(start, end), start, end, span.kind, span.symbol, context, unit)

    def fits(self, spans: Sequence[Span]) -> list[bool]:
        chunks = [self._chunk(span, span.start, span.end, span.context) for span in spans]
        return [n <= self.max_tokens for n in self._measure(chunks)]

    def window_end(self, start: int, limit: int) -> int:
        """The last line up to ``limit`` that keeps lines from ``start`` in budget.

        By estimate, which :meth:`fit` verifies; at least ``start``, so that
        callers make progress.
        """
        costs = self._costs(start, limit, self._ratio())
        taken = _take(costs, self._overhead, self.max_tokens * FILL)
        return self._trim_end(start, start + taken - 1)

    def fit(self, spans: Iterable[Span]) -> list[Piece]:
        """Each span as one piece, or as several when it is over budget."""
        spans = list(spans)
        chunks = [self._chunk(span, span.start, span.end, span.context) for span in spans]
        pieces: list[Piece] = []
        for span, chunk, tokens in zip(spans, chunks, self._measure(chunks), strict=True):
            if tokens <= self.max_tokens:
                pieces.append(Piece(chunk, tokens, span.scope))
            else:
                pieces.extend(self._split(span))
        return pieces

    def pack(self, spans: Iterable[Span]) -> list[Chunk]:
        """Fit the spans, then join consecutive short ones of one scope.

        A one-line getter or a lone import says little on its own; merged with
        its neighbours it becomes a useful search result.
        """
        return [piece.chunk for piece in self._join_runs(self.fit(spans), _small_neighbours)]

    def _join_runs(self, pieces: list[Piece], joinable: Joinable) -> list[Piece]:
        """Join runs of consecutive pieces that ``joinable`` pairs, while the join fits.

        A join takes the first piece's kind and context and names every
        symbol it contains.
        """
        groups: list[list[Piece]] = []
        estimate = 0
        for piece in pieces:
            last = groups[-1] if groups else None
            # The join keeps only the first context: the others' costs drop out.
            added = piece.tokens - self._fixed(piece.chunk.context)
            if (
                last is not None
                and joinable(last[-1], piece)
                and estimate + added <= self.max_tokens
            ):
                last.append(piece)
                estimate += added
            else:
                groups.append([piece])
                estimate = piece.tokens
        joined = [self._join(group) if len(group) > 1 else group[0].chunk for group in groups]
        out: list[Piece] = []
        for group, chunk, tokens in zip(groups, joined, self._measure(joined), strict=True):
            if len(group) == 1 or tokens > self.max_tokens:
                out += group
            else:
                out.append(Piece(chunk, tokens, group[0].scope))
        return out

    def _join(self, group: list[Piece]) -> Chunk:
        first, last = group[0].chunk, group[-1].chunk
        symbols = dict.fromkeys(p.chunk.symbol for p in group if p.chunk.symbol)
        start, end = first.start_line, last.end_line
        # Pieces of one split unit joined back stay pieces of it; joined whole
        # neighbours become a unit of their own.
        unit = first.unit if first.unit == last.unit else None
        if unit == (start, end):
            unit = None
        return Chunk(
            self.text(start, end), start, end, first.kind, ", ".join(symbols) or None,
            first.context, unit,
        )

    def _ratio(self) -> float:
        """Tokens per visible character in this file, from the texts counted so far."""
        if not self._seen_chars:
            # Nothing counted yet (one huge span): learn from the file's beginning.
            sample = self.text(1, len(self.lines))[:SAMPLE_CHARS]
            self._seen_tokens += self._count([sample])[0] - self._overhead
            self._seen_chars += _visible(sample)
        return self._seen_tokens / self._seen_chars if self._seen_chars else 1.0

    def _fixed(self, context: str) -> int:
        """Tokens of a piece before its first line: special tokens and its context."""
        if not context:
            return self._overhead
        return self._count([context])[0] + self._newline

    def _costs(self, start: int, end: int, ratio: float) -> list[float]:
        """Estimated tokens that each of lines ``start``..``end`` adds to a piece."""
        return [_visible(line) * ratio + self._newline for line in self.lines[start - 1 : end]]

    def _trim_end(self, start: int, end: int) -> int:
        while end > start and self.is_blank(end):
            end -= 1
        return end

    def _affordable(self, candidates: list[str]) -> str:
        """The first candidate context cheap enough to repeat on every piece."""
        counts = self._count(candidates)
        limit = self.max_tokens // CONTEXT_SHARE
        return next((c for c, n in zip(candidates, counts, strict=True) if n <= limit), "")

    def _split(self, span: Span) -> list[Piece]:
        first = self._affordable([span.context])
        rest = self._affordable([span.continuation or span.context, span.context])
        return self._settle(span, self._plan(span.start, span.end, first, rest), rest)

    def _plan(
        self, start: int, end: int, first: str, rest: str, ratio: float | None = None
    ) -> list[Range]:
        """Pieces of lines ``start``..``end`` of about equal size that fit by estimate.

        Equal pieces, rather than full ones and a small remainder, keep clear
        of the budget's edge, where estimates fail verification.
        """
        costs = self._costs(start, end, self._ratio() if ratio is None else ratio)
        total = self._fixed(first) + sum(costs)
        pieces = max(1, math.ceil(total / (self.max_tokens * FILL)))
        limit = min(self.max_tokens * FILL, total / pieces * BALANCE_SLACK)
        ranges: list[Range] = []
        line = self.next_content(start, end)
        while line <= end:
            context = rest if ranges else first
            taken = _take(costs[line - start :], self._fixed(context), limit)
            last = self._trim_end(line, line + taken - 1)
            ranges.append((line, last, context))
            line = self.next_content(last + 1, end)
        return ranges

    def _settle(self, span: Span, ranges: list[Range], rest: str) -> list[Piece]:
        """Verify planned pieces with real counts; plan the ones over budget again."""
        done: list[Piece] = []
        while ranges:
            chunks = [self._chunk(span, start, end, context) for start, end, context in ranges]
            retry: list[Range] = []
            for (start, end, context), chunk, tokens in zip(
                ranges, chunks, self._measure(chunks), strict=True
            ):
                if tokens <= self.max_tokens:
                    done.append(Piece(chunk, tokens, None))
                elif end > start:
                    retry += self._replan(start, end, context, rest, tokens, chunk.text)
                else:
                    done.extend(self._split_line(span, start, context))
            ranges = retry
        # Where the estimate was too high, pieces came out small: join them.
        done.sort(key=lambda piece: piece.chunk.start_line)
        return self._join_runs(done, _whole_lines)

    def _replan(
        self, start: int, end: int, context: str, rest: str, tokens: int, text: str
    ) -> list[Range]:
        """Plan a piece that failed again, with its own tokens per character.

        With that ratio the piece's estimate is at least its count, over
        budget, so the plan has two pieces or more (every non-blank line has a
        visible character): :meth:`_settle` makes progress and ends.
        """
        ratio = (tokens - self._fixed(context)) / _visible(text)
        return self._plan(start, end, context, rest, ratio)

    def _split_line(self, span: Span, line: int, context: str) -> list[Piece]:
        """Character pieces of one line too long for the budget on its own.

        The pieces all report this line as their range and concatenate back to
        it, so nothing is lost even though none of them is a whole line.
        """
        text = self.lines[line - 1]
        unit = (span.start, span.end)
        done: list[tuple[int, Piece]] = []
        cuts = [(0, len(text))]
        while cuts:
            chunks = [
                Chunk(text[a:b], line, line, span.kind, span.symbol, context, unit)
                for a, b in cuts
            ]
            retry: list[tuple[int, int]] = []
            for (a, b), chunk, tokens in zip(cuts, chunks, self._measure(chunks), strict=True):
                if tokens <= self.max_tokens:
                    if chunk.text.strip():
                        done.append((a, Piece(chunk, tokens, None, whole=False)))
                elif b - a > 1:
                    cut = _cut_point(text, a, b)
                    retry += [(a, cut), (cut, b)]
                else:
                    raise ValueError(
                        f"max_tokens={self.max_tokens} cannot hold one character of line "
                        f"{line} with its context; raise max_tokens"
                    )
            cuts = retry
        return [piece for _, piece in sorted(done, key=lambda item: item[0])]


def _take(costs: list[float], used: float, limit: float) -> int:
    """How many lines, at least one, fit under ``limit`` after ``used`` tokens."""
    taken = 0
    for cost in costs:
        used += cost
        if used > limit and taken:
            break
        taken += 1
    return taken


def _short(piece: Piece) -> bool:
    return piece.chunk.end_line - piece.chunk.start_line + 1 < MERGE_BELOW_LINES


def _small_neighbours(first: Piece, second: Piece) -> bool:
    same_scope = first.scope is not None and first.scope == second.scope
    return same_scope and _short(first) and _short(second)


def _whole_lines(first: Piece, second: Piece) -> bool:
    return first.whole and second.whole


def _cut_point(text: str, start: int, end: int) -> int:
    """Where to halve ``text[start:end]``: after the last space before the middle."""
    middle = (start + end) // 2
    space = text.rfind(" ", start + 1, middle)
    return space + 1 if space > start else middle
