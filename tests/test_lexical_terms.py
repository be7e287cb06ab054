from __future__ import annotations

import pytest

from embedstore.lexical import (
    code_terms,
    fold_plural,
    fts_query,
    index_terms,
    split_identifier,
)


def test_snake_case_is_kept_whole_and_split() -> None:
    assert code_terms("data_file_path") == ["data_file_path", "data", "file", "path"]


def test_camel_case_acronyms_and_digits() -> None:
    assert split_identifier("HTTPServer2Go") == ["http", "server", "2", "go"]
    assert code_terms("getServerDataFilePath") == [
        "getserverdatafilepath", "get", "server", "data", "file", "path",
    ]


def test_plain_words_are_not_duplicated() -> None:
    assert code_terms("close the cache") == ["close", "the", "cache"]


def test_dunder_names_and_punctuation() -> None:
    assert code_terms("def __init__(self): x.y = 3") == ["def", "init", "self", "x", "y", "3"]


def test_query_quotes_operators_and_dedups() -> None:
    assert fts_query("read AND read_file") == '"read" OR "read_file" OR "file"'
    assert fts_query("!!! ...") is None


def test_stop_words_and_keywords_are_dropped_from_index_and_query() -> None:
    assert index_terms("if the url is not None: return self.base_url") == [
        "url", "base_url", "base", "url"
    ]
    assert fts_query("with the and if return") is None


@pytest.mark.parametrize(
    ("plural", "singular"),
    [("urls", "url"), ("entries", "entry"), ("classes", "class"), ("indexes", "index"),
     ("matches", "match"), ("caches", "cache"), ("files", "file"), ("keys", "key")],
)
def test_plurals_fold_to_the_singular(plural: str, singular: str) -> None:
    assert fold_plural(plural) == fold_plural(singular) == singular


@pytest.mark.parametrize("word", ["status", "process", "analysis", "alias", "bus", "ids"])
def test_words_that_only_look_plural_are_kept(word: str) -> None:
    assert fold_plural(word) == word
