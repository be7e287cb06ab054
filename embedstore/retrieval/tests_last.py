"""Tests after the code they test, for queries that describe behaviour.

A test exercises the code it tests, with the same names and often the words of
the description: for "parse a duration from a string" `TestParseDuration`
competes with `ParseDuration` and often wins (a `_test.go` unit came first in 135
of 820 hybrid misses on validation-multi's Go repositories). Tests
stay in the index and still rank by their scores; a test unit's score is only
lowered by a factor when the query is descriptive, so a test beats only a much
weaker match. A query that names code (an identifier, a path) or mentions
tests is left alone, so tests stay findable.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from embedstore.languages import is_test_code
from embedstore.store.db import UnitRow

# A test unit keeps this share of its score (its distance from 0, so a negative
# cosine goes further down too). Tuned on train-multi repositories only
# (`bench/eval_languages.py tune`, hybrid MRR@10 at 1 / 0.95 / 0.9 / 0.8 / 0.6: Go
# 39.8 / 40.4 / 40.6 / 40.8 / 40.6, Rust 22.6 / 23.0 / 23.3 / 23.3 / 23.4; TypeScript's
# packages ship no tests).
TEST_FACTOR = 0.8
# Fewer words than this is a name or a keyword search rather than a description.
MIN_WORDS = 3
# A word with code punctuation or an inner capital (`parse_duration`, `cfg.Load`,
# `ParseDuration`, `x_test.go`) names code.
_CODE_WORD = re.compile(r"[_.:/\\()<>\[\]{}#]|[a-z][A-Z]")
_TEST_WORDS = frozenset({"test", "tests", "testing", "spec", "specs", "mock", "mocks",
                        "bench", "benches", "benchmark", "benchmarks"})


def is_descriptive(query: str) -> bool:
    """Whether ``query`` describes behaviour in words rather than naming code or tests."""
    words = query.split()
    if len(words) < MIN_WORDS or any(_CODE_WORD.search(word) for word in words):
        return False
    return _TEST_WORDS.isdisjoint(re.findall(r"[a-z]+", query.lower()))


def demote_tests(
    ranked: Sequence[tuple[int, float]], rows: Mapping[int, UnitRow], factor: float | None = None
) -> list[tuple[int, float]]:
    """``ranked`` (unit id, score) best first, test units' scores lowered, re-sorted stably.

    ``factor``: the share a test keeps, :data:`TEST_FACTOR` unless given.
    """
    share = TEST_FACTOR if factor is None else factor
    return demote(ranked, lambda unit_id: _is_test(rows.get(unit_id)), share)


def demote(
    ranked: Sequence[tuple[int, float]], lowered: Callable[[int], bool], factor: float
) -> list[tuple[int, float]]:
    """``ranked`` (unit id, score) best first, the scores of the units ``lowered`` picks
    cut to ``factor`` of their distance from 0 (a negative cosine goes further down
    too), re-sorted stably."""
    scored = [
        (unit_id, score - (1 - factor) * abs(score) if lowered(unit_id) else score)
        for unit_id, score in ranked
    ]
    return sorted(scored, key=lambda item: -item[1])


def _is_test(row: UnitRow | None) -> bool:
    return row is not None and is_test_code(row.path, row.language, row.symbol, row.text)
