"""Queries mined from doc comments are whole first sentences (issue 29)."""

from __future__ import annotations

from embedstore.evaluation.dataset import first_sentence, strip_docs

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
