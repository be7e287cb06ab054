"""Pack the best definitions into a token budget, ready to paste into a coding model's prompt.

A hit is a whole definition (see embedstore.chunking.units). It goes in whole when it
fits what is left of the budget. Otherwise its signature goes in with the
piece that matched, a ``…`` line between them, the piece cut only where a
statement ends, so the model never reads half a definition as if it were all.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from embedstore.chunking.types import TokenCounter
from embedstore.retrieval.filters import SearchFilters
from embedstore.retrieval.search import SearchResult, search

if TYPE_CHECKING:
    from embedstore.store.collection import Collection

# Special tokens the encoder's tokenizer adds to every counted text ([CLS], [SEP]);
# a prompt has none of them, so they are taken off each count.
_ENCODER_SPECIAL_TOKENS = 2
ELISION = "…"
# A header longer than this is not a signature worth keeping whole; the first line stands in.
SIGNATURE_MAX_LINES = 20
# Prose has no signature to find: its first line (a heading) stands in.
_PROSE_KINDS = frozenset({"section", "lines"})
_COMMENT_STARTS = ("#", "//", "/*", "*")
_CLOSERS = (")", "]", "}")
# Hits considered when packing a context; the budget usually binds first.
CONTEXT_CANDIDATES = 50


@dataclass
class ContextBlock:
    """Lines of one file from one or more merged hits; a gap between them renders as ``…``.

    A block's lines are never changed once it is made (``union`` makes a new one), so what
    is read from them is kept: packing asks each block its extent many times."""

    path: str
    language: str
    lines: dict[int, str]
    best_rank: int = 0
    # A line that stands for the file's lines after it, up to the one given: a long
    # signature shown as one line (its first line -> its last).
    covers: dict[int, int] = field(default_factory=dict)

    @functools.cached_property
    def start_line(self) -> int:
        return min(self.lines)

    @functools.cached_property
    def end_line(self) -> int:
        return max(self.covers.get(n, n) for n in self.lines)

    @functools.cached_property
    def ranges(self) -> list[tuple[int, int]]:
        """The runs of consecutive lines of the file, in order."""
        runs: list[tuple[int, int]] = []
        for n in sorted(self.lines):
            last = self.covers.get(n, n)
            if runs and runs[-1][1] >= n - 1:
                runs[-1] = (runs[-1][0], max(runs[-1][1], last))
            else:
                runs.append((n, last))
        return runs

    @property
    def body(self) -> str:
        """The lines, an ``…`` line where a run ends."""
        return f"\n{ELISION}\n".join(
            "\n".join(self.lines[n] for n in range(first, last + 1) if n in self.lines)
            for first, last in self.ranges
        )

    @property
    def header(self) -> str:
        """`path:first-last`: where the lines are. The `…` lines mark the gaps, and each
        run's own range would cost a prompt some 4 tokens (blocks' `ranges` keep them)."""
        return f"{self.path}:{self.start_line}-{self.end_line}"

    def render(self) -> str:
        fence = "```"
        return f"{self.header}\n{fence}{self.language}\n{self.body}\n{fence}"

    def touches(self, other: ContextBlock) -> bool:
        """Overlapping or directly adjacent lines of the same file."""
        return (
            other.path == self.path
            and other.start_line <= self.end_line + 1
            and other.end_line >= self.start_line - 1
        )

    def union(self, other: ContextBlock) -> ContextBlock:
        lines, covers = {**self.lines, **other.lines}, {}
        for block, rest in ((self, other), (other, self)):
            for first, last in block.covers.items():
                if any(n in rest.lines for n in range(first + 1, last + 1)):
                    lines[first] = rest.lines.get(first, lines[first])  # shown line by line
                else:
                    covers[first], lines[first] = last, block.lines[first]
        return ContextBlock(self.path, self.language, lines,
                            min(self.best_rank, other.best_rank), covers)


@dataclass(frozen=True)
class RagContext:
    query: str
    text: str
    tokens: int
    max_tokens: int
    blocks: list[ContextBlock]


def unit_lines(hit: SearchResult) -> dict[int, str]:
    """The hit's whole definition, by line number."""
    return {hit.start_line + i: line for i, line in enumerate(hit.text.split("\n"))}


