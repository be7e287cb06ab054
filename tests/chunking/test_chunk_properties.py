"""The guarantees of ``chunk_file`` on many inputs, languages, budgets and counters.

Every chunk's text is exactly its lines, every chunk fits the budget as the
counter counts it, and every non-blank line is in some chunk (checked by the
``check`` fixture), whatever the input: non-ASCII text, other line endings,
code in the wrong language, syntax errors.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import pytest

from embedstore.chunking import (
    CODE_LANGUAGES,
    MARKUP_LANGUAGES,
    Chunk,
    TokenCounter,
    chunk_file,
    treesitter,
)

NON_ASCII_PYTHON = '''\
"""Übersetzungen: 日本語, émojis 🎉 and ß."""


class Wörterbuch:
    """Ein Wörterbuch — mit Umlauten."""

    def übersetze(self, wort: str) -> str:
        # 翻訳する: look the word up, fall back to itself
        return self.einträge.get(wort, wort)

    def größe(self) -> int:
        return len(self.einträge)


def grüße(name="Zoë"):
    return f"Grüß Gott, {name} 👋"
'''

NON_ASCII_JS = """\
// Zählt Wörter — 単語を数える
export function zähle(text) {
  const wörter = text.split(/\\s+/u);
  return wörter.filter((w) => w !== "").length;
}

const grüße = { de: "Hallo", ja: "こんにちは", emoji: "👋🏽" };
"""

MARKDOWN = """\
# Überblick

Kurzer Text über das Projekt — 概要.

## Installation ✓

pip install paket

### Unter Linux 🐧

Mit dem Paketmanager.
"""


def generated_python(seed: int) -> str:
    """A module of classes and functions of random sizes."""
    rng = random.Random(seed)

    def body(indent: str, statements: int) -> str:
        return "".join(
            f"{indent}x = x * {n} + len('{'ä' * n}')  # step\n" for n in range(statements)
        )

    parts = ["import os\n\n"]
    for n in range(rng.randint(3, 8)):
        if rng.random() < 0.4:
            methods = "".join(
                f"    def m{k}(self, x):\n{body(' ' * 8, rng.randint(0, 25))}        return x\n\n"
                for k in range(rng.randint(1, 6))
            )
            parts.append(f"class C{n}(object):\n    attr = {n}\n\n{methods}\n")
        else:
            parts.append(f"def f{n}(x):\n{body('    ', rng.randint(0, 60))}    return x\n\n\n")
    return "".join(parts)


INPUTS = {
    "non-ascii python": NON_ASCII_PYTHON,
    "non-ascii javascript": NON_ASCII_JS,
    "markdown": MARKDOWN,
    "crlf": NON_ASCII_PYTHON.replace("\n", "\r\n"),
    "lone cr": NON_ASCII_PYTHON.replace("\n", "\r"),
    "tabs and form feeds": NON_ASCII_JS.replace("  ", "\t").replace("\n\n", "\n\x0c\n"),
    "syntax errors": NON_ASCII_PYTHON.replace(":", "{", 3) + "\n}}}((\n",
    "one long line": " ".join(f"w{n}" for n in range(300)),
    # Undecodable bytes, as read with errors="surrogateescape".
    "lone surrogates": NON_ASCII_PYTHON.replace("Zoë", "Zo\udceb"),
    **{f"generated {seed}": generated_python(seed) for seed in range(4)},
}

_RUN = re.compile(r"\w+|[^\w\s]+")


def count_runs(texts: list[str]) -> list[int]:
    """Like a WordPiece tokenizer: every word and every punctuation run a token."""
    return [len(_RUN.findall(text)) + 2 for text in texts]


def count_chars(texts: list[str]) -> list[int]:
    """Like a character-level model, with no specials: nothing like the estimate."""
    return [len(text) // 3 for text in texts]


COUNTERS: dict[str, TokenCounter] = {"runs": count_runs, "chars": count_chars}
LANGUAGES = [*sorted(CODE_LANGUAGES | MARKUP_LANGUAGES), "text"]


@pytest.mark.parametrize("name", sorted(INPUTS))
@pytest.mark.parametrize("counter", sorted(COUNTERS))
def test_guarantees_hold_for_every_language_and_budget(
    check: Callable[..., None], name: str, counter: str
) -> None:
    text, count_tokens = INPUTS[name], COUNTERS[counter]
    for language in LANGUAGES:
        for max_tokens in (16, 40, 200):
            chunks = chunk_file(text, language, max_tokens=max_tokens, count_tokens=count_tokens)
            check(text, chunks, max_tokens, count_tokens)


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_guarantees_hold_for_the_ast_fallback(
    monkeypatch: pytest.MonkeyPatch, check: Callable[..., None], name: str
) -> None:
    monkeypatch.setattr(treesitter, "parser_for", lambda language: None)
    text = INPUTS[name]
    for max_tokens in (16, 40, 200):
        chunks = chunk_file(text, "python", max_tokens=max_tokens, count_tokens=count_runs)
        check(text, chunks, max_tokens, count_runs)


def test_non_ascii_definitions_keep_their_lines(chunk: Callable[..., list[Chunk]]) -> None:
    # Tree-sitter works in UTF-8 bytes; rows must still be the file's lines.
    chunks = chunk(NON_ASCII_PYTHON, "python", 24)
    assert [(c.symbol, c.start_line, c.end_line, c.context) for c in chunks] == [
        (None, 1, 1, ""),
        ("Wörterbuch", 4, 12, ""),  # the class's outline
        ("Wörterbuch.übersetze", 7, 9, "class Wörterbuch:"),
        ("Wörterbuch.größe", 11, 12, "class Wörterbuch:"),
        ("grüße", 15, 16, ""),
    ]
