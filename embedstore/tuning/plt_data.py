"""Distillation data from the user's own corpus: chunks, and (docstring, code) pairs.

Chunks come from the same walker and chunker as indexing, in the same
budget, so the student learns on texts shaped like the ones it will encode.
Pairs are mined as the evaluation mines its queries: a function's first
docstring sentence, and the function with that docstring removed.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from embedstore.chunking import chunk_file
from embedstore.chunking.types import Chunk, TokenCounter
from embedstore.evaluation.dataset import strip_docstrings
from embedstore.ingest.sources import SourceFile, walk_sources
from embedstore.progress import NullProgress, Progress

# (relative path, chunk) -> the text the encoder sees; indexing's embedding_text.
EmbeddingText = Callable[[str, Chunk], str]
T = TypeVar("T")


@dataclass(frozen=True)
class TrainingCorpus:
    """Texts to distil on; ``pairs`` index into ``texts`` as (query, code)."""

    texts: list[str]
    pairs: list[tuple[int, int]]

    @property
    def chunk_count(self) -> int:
        return len(self.texts) - 2 * len(self.pairs)


def build_training_corpus(
    root: Path,
    *,
    count_tokens: TokenCounter,
    max_tokens: int,
    text_of: EmbeddingText,
    max_chunks: int | None = None,
    max_pairs: int | None = None,
    seed: int = 0,
    progress: Progress | None = None,
) -> TrainingCorpus:
    """Chunks and pairs of every file under ``root``, sampled (seeded) to the caps."""
    ui = progress or NullProgress()
    sources = list(walk_sources(root))
    chunks: list[str] = []
    pairs: list[tuple[str, str]] = []
    ui.start("chunk", len(sources))
    for source in sources:
        chunks.extend(_file_chunks(source, count_tokens, max_tokens, text_of))
        if source.language == "python":
            pairs.extend(_file_pairs(source, text_of))
        ui.advance("chunk")
    ui.finish("chunk")
    rng = random.Random(seed)
    chunks = _sample(rng, chunks, max_chunks)
    pairs = _sample(rng, pairs, max_pairs)
    texts = chunks + [query for query, _ in pairs] + [code for _, code in pairs]
    first_query, first_code = len(chunks), len(chunks) + len(pairs)
    return TrainingCorpus(
        texts, [(first_query + i, first_code + i) for i in range(len(pairs))]
    )


def _sample(rng: random.Random, items: list[T], cap: int | None) -> list[T]:
    return items if cap is None or len(items) <= cap else rng.sample(items, cap)


def _file_chunks(
    source: SourceFile, count_tokens: TokenCounter, max_tokens: int, text_of: EmbeddingText
) -> list[str]:
    # As indexing does: the path heads every text, so the chunks get what it leaves.
    budget = max_tokens - count_tokens([source.rel_path])[0]
    try:
        chunks = chunk_file(
            source.text, source.language, max_tokens=budget, count_tokens=count_tokens
        )
    except ValueError:  # a path so long that no budget is left: skip the file
        return []
    return [text_of(source.rel_path, chunk) for chunk in chunks]


def _file_pairs(source: SourceFile, text_of: EmbeddingText) -> list[tuple[str, str]]:
    stripped, queries = strip_docstrings(source.text, source.rel_path)
    lines = stripped.split("\n")
    return [
        (
            q.query,
            text_of(
                source.rel_path,
                Chunk(
                    "\n".join(lines[q.start_line - 1 : q.end_line]),
                    q.start_line, q.end_line, "function", q.symbol,
                ),
            ),
        )
        for q in queries
    ]
