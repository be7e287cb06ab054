"""Training pairs mined from a repository: a doc's first sentence -> its definition.

The same pairs `embedstore eval` scores, turned into training data: the query
is the first sentence of a Python docstring or of a doc comment in another
mined language (JSDoc, rustdoc, Go doc), the positive the definition's code
with that doc removed, embedded exactly as the indexer embeds it (path and
context header included; a class over budget as its outline, a long function
as its first chunk). A method's docstring pairs with the method, the innermost
unit around its line, never with the class outline around it. A fifth of the
files, picked by a hash of their path, is held out: never trained on, only
scored.
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from embedstore.chunking import chunk_file
from embedstore.chunking.types import TokenCounter
from embedstore.chunking.units import group_units
from embedstore.evaluation.dataset import MINED_LANGUAGES, strip_docs
from embedstore.ingest.indexer import embedding_text
from embedstore.ingest.sources import SourceFile, walk_sources

# Files whose path hash falls in 1 of this many buckets are held out.
HOLDOUT_BUCKETS = 5


@dataclass(frozen=True)
class Pair:
    query: str
    positive: str  # the definition as the indexer embeds it
    path: str  # repository name / relative path: what the hold-out split is keyed on
    siblings: tuple[str, ...]  # other definitions of the same file, embedded likewise
    language: str = "python"


def held_out(path: str) -> bool:
    """Whether a file belongs to the held-out fifth (stable across runs and machines)."""
    digest = hashlib.sha1(path.encode("utf-8")).hexdigest()
    return int(digest, 16) % HOLDOUT_BUCKETS == 0


def split_pairs(pairs: Sequence[Pair]) -> tuple[list[Pair], list[Pair]]:
    """(trained, held out): the pairs of held-out files never reach training."""
    return [p for p in pairs if not held_out(p.path)], [p for p in pairs if held_out(p.path)]


def mine_pairs(
    repos: Sequence[Path], *, max_tokens: int, count_tokens: TokenCounter
) -> list[Pair]:
    """Every (doc sentence, definition) pair of the repositories' files in the mined
    languages (those `embedstore eval` takes queries from)."""
    return [pair for repo in repos for source in walk_sources(repo)
            for pair in _file_pairs(repo, source, max_tokens, count_tokens)]


def sample_pairs(
    repos: Sequence[Path], per_language: int, *, seed: int, max_tokens: int,
    count_tokens: TokenCounter,
) -> list[Pair]:
    """Up to ``per_language`` pairs of each language from files never held out, the files
    taken in a seeded random order: a language with many documented definitions does not
    drown the others, and large training sets are not mined whole (mining every file costs
    more than training on a sample)."""
    sources = [(repo, source) for repo in repos for source in walk_sources(repo)
               if source.language in MINED_LANGUAGES
               and not held_out(f"{Path(repo).name}/{source.rel_path}")]
    random.Random(seed).shuffle(sources)
    picked: dict[str, list[Pair]] = defaultdict(list)
    for repo, source in sources:
        room = per_language - len(picked[source.language])
        if room > 0:
            picked[source.language] += _file_pairs(repo, source, max_tokens, count_tokens)[:room]
    return [pair for language in sorted(picked) for pair in picked[language]]


def _file_pairs(
    repo: Path, source: SourceFile, max_tokens: int, count_tokens: TokenCounter
) -> list[Pair]:
    """The pairs of one file (none outside the mined languages)."""
    if source.language not in MINED_LANGUAGES:
        return []
    stripped, queries = strip_docs(source.text, source.rel_path, source.language)
    if not queries:
        return []
    key = f"{Path(repo).name}/{source.rel_path}"
    units = _embedded_units(stripped, source.rel_path, source.language, max_tokens,
                            count_tokens)
    pairs = []
    for q in queries:
        around = [(end - start, text) for (start, end), text in units
                  if start <= q.def_line <= end]
        if not around:
            continue
        own = min(around)[1]  # the innermost: a method, not its class
        siblings = tuple(text for _, text in units if text != own)
        pairs.append(Pair(q.query, own, key, siblings, source.language))
    return pairs


def _embedded_units(
    text: str, rel_path: str, language: str, max_tokens: int, count_tokens: TokenCounter
) -> list[tuple[tuple[int, int], str]]:
    """Each unit's lines and the text the indexer embeds for its first chunk (the one
    holding its header)."""
    budget = max_tokens - count_tokens([rel_path])[0]
    return [((plan.start_line, plan.end_line), embedding_text(rel_path, plan.chunks[0]))
            for plan in group_units(chunk_file(text, language, max_tokens=budget,
                                               count_tokens=count_tokens))]