def signature_end(hit: SearchResult, lines: dict[int, str]) -> int:
    """The last line of the definition's header: decorators and a multi-line ``def`` included.

    That is the first line ending with ``:`` or ``{`` (comments aside); without
    one near the top, or for prose, the first line alone.
    """
    if hit.kind in _PROSE_KINDS:
        return hit.start_line
    last = min(hit.end_line, hit.start_line + SIGNATURE_MAX_LINES - 1)
    for n in range(hit.start_line, last + 1):
        code = lines[n].strip()
        if code.endswith((":", "{")) and not code.startswith(_COMMENT_STARTS):
            return n
    return hit.start_line


def statement_ends(lines: dict[int, str], first: int, last: int) -> list[int]:
    """Lines that ``first..`` may stop at without leaving a statement open, ascending.

    A cut is clean when the next non-blank line is indented no deeper than the
    piece's first line and does not close a bracket: whatever the piece opened
    is then closed. ``last``, where the chunker itself cut, is always clean.
    """
    code = [n for n in range(first, last + 1) if lines[n].strip()]
    if not code:
        return [last]
    base = _indent(lines[code[0]])
    ends = [
        n for n, following in itertools.pairwise(code)
        if _indent(lines[following]) <= base
        and not lines[following].lstrip().startswith(_CLOSERS)
    ]
    return [*ends, last]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def excerpts(hit: SearchResult, rank: int) -> list[ContextBlock]:
    """Signature + ever longer clean prefixes of the matched piece, shortest first."""
    lines = unit_lines(hit)
    head = signature_end(hit, lines)
    signature = {n: lines[n] for n in range(hit.start_line, head + 1)}
    first = max(hit.match_start_line, head + 1)  # the signature is there already
    if first > hit.match_end_line:
        return [ContextBlock(hit.path, hit.language, signature, rank)]
    return [
        ContextBlock(
            hit.path, hit.language,
            {**signature, **{n: lines[n] for n in range(first, end + 1)}}, rank,
        )
        for end in statement_ends(lines, first, hit.match_end_line)
    ]


def with_block(blocks: Sequence[ContextBlock], new: ContextBlock) -> list[ContextBlock]:
    """``blocks`` plus ``new``, merged with every block it touches, directly or in a chain."""
    merged, rest = new, list(blocks)
    while (hit := next((b for b in rest if b.touches(merged)), None)) is not None:
        rest.remove(hit)
        merged = merged.union(hit)
    return [*rest, merged]


def render(blocks: Sequence[ContextBlock]) -> str:
    return "\n\n".join(b.render() for b in sorted(blocks, key=lambda b: b.best_rank))


# Counts of texts by counter, kept between answers: the lines of a collection's definitions
# recur from one answer to the next. A counter's table starts again past this many texts
# (some 20 MiB).
MAX_COUNTED_TEXTS = 200_000
_COUNTED: weakref.WeakKeyDictionary[TokenCounter, dict[str, int]] = weakref.WeakKeyDictionary()


class _Costs:
    """Blocks' token costs as the sum of their parts' counts, each distinct text counted once.

    A block renders as a header line, a fence, its lines with an ``…`` line between runs,
    and a fence; tokenizers that split at line breaks first (BERT's WordPiece,
    SentencePiece's Metaspace) count the whole as the sum of those lines, and for the rest
    it is close: :func:`pack_context` checks the sum with one count of the rendered whole.
    Counts are kept between answers, by counter.
    """

    def __init__(self, count: TokenCounter) -> None:
        self.count = count
        known = _COUNTED.get(count)
        if known is None or len(known) > MAX_COUNTED_TEXTS:
            # A new table, not a cleared one: another answer may be reading the old.
            known = _COUNTED[count] = {}
        self.known = known

    def learn(self, texts: Iterable[str]) -> None:
        """Count the texts not counted yet, in one call."""
        new = [t for t in texts if t not in self.known]
        if new:
            new = list(dict.fromkeys(new))
            self.known.update(zip(new, self.count(new), strict=True))

    def of(self, block: ContextBlock) -> int:
        parts = (block.header, f"```{block.language}", "```", ELISION)
        self.learn(parts)
        head, fence, close, elision = (self.known[p] for p in parts)
        return (head + fence + close + elision * (len(block.ranges) - 1)
                + sum(self.known[line] for line in block.lines.values()))

    def merged(self, blocks: list[ContextBlock], part: ContextBlock) -> list[ContextBlock]:
        """``blocks`` with ``part`` merged in, the merged block's header counted."""
        after = with_block(blocks, part)
        self.learn([after[-1].header])
        return after

    def total(self, blocks: list[ContextBlock], used: int, after: list[ContextBlock]) -> int:
        """What ``after`` (``blocks``, costing ``used``, with one block merged in) costs:
        only the blocks that changed are counted again, so packing stays linear."""
        kept = {id(b) for b in after[:-1]}
        return used - sum(self.of(b) for b in blocks if id(b) not in kept) + self.of(after[-1])


