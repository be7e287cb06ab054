"""Which units are test code (per language), and which queries describe behaviour."""

from __future__ import annotations

import pytest

from embedstore.languages import in_test_item, is_test_code
from embedstore.retrieval.tests_last import demote_tests, is_descriptive
from embedstore.store.db import UnitRow

RUST_TEST = "/// Checks the parser.\n#[test]\nfn parses_units() {\n    assert!(ok(\"1s\"));\n}"
RUST_TEST_MODULE = "#[cfg(test)]\nmod tests {\n    use super::*;\n}"


@pytest.mark.parametrize(
    ("path", "language", "symbol", "text"),
    [
        ("timeutil/duration_test.go", "go", "TestParseDuration", ""),
        ("src/observable.test.ts", "typescript", "describe", ""),
        ("src/ui/button.spec.tsx", "tsx", None, ""),
        ("lib/util.spec.js", "javascript", None, ""),
        ("tests/integration.rs", "rust", "round_trip", ""),
        ("src/__tests__/store.ts", "typescript", None, ""),
        ("test/helpers.js", "javascript", "setup", ""),
        ("pkg/test_paths.py", "python", "test_join", ""),
        ("src/lexer.rs", "rust", "parses_units", RUST_TEST),
        ("src/lexer.rs", "rust", "tests", RUST_TEST_MODULE),
        ("src/lexer.rs", "rust", "tests.fixture", "fn fixture() -> Lexer {\n}"),
        ("src/lexer/tests.rs", "rust", "fixture", "fn fixture() -> Lexer {\n}"),
        # Benchmarks exercise the code as tests do.
        ("benches/parse.rs", "rust", "bench_parse_rfc2822", ""),
        ("src/lexer.rs", "rust", "lex_large", "#[bench]\nfn lex_large(b: &mut Bencher) {\n}"),
        ("benchmarks/bench_join.py", "python", "time_join", ""),
        ("packages/core/benchmarks/store.ts", "typescript", "run", ""),
    ],
)
def test_test_code_is_recognised(path: str, language: str, symbol: str | None, text: str) -> None:
    assert is_test_code(path, language, symbol, text)


@pytest.mark.parametrize(
    ("path", "language", "symbol", "text"),
    [
        ("timeutil/duration.go", "go", "ParseDuration", ""),
        ("src/testing.ts", "typescript", "TestScheduler", ""),  # the code under test helps
        ("src/attest.py", "python", "attest", ""),
        ("src/lexer.rs", "rust", "Lexer.next", "/// The next token.\n#[inline]\nfn next() {}"),
        ("src/latest.rs", "rust", "contest.run", "fn run() {}"),
    ],
)
def test_code_is_not_test_code(path: str, language: str, symbol: str | None, text: str) -> None:
    assert not is_test_code(path, language, symbol, text)


@pytest.mark.parametrize(
    ("code", "inside"),
    [
        ("fn a() {}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn b() {\n        ", True),
        ("#[test]\nfn parses() {\n    let x = 1;\n    ", True),
        ("#[cfg(test)]\nmod tests {\n    fn b() {}\n}\n\nfn c() {\n    ", False),
        ("#[cfg(test)]\nmod tests {\n}\n\n", False),
        ("#[inline]\nfn a() {\n    ", False),
    ],
)
def test_a_cursor_in_a_rust_test_item_is_in_test_code(code: str, inside: bool) -> None:
    assert in_test_item(code, "rust") is inside
    assert not in_test_item(code, "go")  # Go marks tests by file name alone


@pytest.mark.parametrize(
    ("query", "descriptive"),
    [
        ("parse a duration from a string", True),
        ("Returns the number of subscribers still listening", True),
        ("ParseDuration", False),
        ("parse_duration units", False),
        ("where is cfg.Load called", False),
        ("duration_test.go", False),
        ("check that parsing rejects bad units in tests", False),
        ("benchmark of parsing a long duration", False),
        ("close idle", False),
    ],
)
def test_descriptive_queries_are_told_from_names(query: str, descriptive: bool) -> None:
    assert is_descriptive(query) is descriptive


def test_a_test_units_score_is_lowered_and_the_rest_keeps_its_order() -> None:
    def row(unit_id: int, path: str) -> UnitRow:
        return UnitRow(unit_id, path, "go", 1, 2, "function", None, "", None)

    rows = {1: row(1, "a_test.go"), 2: row(2, "a.go"), 3: row(3, "b.go"), 4: row(4, "c_test.go")}
    ranked = [(1, 0.60), (2, 0.58), (3, 0.40), (4, -0.1)]
    assert [i for i, _ in demote_tests(ranked, rows, factor=0.9)] == [2, 1, 3, 4]
    # A negative score goes further down too.
    assert demote_tests(ranked, rows, factor=0.9)[-1][1] < -0.1
