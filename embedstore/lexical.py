"""Code-aware terms for lexical (BM25) search.

SQLite's FTS5 tokenizer knows nothing of identifiers, so text is turned into
terms before it is indexed and before it is queried: every identifier is kept
whole (lowercased) AND split at ``snake_case``, ``camelCase`` and digit
boundaries, so `data_file_path` is found by "data file path" and by the exact
name alike.
"""

from __future__ import annotations

import re

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+")
# Boundaries inside an identifier: "HTTPServer2Go" -> HTTP, Server, 2, Go.
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
MAX_TERM_LENGTH = 64


def split_identifier(identifier: str) -> list[str]:
    """The lowercased parts of one identifier, in order."""
    return [p.lower() for p in _PART.findall(identifier)]


def code_terms(text: str) -> list[str]:
    """Every identifier whole, then its parts when it has more than one."""
    terms: list[str] = []
    for match in _IDENTIFIER.findall(text):
        whole = match.strip("_").lower()
        if not whole or len(whole) > MAX_TERM_LENGTH:
            continue
        terms.append(whole)
        parts = split_identifier(match)
        if len(parts) > 1:
            terms.extend(parts)
    return terms


_CODE_TOKEN = re.compile(r"[A-Za-z0-9]_[A-Za-z0-9]|[a-z][A-Z]|\w\(|\w\.\w|::")


def looks_like_code(text: str) -> bool:
    """True for queries that name code (snake_case, camelCase, calls, dotted names).

    Someone typing an identifier wants the places that spell it; hybrid search
    trusts the lexical side more for such queries.
    """
    return bool(_CODE_TOKEN.search(text))


def fts_query(text: str) -> str | None:
    """An FTS5 MATCH expression: any of the query's terms (BM25 ranks the overlap).

    Terms are quoted so that words like AND/OR/NEAR never act as operators.
    None when the text holds no searchable term.
    """
    terms = list(dict.fromkeys(code_terms(text)))
    return " OR ".join(f'"{t}"' for t in terms) if terms else None
