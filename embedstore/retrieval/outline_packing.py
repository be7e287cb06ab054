"""Packing code-at-cursor's ranked candidates into a token budget.

A compact outline (signature and first docstring line) of many candidates comes first,
a class's with its members' signatures, then whole bodies of the best while the budget
lasts. Lines are counted once each and summed; one count of the rendered whole checks the
sum at the end (:meth:`_Packer.fit`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from embedstore.chunking.types import TokenCounter
from embedstore.retrieval.candidate_ranker import Candidate
from embedstore.retrieval.collection_view import (
    TokenCosts,
    file_lines,
    long_signatures,
    owner_header,
    shown_lines,
    signature_comments,
    signature_start,
)
from embedstore.retrieval.context import ContextBlock, RagContext, render
from embedstore.store.collection import Collection
from embedstore.store.symbol_table import DefinitionRow

# The outline of many candidates takes at most this share before bodies are added.
OUTLINE_SHARE = 0.9
# The best candidates' outlines carry their docstring's first line, one per this many
# tokens of budget and at most MAX_DOCUMENTED; the wider set past them is signatures
# alone, twice as many in the same tokens (what a small budget needs most).
TOKENS_PER_DOCUMENTED = 64
MAX_DOCUMENTED = 30
# At most this many member signatures in one class's outline; and the members of the
# candidate ranked r take at most 1/(r + 2)^2 of the budget (a quarter, a ninth, ...):
# all members together never take more than 0.65 of it (pi^2/6 - 1), so classes of sixty
# methods cannot crowd out the wide set. (1/(r + 2), a series without a bound: stdlib
# -1.5 points, train-set packages -2.7.)
MAX_MEMBERS = 100
# Lines a docstring's first sentence may start below the signature.
DOC_LOOKAHEAD = 2
# Candidates packing looks at: outlines of the first, bodies of the very first. Past them
# a 4,096-token budget is full on every corpus measured.
MAX_OUTLINED = 150
MAX_BODIES = 30
# No tokenizer packs code denser than this: a longer text surely costs more tokens.
MAX_CHARS_PER_TOKEN = 8
# Below this much budget left, no outline fits any more.
MIN_PIECE_TOKENS = 8
# A block's second run costs about this much: its `…` line.
RUN_TOKENS = 1


def pack(
    collection: Collection,
    code: str,
    ranked: list[Candidate],
    max_tokens: int,
    count: TokenCounter,
    costs: TokenCosts,
) -> RagContext:
    packer = _Packer(collection, count, costs)
    documented = min(MAX_DOCUMENTED, max_tokens // TOKENS_PER_DOCUMENTED)
    parts = [(c.row, _outline(collection, c, with_doc=rank < documented))
             for rank, c in enumerate(ranked[:MAX_OUTLINED])]
    # One tokenizer call per phase, not one per candidate.
    packer.prefetch([(row, [n for part in pieces for n in part]) for row, pieces in parts])
    outlines = [(row, packer.first_within(row.path, pieces, max_tokens // (rank + 2) ** 2))
                for rank, (row, pieces) in enumerate(parts)]
    bodies = [(c.row, owner_header(collection, c.row)
               + list(range(c.row.start_line, c.row.end_line + 1)))
              for c in ranked[:MAX_BODIES] if c.row.kind != "class"]
    outline_limit = int(max_tokens * OUTLINE_SHARE)
    outlined = 0
    # Outlines first, until they hold their share (the one that crosses it may finish).
    for rank, (row, lines) in enumerate(outlines):
        if packer.used >= outline_limit:
            break
        packer.add(row, lines, rank, max_tokens)
        outlined = rank + 1
    # Then whole bodies, best first (a class is its outline; its methods come on their own).
    # Bodies far longer than the budget left are not even counted.
    left = max_tokens - packer.used
    bodies = [(row, lines) for row, lines in bodies
              if _characters(collection, row.path, lines) <= left * MAX_CHARS_PER_TOKEN]
    packer.prefetch(bodies)
    for rank, (row, lines) in enumerate(bodies):
        packer.add(row, lines, rank, max_tokens)
    for rank, (row, lines) in enumerate(outlines[outlined:], start=outlined):
        if packer.used >= max_tokens - MIN_PIECE_TOKENS:
            break
        packer.add(row, lines, rank, max_tokens)
    ordered, text, tokens = packer.fit(max_tokens)
    return RagContext(code[-200:], text, tokens, max_tokens, ordered)


@dataclass
class _Packer:
    """Blocks of lines by file within a budget, their costs kept up to date line by line.

    Counting each line once and summing keeps packing linear in what it reads; the
    sum is checked against one count of the rendered whole at the end (see ``fit``).
    """

    collection: Collection
    count: TokenCounter
    known: TokenCosts
    blocks: dict[str, ContextBlock] = field(default_factory=dict)
    used: int = 0
    costs: dict[str, int] = field(default_factory=dict)
    # What each accepted piece replaced, to undo the last ones if the whole runs over.
    history: list[tuple[str, ContextBlock | None]] = field(default_factory=list)

    def add(self, row: DefinitionRow, lines: Iterable[int], rank: int, limit: int) -> bool:
        """Add ``lines`` of ``row``'s file if the total stays within ``limit``."""
        text = shown_lines(self.collection, row.path)
        block = self.blocks.get(row.path)
        have = _numbers(block) if block else set()
        new = [n for n in dict.fromkeys(lines) if n in text and n not in have]
        if not new:
            return False
        self._count_lines(row.path, text, new)
        merged = self._block(row, have.union(new), min(rank, block.best_rank) if block else rank)
        cost = self._cost(merged)
        if self.used - self.costs.get(row.path, 0) + cost > limit:
            return False
        self.history.append((row.path, block))
        self._put(row.path, merged, cost)
        return True

    def fit(self, max_tokens: int) -> tuple[list[ContextBlock], str, int]:
        """The blocks in rank order, their text and its exact count, within ``max_tokens``."""
        while True:
            ordered = sorted(self.blocks.values(), key=lambda b: b.best_rank)
            text = render(ordered)
            tokens = self.count([text])[0] if text else 0
            if tokens <= max_tokens or not self.history:
                return ordered, text, tokens
            # The estimate ran over: undo the last pieces until it is under by as much as it
            # was wrong, so that one more count (not one per piece) usually settles it.
            error = tokens - self.used
            while self.history and self.used + error > max_tokens:
                path, before = self.history.pop()
                if before is None:
                    self.used -= self.costs.pop(path)
                    del self.blocks[path]
                else:
                    self._put(path, before, self._cost(before))

    def _block(self, row: DefinitionRow, numbers: set[int], rank: int) -> ContextBlock:
        """The file's lines ``numbers`` as a block, each long signature they hold whole
        joined into one line (the lines it stands for are covered, not shown again)."""
        text = shown_lines(self.collection, row.path)
        lines = {n: text[n] for n in sorted(numbers)}
        covers: dict[int, int] = {}
        long = long_signatures(self.collection, row.path)
        comments = signature_comments(self.collection, row.path) if long else frozenset()
        for first, last in long.items():
            code = [n for n in range(first, last + 1) if n not in comments]
            if all(n in lines for n in code):
                joined = _joined([lines[n] for n in code])
                for n in range(first + 1, last + 1):
                    lines.pop(n, None)
                lines[first] = joined
                covers[first] = last
        return ContextBlock(row.path, row.language, lines, rank, covers)

    def _put(self, path: str, block: ContextBlock, cost: int) -> None:
        self.used += cost - self.costs.get(path, 0)
        self.blocks[path], self.costs[path] = block, cost

    def prefetch(self, pieces: list[tuple[DefinitionRow, list[int]]]) -> None:
        """Count the lines of ``pieces`` in one call."""
        todo: dict[tuple[str, int], str] = {}
        headers: dict[str, str] = {}
        for row, lines in pieces:
            text = shown_lines(self.collection, row.path)
            if row.path not in self.known.headers:
                headers[row.path] = _empty_block(row)
            for n in lines:
                if n in text and (row.path, n) not in self.known.lines:
                    todo[(row.path, n)] = text[n]
        counted = self.count([*todo.values(), *headers.values()])
        self.known.lines.update(zip(todo, counted, strict=False))
        self.known.headers.update(zip(headers, counted[len(todo):], strict=True))

    def first_within(self, path: str, pieces: list[list[int]], cap: int) -> list[int]:
        """The lines of the first piece and of as many next ones as keep to ``cap`` tokens
        (lines already counted)."""
        lines, spent = list(pieces[0]), 0
        for piece in pieces[1:]:
            spent += sum(self.known.lines.get((path, n), 0) for n in piece)
            if spent > cap:
                break
            lines.extend(piece)
        return lines

    def _count_lines(self, path: str, text: dict[int, str], numbers: list[int]) -> None:
        todo = [n for n in numbers if (path, n) not in self.known.lines]
        for n, tokens in zip(todo, self.count([text[n] for n in todo]), strict=True):
            self.known.lines[(path, n)] = tokens

    def _cost(self, block: ContextBlock) -> int:
        if block.path not in self.known.headers:
            self.known.headers[block.path] = self.count([_empty_block(block)])[0]
        runs = len(block.ranges)
        lines = sum(self.known.lines[(block.path, n)] for n in block.lines if n not in block.covers)
        joined = [(block.path, n) for n in block.covers if (block.path, n) not in self.known.joined]
        if joined:
            counted = self.count([block.lines[n] for _, n in joined])
            self.known.joined.update(zip(joined, counted, strict=True))
        lines += sum(self.known.joined[(block.path, n)] for n in block.covers)
        return self.known.headers[block.path] + lines + RUN_TOKENS * (runs - 1) + 1