def pack_context(
    query: str, hits: Sequence[SearchResult], max_tokens: int, count_tokens: TokenCounter
) -> RagContext:
    """Greedily add hits in rank order while the rendered context fits ``max_tokens``.

    Each hit goes in as its whole definition when that fits what is left, else
    as its signature and the longest clean prefix of its matched piece that
    fits, else not at all (smaller later hits still get their chance). A hit
    overlapping or adjoining a block already taken from the same file is
    merged into it, so no line appears twice. Each line is counted once (see
    ``_Costs``); the rendered whole is counted at the end, and the last hits
    taken are given back while it runs over.
    """
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be at least 1, got {max_tokens}")
    costs = _Costs(count_tokens)
    costs.learn(line for hit in hits for line in hit.text.split("\n"))
    blocks: list[ContextBlock] = []
    used = 0
    taken: list[tuple[list[ContextBlock], int]] = [(blocks, used)]  # after each hit taken
    for rank, hit in enumerate(hits):
        whole = costs.merged(blocks, ContextBlock(hit.path, hit.language, unit_lines(hit), rank))
        cost = costs.total(blocks, used, whole)
        if cost > max_tokens:
            fitting = _longest_fitting(costs, blocks, used, excerpts(hit, rank), max_tokens)
            if fitting is None:
                continue
            whole, cost = fitting
        blocks, used = whole, cost
        taken.append((blocks, used))
    while True:
        blocks, used = taken[-1]
        ordered = sorted(blocks, key=lambda b: b.best_rank)
        text = render(ordered)
        tokens = count_tokens([text])[0] if ordered else 0
        if tokens <= max_tokens or len(taken) == 1:
            return RagContext(query, text, tokens, max_tokens, ordered)
        # The sum ran over: give back hits until it is under by as much as it was wrong.
        error = tokens - used
        taken.pop()
        while len(taken) > 1 and taken[-1][1] + error > max_tokens:
            taken.pop()


def _longest_fitting(
    costs: _Costs, blocks: list[ContextBlock], used: int, parts: Sequence[ContextBlock],
    max_tokens: int,
) -> tuple[list[ContextBlock], int] | None:
    """``blocks`` (costing ``used``) with the longest of ``parts`` that keeps the whole
    within ``max_tokens``, and its cost; None when even the first does not fit.

    Longer parts cost more, so those that fit are a prefix of the list: a binary search
    merges only the few it tries (merging every one cost a third of an answer's time)."""
    tried: dict[int, tuple[list[ContextBlock], int]] = {}

    def over(i: int) -> bool:
        after = costs.merged(blocks, parts[i])
        tried[i] = after, costs.total(blocks, used, after)
        return tried[i][1] > max_tokens

    fitting = bisect.bisect_left(range(len(parts)), True, key=over)
    if not fitting:
        return None
    if fitting - 1 not in tried:
        over(fitting - 1)
    return tried[fitting - 1]


def context(
    collection: Collection,
    query: str,
    max_tokens: int = 2000,
    *,
    mode: str = "hybrid",
    filters: SearchFilters | None = None,
    nprobe: int | None = None,
    count_tokens: TokenCounter | None = None,
) -> RagContext:
    """The best units for ``query`` packed into ``max_tokens`` for a prompt.

    ``count_tokens`` counts the target model's tokens (see retrieval.tokenizers);
    default: the encoder's tokenizer.
    """
    hits = search(collection, query, CONTEXT_CANDIDATES, mode=mode, filters=filters, nprobe=nprobe)
    count = count_tokens or encoder_prompt_counter(collection)
    return pack_context(query, hits, max_tokens, count)


def encoder_prompt_counter(collection: Collection) -> TokenCounter:
    """Prompt tokens by the collection's encoder tokenizer, its special tokens taken off; the
    same counter each time, so that its counts are kept between answers (``_Costs``)."""
    if (known := _PROMPT_COUNTERS.get(collection)) is not None:
        return known
    encoder_count = collection.query_encoder.count_tokens

    def count(texts: list[str]) -> list[int]:
        return [max(0, n - _ENCODER_SPECIAL_TOKENS) for n in encoder_count(texts)]

    _PROMPT_COUNTERS[collection] = count
    return count


_PROMPT_COUNTERS: weakref.WeakKeyDictionary[Collection, TokenCounter] = (
    weakref.WeakKeyDictionary()
)
