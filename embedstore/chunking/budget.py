"""Fitting candidate spans of a file into the encoder's token budget.

Every chunker proposes :class:`Span` s (line ranges with their metadata); this
module is the one place that measures them, splits the ones over budget into
line pieces (or, for a single over-long line, character pieces) and merges tiny
neighbours. Token counting is memoised and always batched, because the real
counter is a HuggingFace tokenizer whose per-call overhead dominates when it is
called once per line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
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
# Runs that no common tokenizer merges into one token with their neighbours.
_LEXICAL_RUN = re.compile(r"\w+|[^\w\s]+")


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
    """A chunk known to fit, with its token count; ``scope`` None never merges."""

    chunk: Chunk
    tokens: int
    scope: int | None


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
        self._overhead, newline = self.count(["", "\n"])
        # What joining one more line costs beyond its own tokens.
        self._newline = max(0, newline - self._overhead)

    def count(self, texts: Sequence[str]) -> list[int]:
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

    def measure(self, chunks: Sequence[Chunk]) -> list[int]:
        """Token counts of the chunks' bodies, where only fitting ones must be exact.

        A body over budget by :meth:`_lower_bound` is not tokenized: big
        classes and functions are not tokenized whole just to learn that they
        must be split. Its result is that bound, which exceeds ``max_tokens``.
        """
        bodies = [chunk_body(chunk) for chunk in chunks]
        bounds = [self._memo.get(body) or self._lower_bound(body) for body in bodies]
        fitting = [body for body, n in zip(bodies, bounds, strict=True) if n <= self.max_tokens]
        exact = iter(self.count(fitting))
        return [next(exact) if n <= self.max_tokens else n for n in bounds]

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

    def chunk(self, span: Span, start: int, end: int, context: str) -> Chunk:
        return Chunk(self.text(start, end), start, end, span.kind, span.symbol, context)

    def fits(self, spans: Sequence[Span]) -> list[bool]:
        chunks = [self.chunk(span, span.start, span.end, span.context) for span in spans]
        return [n <= self.max_tokens for n in self.measure(chunks)]

    def greedy_end(self, start: int, limit: int, context: str = "") -> int:
        """The last line up to ``limit`` that, by the sum of line counts, still fits.

        An estimate (a tokenizer may merge across line breaks); :meth:`fit`
        verifies it. Always at least ``start`` so that callers make progress.
        """
        costs = self.count(self.lines[start - 1 : limit])
        used = self._overhead + (self._extra(context) if context else 0)
        end = start
        for line, cost in enumerate(costs, start):
            used += self._extra(self.lines[line - 1], cost)
            if used > self.max_tokens and line > start:
                break
            end = line
        return self._trim_end(start, end)

    def fit(self, spans: Iterable[Span]) -> list[Piece]:
        """Each span as one piece, or as several when it is over budget."""
        spans = list(spans)
        chunks = [self.chunk(span, span.start, span.end, span.context) for span in spans]
        counts = self.measure(chunks)
        pieces: list[Piece] = []
        for span, chunk, tokens in zip(spans, chunks, counts, strict=True):
            if tokens <= self.max_tokens:
                pieces.append(Piece(chunk, tokens, span.scope))
            else:
                pieces.extend(self._split(span))
        return pieces

    def pack(self, spans: Iterable[Span]) -> list[Chunk]:
        """Fit the spans, then merge runs of tiny neighbours."""
        return self.merge(self.fit(spans))

    def merge(self, pieces: list[Piece]) -> list[Chunk]:
        """Join consecutive short pieces of one scope while the join fits.

        A one-line getter or a lone import says little on its own; merged with
        its neighbours it becomes a useful search result. The join takes the
        first piece's kind and context and names every symbol it contains.
        """
        groups: list[list[Piece]] = []
        estimate = 0
        for piece in pieces:
            last = groups[-1] if groups else None
            joinable = (
                last is not None
                and _short(last[-1])
                and _short(piece)
                and piece.scope == last[-1].scope
                and estimate + piece.tokens - self._overhead <= self.max_tokens
            )
            if last is not None and joinable:
                last.append(piece)
                estimate += piece.tokens - self._overhead
            else:
                groups.append([piece])
                estimate = piece.tokens
        joined = [self._join(group) if len(group) > 1 else group[0].chunk for group in groups]
        counts = self.measure(joined)
        chunks: list[Chunk] = []
        for group, chunk, tokens in zip(groups, joined, counts, strict=True):
            if len(group) == 1 or tokens > self.max_tokens:
                chunks.extend(piece.chunk for piece in group)
            else:
                chunks.append(chunk)
        return chunks

    def _join(self, group: list[Piece]) -> Chunk:
        first, last = group[0].chunk, group[-1].chunk
        symbols = dict.fromkeys(p.chunk.symbol for p in group if p.chunk.symbol)
        return Chunk(
            self.text(first.start_line, last.end_line),
            first.start_line,
            last.end_line,
            first.kind,
            ", ".join(symbols) or None,
            first.context,
        )

    def _lower_bound(self, text: str) -> int:
        """At most the token count of ``text``, computed without the tokenizer.

        Tokenizers give every whitespace-separated word, and within it every
        run of word characters and every run of punctuation, at least one
        token (WordPiece, byte-level BPE). Words are cheaper to count, so they
        settle the long texts first.
        """
        bound = len(text.split()) + self._overhead
        if bound > self.max_tokens:
            return bound
        return len(_LEXICAL_RUN.findall(text)) + self._overhead

    def _extra(self, text: str, tokens: int | None = None) -> int:
        """Tokens ``text`` adds when joined to others: its own, less the specials."""
        own = self.count([text])[0] if tokens is None else tokens
        return own - self._overhead + self._newline

    def _trim_end(self, start: int, end: int) -> int:
        while end > start and self.is_blank(end):
            end -= 1
        return end

    def _affordable(self, candidates: list[str]) -> str:
        """The first candidate context cheap enough to repeat on every piece."""
        counts = self.count(candidates)
        limit = self.max_tokens // CONTEXT_SHARE
        return next((c for c, n in zip(candidates, counts, strict=True) if n <= limit), "")

    def _split(self, span: Span) -> list[Piece]:
        first_context = self._affordable([span.context])
        rest_context = self._affordable([span.continuation or span.context, span.context])
        ranges: list[tuple[int, int, str]] = []
        line = self.next_content(span.start, span.end)
        while line <= span.end:
            context = rest_context if ranges else first_context
            end = self.greedy_end(line, span.end, context)
            ranges.append((line, end, context))
            line = self.next_content(end + 1, span.end)
        return self._settle(span, ranges, rest_context)

    def _settle(
        self, span: Span, ranges: list[tuple[int, int, str]], rest_context: str
    ) -> list[Piece]:
        """Verify estimated pieces with real counts; halve the ones still over."""
        done: list[Piece] = []
        while ranges:
            chunks = [self.chunk(span, start, end, context) for start, end, context in ranges]
            counts = self.measure(chunks)
            retry: list[tuple[int, int, str]] = []
            for (start, end, context), chunk, tokens in zip(ranges, chunks, counts, strict=True):
                if tokens <= self.max_tokens:
                    done.append(Piece(chunk, tokens, None))
                elif end > start:
                    middle = self._trim_end(start, (start + end) // 2)
                    retry.append((start, middle, context))
                    second = self.next_content(middle + 1, end)
                    if second <= end:
                        retry.append((second, end, rest_context))
                else:
                    done.extend(self._split_line(span, start, context))
            ranges = retry
        return sorted(done, key=lambda piece: piece.chunk.start_line)

    def _split_line(self, span: Span, line: int, context: str) -> list[Piece]:
        """Character pieces of one line too long for the budget on its own.

        The pieces all report this line as their range and concatenate back to
        it, so nothing is lost even though none of them is a whole line.
        """
        text = self.lines[line - 1]
        done: list[tuple[int, Piece]] = []
        cuts = [(0, len(text))]
        while cuts:
            chunks = [
                Chunk(text[a:b], line, line, span.kind, span.symbol, context) for a, b in cuts
            ]
            counts = self.measure(chunks)
            retry: list[tuple[int, int]] = []
            for (a, b), chunk, tokens in zip(cuts, chunks, counts, strict=True):
                if tokens <= self.max_tokens:
                    if chunk.text.strip():
                        done.append((a, Piece(chunk, tokens, None)))
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


def _short(piece: Piece) -> bool:
    chunk = piece.chunk
    return piece.scope is not None and chunk.end_line - chunk.start_line + 1 < MERGE_BELOW_LINES


def _cut_point(text: str, start: int, end: int) -> int:
    """Where to halve ``text[start:end]``: after the last space before the middle."""
    middle = (start + end) // 2
    space = text.rfind(" ", start + 1, middle)
    return space + 1 if space > start else middle