def _numbers(block: ContextBlock) -> set[int]:
    """The file's lines a block shows, those a joined signature stands for included."""
    return set(block.lines).union(
        *(range(first + 1, last + 1) for first, last in block.covers.items()))


def _joined(lines: list[str]) -> str:
    """A signature's lines as one: `def f(a, b) -> T:` for `def f(`, `    a,`, `    b,`,
    `) -> T:` (a comma before the closing bracket dropped)."""
    out = lines[0].rstrip()
    for line in lines[1:]:
        part = line.strip()
        if not part:
            continue
        if part.startswith((")", "]", "}", ">")):
            out = out.rstrip(",")
        elif not out.endswith(("(", "[", "{", "<")):
            out += " "
        out += part
    return out


def _characters(collection: Collection, path: str, lines: list[int]) -> int:
    text = shown_lines(collection, path)
    return sum(len(text.get(n, "")) + 1 for n in lines)


def _empty_block(of: DefinitionRow | ContextBlock) -> str:
    """A block's header and fences alone: what every block costs besides its lines."""
    return ContextBlock(of.path, of.language, {1: ""}).render()


def _outline(collection: Collection, cand: Candidate, *, with_doc: bool) -> list[list[int]]:
    """Signature lines and the first docstring line, after the class header of a member (a
    lone `path: str` says nothing of whose it is); a class adds its members' signatures,
    one piece each."""
    pieces = [owner_header(collection, cand.row) + _signature(collection, cand.row,
                                                              with_doc=with_doc)]
    pieces.extend(_signature(collection, member, with_doc=False)
                  for member in cand.members[:MAX_MEMBERS])
    return pieces


def _signature(collection: Collection, row: DefinitionRow, *, with_doc: bool) -> list[int]:
    """The signature's lines and the docstring's first line; from the line naming the
    definition where the language's annotations say little (a third of a Rust crate's
    member lines are `#[inline]`, `#[must_use]`...)."""
    first = signature_start(collection, row)
    lines = list(range(first, max(row.signature_end_line, first) + 1))
    if len(lines) > 2:  # a comment line stands between two others
        comments = signature_comments(collection, row.path)
        lines = [n for n in lines if n not in comments]
    if row.doc and with_doc:
        text = file_lines(collection, row.path)
        probe = row.doc[:20]
        below = range(row.signature_end_line + 1,
                      min(row.signature_end_line + DOC_LOOKAHEAD, row.end_line) + 1)
        # Only a docstring below the signature (Python's); a doc comment above it (Rust's,
        # Go's...) is not there, and the lines below are the body's.
        found = next((n for n in below if probe in text.get(n, "")), None)
        if found is not None:
            lines.extend(range(below.start, found + 1))
    return lines
