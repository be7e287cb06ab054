"""Pack the best chunks into a token budget, ready to paste into a coding model's prompt."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from embedstore.chunking.types import TokenCounter
from embedstore.search import SearchResult

# Special tokens the encoder's tokenizer adds to every counted text ([CLS], [SEP]);
# a prompt has none of them, so they are taken off each count.
_COUNTER_OVERHEAD = 2


@dataclass
class ContextBlock:
    """Consecutive lines of one file, made of one or more merged hits."""

    path: str
    language: str
    start_line: int
    end_line: int
    lines: dict[int, str] = field(default_factory=dict)
    best_rank: int = 0

    def render(self) -> str:
        body = "\n".join(self.lines[n] for n in range(self.start_line, self.end_line + 1))
        fence = "```"
        header = f"{self.path}:{self.start_line}-{self.end_line}"
        return f"{header}\n{fence}{self.language}\n{body}\n{fence}"

    def touches(self, other: ContextBlock) -> bool:
        """Overlapping or directly adjacent lines of the same file."""
        return (
            other.path == self.path
            and other.start_line <= self.end_line + 1
            and other.end_line >= self.start_line - 1
        )

    def union(self, other: ContextBlock) -> ContextBlock:
        return ContextBlock(
            self.path, self.language, min(self.start_line, other.start_line),
            max(self.end_line, other.end_line), {**self.lines, **other.lines},
            min(self.best_rank, other.best_rank),
        )


@dataclass(frozen=True)
class RagContext:
    query: str
    text: str
    tokens: int
    max_tokens: int
    blocks: list[ContextBlock]


def _block_of(hit: SearchResult, rank: int) -> ContextBlock:
    lines = {hit.start_line + i: line for i, line in enumerate(hit.text.split("\n"))}
    return ContextBlock(hit.path, hit.language, hit.start_line, hit.end_line, lines, rank)


def with_block(blocks: Sequence[ContextBlock], new: ContextBlock) -> list[ContextBlock]:
    """``blocks`` plus ``new``, merged with every block it touches, directly or in a chain."""
    merged, rest = new, list(blocks)
    while (hit := next((b for b in rest if b.touches(merged)), None)) is not None:
        rest.remove(hit)
        merged = merged.union(hit)
    return [*rest, merged]


def render(blocks: Sequence[ContextBlock]) -> str:
    return "\n\n".join(b.render() for b in sorted(blocks, key=lambda b: b.best_rank))


def pack_context(
    query: str, hits: Sequence[SearchResult], max_tokens: int, count_tokens: TokenCounter
) -> RagContext:
    """Greedily add hits in rank order while the rendered context fits ``max_tokens``.

    A hit overlapping or adjoining a block already taken from the same file is
    merged into it (no line appears twice); a hit that would overflow the
    budget is skipped and smaller later ones still get their chance.
    """
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be at least 1, got {max_tokens}")

    def cost(blocks: Sequence[ContextBlock]) -> int:
        return count_tokens([render(blocks)])[0] - _COUNTER_OVERHEAD if blocks else 0

    blocks: list[ContextBlock] = []
    for rank, hit in enumerate(hits):
        trial = with_block(blocks, _block_of(hit, rank))
        if cost(trial) <= max_tokens:
            blocks = trial
    ordered = sorted(blocks, key=lambda b: b.best_rank)
    return RagContext(query, render(ordered), cost(ordered), max_tokens, ordered)
