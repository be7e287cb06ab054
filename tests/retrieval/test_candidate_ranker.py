"""The fitted order of code-at-cursor's candidates (candidate_ranker.py), over plain rows."""

from __future__ import annotations

from embedstore.retrieval.candidate_ranker import (
    FEATURES,
    WEIGHTS,
    Candidate,
    Census,
    features,
    rerank,
)
from embedstore.store.symbol_table import DefinitionRow


def candidate(name: str, *, kind: str = "function", path: str = "src/util.rs",
              qualname: str | None = None, score: float = 1.0, members: int = 0,
              held: bool = False) -> Candidate:
    row = DefinitionRow(path, "rust", name, qualname or name, kind, 1, 3, 1, "")
    return Candidate(row, score, [row] * members, held)


def column(matrix: object, name: str) -> list[float]:
    return [float(v) for v in matrix[:, FEATURES.index(name)]]  # type: ignore[index]


def test_every_feature_has_a_fitted_weight() -> None:
    assert set(WEIGHTS) == set(FEATURES)
    assert WEIGHTS["score"] > 0


def test_features_read_the_kind_the_class_the_tests_and_the_last_lines() -> None:
    code = "fn main() {\n" + "    noise();\n" * 20 + "    let parsed = parse_header(&raw);\n"
    ranked = [
        candidate("parse_header"),
        candidate("header_len", kind="method", qualname="Header.header_len", members=0),
        candidate("Header", kind="type", members=7),
        candidate("check", path="tests/parse.rs"),
    ]
    matrix = features(ranked, code, Census(namesakes={"check": 4}))
    assert matrix.shape == (4, len(FEATURES))
    assert column(matrix, "recent") == [1.0, 0.0, 0.0, 0.0]
    assert column(matrix, "method") == [0.0, 1.0, 0.0, 0.0]
    assert column(matrix, "member") == [0.0, 1.0, 0.0, 0.0]
    assert column(matrix, "test") == [0.0, 0.0, 0.0, 1.0]
    assert column(matrix, "log_members")[2] > 0
    assert column(matrix, "log_namesakes")[3] > column(matrix, "log_namesakes")[0] == 0
    # `header_len` shares "header" with `parse_header` on the last line; "len" it does not.
    assert column(matrix, "word_share")[1] == 0.5
    assert column(matrix, "log_rank") == sorted(column(matrix, "log_rank"))


def test_a_name_used_only_far_above_is_not_recent() -> None:
    code = "    parse_header(&raw);\n" + "    noise();\n" * 20
    assert column(features([candidate("parse_header")], code, Census()), "recent") == [0.0]


def test_what_the_last_lines_already_call_gives_way_to_what_they_do_not() -> None:
    """The prompt shows how `parse_header` is called; `parse_body` it does not show."""
    code = "fn read(raw: &[u8]) {\n    let head = parse_header(raw);\n"
    ranked = [candidate("parse_header"), candidate("parse_body")]
    assert [c.row.name for c in rerank(ranked, code, Census())] == ["parse_body", "parse_header"]


def test_test_code_and_common_names_give_way_when_the_evidence_ties() -> None:
    code = "fn f() {\n"
    in_tests = [candidate("helper", path="tests/common.rs"), candidate("decode_frame")]
    assert [c.row.name for c in rerank(in_tests, code, Census())] == ["decode_frame", "helper"]
    common = [candidate("new"), candidate("decode_frame")]
    many_new = Census(namesakes={"new": 40})
    assert [c.row.name for c in rerank(common, code, many_new)] == ["decode_frame", "new"]
    assert [c.row.name for c in rerank(common, code, Census())] == ["new", "decode_frame"]


def test_far_stronger_evidence_keeps_its_place() -> None:
    ranked = [candidate("open", score=6.0, path="tests/fixture.rs"), candidate("close", score=0.5)]
    assert [c.row.name for c in rerank(ranked, "fn f() {\n", Census())] == ["open", "close"]


def test_no_candidate_no_order() -> None:
    assert rerank([], "fn f() {\n", Census()) == []
    assert features([], "", Census()).shape == (0, len(FEATURES))


def test_features_read_the_collections_uses_the_folder_and_how_the_code_names_it() -> None:
    ranked = [candidate("push", path="src/vec/mod.rs"),
              candidate("spawn", path="src/thread/mod.rs"), candidate("helper", path="util.rs")]
    ranked[1].named = True
    matrix = features(ranked, "fn f() {\n", Census(uses={"push": 40, "spawn": 3}),
                      "src/vec/tests.rs")
    uses = column(matrix, "log_uses")
    assert uses[0] > uses[1] > uses[2] == 0
    # src/vec/ holds the edited file: all its folders; src/thread/ shares src/ alone.
    assert column(matrix, "folder_share") == [1.0, 0.5, 0.0]
    assert column(matrix, "named") == [0.0, 1.0, 0.0]
    # A file at the top of the collection shares its folder with the top's files alone.
    top = features(ranked, "", Census(), "main.rs")
    assert column(top, "folder_share") == [0.0, 0.0, 1.0]
    assert column(features(ranked, "", Census()), "folder_share") == [0.0, 0.0, 0.0]


def test_of_two_alike_the_one_nearer_the_edited_file_comes_first() -> None:
    """Code calls into its own part of the tree more than into a far one (the fitted
    weight of `folder_share`)."""
    ranked = [candidate("flush_all", path="other/pipe.rs"),
              candidate("flush_all", path="src/net/tcp.rs")]
    order = rerank(ranked, "fn f() {\n", Census(), "src/net/udp.rs")
    assert [c.row.path for c in order] == ["src/net/tcp.rs", "other/pipe.rs"]
    assert rerank(ranked, "fn f() {\n", Census()) == ranked
