"""Queries mined from doc comments: whole first sentences, each naming one definition (issue 29)."""

from __future__ import annotations

from pathlib import Path

from embedstore.evaluation.dataset import build_corpus, first_sentence, strip_docs

# tanstack-query-core's hydration.ts, shortened: the sentence runs past "e.g.".
_TS = """\
/**
 * Reads the value of a promise synchronously if it has already resolved, e.g. when
 * it was seeded from the cache. Otherwise returns undefined.
 */
function tryResolveSync(promise: Promise<unknown>) {
  return undefined
}
"""


def test_a_sentence_runs_past_abbreviations() -> None:
    assert first_sentence("Same as `parse`, i.e. strict. Then") == "Same as `parse`, i.e. strict"
    assert first_sentence("Uses a pool (cf. `Pool`). Then") == "Uses a pool (cf. `Pool`)"
    assert first_sentence("E.g. this one. Then") == "E.g. this one"
    assert first_sentence("Ends here. Then more") == "Ends here"


def test_a_jsdoc_query_is_not_cut_at_e_g() -> None:
    _, queries = strip_docs(_TS, "src/hydration.ts", "typescript")
    assert [q.query for q in queries] == [
        "Reads the value of a promise synchronously if it has already resolved, e.g. when "
        "it was seeded from the cache"
    ]


# testify's shape: assertion_format.go generates an `f` twin of each assertion, same doc.
_COMPARE_GO = """\
package assert

// Greater asserts that the first element is greater than the second.
func Greater(t TestingT, e1 interface{}, e2 interface{}) bool {
	return compareTwoValues(t, e1, e2, []CompareType{compareGreater})
}

// Positive asserts that the specified element is positive.
func Positive(t TestingT, e interface{}) bool {
	return compareTwoValues(t, e, 0, []CompareType{compareGreater})
}
"""
_FORMAT_GO = """\
package assert

// Greaterf asserts that the first element is greater than the second.
func Greaterf(t TestingT, e1 interface{}, e2 interface{}, msg string) bool {
	return Greater(t, e1, e2, msg)
}
"""


def test_a_sentence_that_documents_several_definitions_is_no_query(tmp_path: Path) -> None:
    repo = tmp_path / "testify"
    (repo / "assert").mkdir(parents=True)
    (repo / "assert" / "assertion_compare.go").write_text(_COMPARE_GO)
    (repo / "assert" / "assertion_format.go").write_text(_FORMAT_GO)
    queries = build_corpus(repo, tmp_path / "corpus")
    assert [(q.symbol, q.query) for q in queries] == [
        ("Positive", "asserts that the specified element is positive")
    ]
    # Both twins still lose their doc: the corpus is the same as with the query asked.
    stripped = (tmp_path / "corpus" / "assert" / "assertion_format.go").read_text()
    assert "//" not in stripped
