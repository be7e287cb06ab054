"""Members before their class: the rule over a ranked list of units."""

from __future__ import annotations

from embedstore.retrieval.members_first import class_header, members_first
from embedstore.store.db import UnitRow


def unit(unit_id: int, start: int, end: int, kind: str, symbol: str, path: str = "a.py") -> UnitRow:
    text = f"class {symbol.rsplit('.', 1)[-1]}(Base):" if kind == "class" else f"def {symbol}():"
    return UnitRow(unit_id, path, "python", start, end, kind, symbol, text, None)


ROWS = {r.id: r for r in [
    unit(1, 1, 100, "class", "Request"),
    unit(2, 10, 20, "method", "Request.prepare_headers"),
    unit(3, 30, 40, "method", "Request.prepare_body"),
    unit(4, 1, 50, "function", "other", path="b.py"),
    unit(5, 50, 90, "class", "Request.Inner"),
    unit(6, 60, 70, "method", "Request.Inner.run"),
]}


def test_a_class_ranks_after_its_members_and_they_show_its_header() -> None:
    ranked = [(1, 0.9), (4, 0.8), (2, 0.7), (3, 0.6)]
    order, owners = members_first(ranked, ROWS, "prepares the given headers")
    assert order == [(4, 0.8), (2, 0.7), (3, 0.6), (1, 0.6)]
    assert owners == {2: 1, 3: 1}
    assert class_header(ROWS[owners[2]]) == "class Request(Base):"


def test_a_class_header_is_its_declaration_not_a_doc_line_that_names_it() -> None:
    text = ("/// Parses a `NaiveDateTime` too.\n/// # use chrono::{DateTime, FixedOffset};\n"
            "#[cfg(feature = \"std\")]\nimpl str::FromStr for DateTime<FixedOffset> {\n"
            "    type Err = ParseError;\n}")
    row = UnitRow(1, "src/parse.rs", "rust", 1, 6, "class", "DateTime", text, None)
    assert class_header(row) == "impl str::FromStr for DateTime<FixedOffset> {"


def test_a_class_without_listed_members_or_named_by_the_query_keeps_its_place() -> None:
    alone = [(1, 0.9), (4, 0.8)]
    assert members_first(alone, ROWS, "an http request")[0] == alone
    named = [(1, 0.9), (2, 0.7)]
    for query in ("Request", "class Request", "http.Request"):
        assert members_first(named, ROWS, query)[0] == named
    # A sentence that mentions the class asks for something in it.
    assert members_first(named, ROWS, "headers of a Request")[0] == [(2, 0.7), (1, 0.7)]


def test_nested_classes_wait_for_their_members_innermost_first() -> None:
    ranked = [(1, 0.9), (5, 0.8), (6, 0.5), (4, 0.4)]
    order, owners = members_first(ranked, ROWS, "run the inner loop")
    assert [i for i, _ in order] == [6, 5, 1, 4]
    assert [s for _, s in order] == sorted((s for _, s in order), reverse=True)
    assert owners == {5: 1, 6: 5}
