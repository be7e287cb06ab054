"""Functions before types for queries that say what code does (declarations_last)."""

from __future__ import annotations

from pathlib import Path

import pytest

from embedstore.retrieval.action_openers import ACTION_OPENERS
from embedstore.retrieval.declarations_last import (
    declares,
    demote_declarations,
    opening_word,
    reads_as_action,
)
from embedstore.retrieval.search import search
from embedstore.store.db import UnitRow
from tests.fakes import FakeEncoder
from tests.retrieval.test_code_context import indexed


@pytest.mark.parametrize(
    ("query", "action"),
    [
        ("Creates a redirect response understood by the router", True),
        ("Returns the `Query` instance stored under the given hash", True),  # names are fine
        ("return the cached data", True),
        ("check whether a value is a redirect", True),
        ("Options for a redirect response", False),
        ("A serializable snapshot of the cache", False),
        ("The state of a query", False),
        ("Returns data", False),  # too short to be a sentence
        ("redirect", False),
    ],
)
def test_a_query_reads_as_an_action_when_it_opens_with_what_functions_do(
    query: str, action: bool
) -> None:
    assert reads_as_action(query) is action


def test_the_learned_openers_are_verbs_not_the_words_types_open_with() -> None:
    assert {"returns", "return", "creates", "checks", "get", "parse"} <= ACTION_OPENERS
    assert not {"a", "an", "the", "options", "represents", "internal", "d", "xxx"} & ACTION_OPENERS


def test_a_doc_comment_that_opens_with_its_own_name_is_read_from_the_next_word() -> None:
    # Go's convention: "ParseDuration parses a duration string."
    assert opening_word("ParseDuration parses a duration string.", "ParseDuration") == "parses"
    assert opening_word("Returns the state.", "state") == "returns"
    assert opening_word("`setData` writes the data") == "setdata"
    assert opening_word("", "f") is None


def test_a_declarations_score_is_lowered_and_the_rest_keeps_its_order() -> None:
    def row(unit_id: int, kind: str) -> UnitRow:
        return UnitRow(unit_id, "a.ts", "typescript", 1, 2, kind, None, "", None)

    rows = {1: row(1, "interface"), 2: row(2, "function"), 3: row(3, "type"),
            4: row(4, "method"), 5: row(5, "class")}
    ranked = [(1, 0.60), (2, 0.55), (3, 0.50), (4, 0.45), (5, 0.44)]
    assert [i for i, _ in demote_declarations(ranked, rows)] == [2, 1, 4, 5, 3]


@pytest.mark.parametrize(("kind", "language", "lowered"), [
    ("type", "rust", True),
    ("interface", "java", True),
    ("module", "python", True),  # a module's docstring and imports
    ("constant", "rust", True),  # `const SECS_PER_DAY: i64`: data
    ("variable", "go", True),
    ("constant", "python", True),
    # `export const map = dual(2, ...)` is a function that a call built.
    ("constant", "typescript", False),
    ("variable", "javascript", False),
    ("function", "rust", False),
    ("method", "typescript", False),
    ("class", "python", False),  # left to members_first
])
def test_what_declares_rather_than_does(kind: str, language: str, lowered: bool) -> None:
    assert declares(kind, language) is lowered


ROUTER = {
    "src/redirect.ts": (
        "/** Options of a redirect response that the router sends. */\n"
        "export interface RedirectOptions {\n"
        "  status: number\n"
        "}\n\n"
        "export function redirect(opts: RedirectOptions): Response {\n"
        "  // The router follows this response: a redirect to the location.\n"
        "  return new Response(null, { status: opts.status })\n"
        "}\n"
    ),
    # Others, so that the query's words are rare enough to count.
    **{f"src/{n}.ts": f"export const {n} = (x: number): number => x\n"
       for n in ("round", "truncate", "clamp", "sign", "zero", "abs")},
}


def test_a_query_that_says_what_code_does_finds_the_function_before_the_type(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    collection = indexed(tmp_path, ROUTER)

    def ranked(query: str) -> list[str | None]:
        return [h.symbol for h in search(collection, query, k=2, mode="lexical")]

    # The interface's doc comment repeats the words: by score alone it comes first...
    assert ranked("The redirect response that the router sends") == [
        "RedirectOptions", "redirect"
    ]
    # ... unless the query says what code does.
    assert ranked("Creates a redirect response that the router sends") == [
        "redirect", "RedirectOptions"
    ]
