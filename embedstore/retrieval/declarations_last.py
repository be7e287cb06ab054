"""Functions before what only declares, for queries that say what code does.

"Returns the cached data of an infinite query" asks for a function; "Options for
`hydrate`" asks for a type. Types and interfaces carry much prose (a documented field
per line) and the names of the things they describe, so for the first kind of query
they often outrank the function: an interface or a type came first in 76 of the 153
hybrid misses on train-multi's TypeScript packages. A module's own lines (its doc
comment) and named constants (`SECS_PER_DAY` for "Returns the number of seconds...")
do the same.

A query reads as an action when it opens with a word that, in the doc comments of
the standard library and the training repositories, opens functions' comments and
not types' (:data:`action_openers.ACTION_OPENERS`, learned by
bench/action_openers.py). For such a query a declaration keeps a share of its score,
as a test does for a descriptive query (:mod:`tests_last`): it still wins when it
matches much better. A named value counts as a declaration only where the language's
values are data: TypeScript's `export const map = dual(2, ...)` is a function.
Classes are left to :mod:`members_first`: "Creates a notification" may well ask for
a class."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from embedstore.chunking.grammars import GRAMMARS
from embedstore.retrieval.action_openers import ACTION_OPENERS
from embedstore.retrieval.tests_last import MIN_WORDS, demote
from embedstore.store.db import UnitRow

CALLABLE_KINDS = frozenset({"function", "method"})
TYPE_KINDS = frozenset({"type", "interface"})
# What a query about doing asks for least: types, interfaces, a module's own lines (its doc
# comment, its imports); and named values, where a language's values are data.
DECLARATION_KINDS = TYPE_KINDS | {"module"}
VALUE_KINDS = frozenset({"constant", "variable"})
# The share of its score a declaration keeps for an action query.
DECLARATION_FACTOR = 0.8
_WORD = re.compile(r"[A-Za-z][A-Za-z-]*")


def opening_word(sentence: str, name: str | None = None) -> str | None:
    """The first word of ``sentence``, lowercased, past a leading ``name`` (Go's doc
    comments open with their definition's: "ParseDuration parses a duration")."""
    words = _WORD.findall(sentence[:200])
    if words and words[0] == name:
        words = words[1:]
    return words[0].lower() if words else None


def reads_as_action(query: str) -> bool:
    """Whether ``query`` is a sentence that says what code does ("Creates a redirect").

    Names in it ("Returns the `Query` instance") do not make it less of one: unlike
    a test's, a type's name in the query is no sign that the type is wanted."""
    return opening_word(query) in ACTION_OPENERS and len(query.split()) >= MIN_WORDS


def demote_declarations(
    ranked: Sequence[tuple[int, float]], rows: Mapping[int, UnitRow]
) -> list[tuple[int, float]]:
    """``ranked`` (unit id, score) best first, declarations' scores lowered, re-sorted stably."""
    def declared(unit_id: int) -> bool:
        row = rows.get(unit_id)
        return row is not None and declares(row.kind, row.language)

    return demote(ranked, declared, DECLARATION_FACTOR)


def declares(kind: str, language: str) -> bool:
    """Whether a unit of ``kind`` in ``language`` declares rather than does."""
    if kind in DECLARATION_KINDS:
        return True
    grammar = GRAMMARS.get(language)
    return kind in VALUE_KINDS and not (grammar is not None and grammar.callable_values)
