"""Cutting files into chunks that fit the encoder: by syntax, headings or lines.

Code in the languages of :data:`CODE_LANGUAGES` is cut along definitions
(tree-sitter; Python's ``ast`` as a fallback), one unit per name, Markdown
and reST by headings, anything else into overlapping line windows. Every
chunk fits ``max_tokens``: what is too long is split, never truncated.
"""

from __future__ import annotations

from embedstore.chunking import python_ast, treesitter
from embedstore.chunking.budget import MIN_MAX_TOKENS, Budget
from embedstore.chunking.grammars import GRAMMARS
from embedstore.chunking.layout import chunk_outline
from embedstore.chunking.lines import chunk_lines
from embedstore.chunking.markdown import chunk_markup
from embedstore.chunking.outline import Block, fold_names
from embedstore.chunking.types import Chunk, TokenCounter, chunk_body

__all__ = [
    "CODE_LANGUAGES",
    "MARKUP_LANGUAGES",
    "MIN_MAX_TOKENS",
    "Block",
    "Chunk",
    "TokenCounter",
    "chunk_body",
    "chunk_file",
    "code_outline",
]

CODE_LANGUAGES = frozenset(GRAMMARS)
MARKUP_LANGUAGES = frozenset({"markdown", "rst"})


def chunk_file(
    text: str, language: str | None, *, max_tokens: int, count_tokens: TokenCounter
) -> list[Chunk]:
    """The chunks of one file, in order.

    Lines are ``text.split("\\n")``, numbered from 1; a chunk's ``text`` is its
    lines joined with ``"\\n"``, except that a single line too long for the
    budget is cut into several chunks on that line whose texts concatenate to
    it, and that a class over budget is outlined: its chunks span it (its
    members have chunks of their own inside) and their texts are its own lines
    with its members' signatures. Every non-blank line is in some chunk, and
    ``count_tokens([chunk_body(c)])[0] <= max_tokens`` for each chunk ``c``.
    An unknown or missing ``language`` is chunked as plain text; code with
    syntax errors is still chunked. Raises ``ValueError`` if ``max_tokens`` is
    below :data:`MIN_MAX_TOKENS` or ``count_tokens`` does not return one
    count per text.
    """
    budget = Budget(text.split("\n"), max_tokens, count_tokens)
    if language in MARKUP_LANGUAGES:
        return chunk_markup(budget, rst=language == "rst")
    blocks = code_outline(text, language)
    if blocks is None:
        return chunk_lines(budget)
    return chunk_outline(blocks, budget)


def code_outline(text: str, language: str | None) -> list[Block] | None:
    """The definitions of a code file, one per name (:func:`fold_names`).

    None for a language that is not code or when no parser can read it.
    """
    if language is None or language not in CODE_LANGUAGES:
        return None
    parsed = treesitter.outline(text, language)
    blocks = parsed.blocks if parsed else None
    if language == "python" and (parsed is None or not parsed.clean):
        # The interpreter's own parser knows syntax newer than the grammar wheel.
        fallback = python_ast.outline(text)
        if fallback is not None:
            blocks = fallback
    return None if blocks is None else fold_names(blocks)
