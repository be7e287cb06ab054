"""Code-aware terms for lexical (BM25) search.

SQLite's FTS5 tokenizer knows nothing of identifiers, so text is turned into
terms before it is indexed and before it is queried: every identifier is kept
whole (lowercased) AND split at ``snake_case``, ``camelCase`` and digit
boundaries, so `data_file_path` is found by "data file path" and by the exact
name alike.

Both sides then drop stop words (English function words and the keywords of
the languages the chunker knows: `if`, `return`, `self` match nearly every
chunk and only add noise) and fold plurals (`urls` -> `url`,
`entries` -> `entry`), so a query's wording and the code's naming meet.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+")
# A plain name as code writes it (any script; not `$x`'s tail, never a dotted chain).
_NAME = re.compile(r"(?<![\w$])[^\W\d]\w*")
# Boundaries inside an identifier: "HTTPServer2Go" -> HTTP, Server, 2, Go.
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
MAX_TERM_LENGTH = 64


def split_identifier(identifier: str) -> list[str]:
    """The lowercased parts of one identifier, in order."""
    return [p.lower() for p in _PART.findall(identifier)]


def plain_names(text: str) -> list[str]:
    """Every plain name ``text`` writes, in order, repeats kept."""
    return _NAME.findall(text)


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


_ENGLISH = frozenset({
    "a", "about", "above", "after", "again", "against", "all", "also", "an", "and", "any",
    "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
    "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each",
    "either", "else", "etc", "every", "few", "for", "from", "further", "given", "had", "has",
    "have", "having", "here", "how", "however", "if", "in", "into", "is", "it", "its",
    "itself", "just", "may", "might", "more", "most", "much", "must", "no", "nor", "not",
    "now", "of", "off", "on", "once", "one", "only", "or", "other", "otherwise", "our", "out",
    "over", "own", "per", "same", "shall", "should", "since", "so", "some", "such", "than",
    "that", "the", "their", "them", "then", "there", "these", "they", "this", "those",
    "through", "thus", "to", "too", "under", "until", "up", "upon", "us", "using", "via",
    "was", "we", "were", "what", "when", "where", "whether", "which", "while", "who", "whom",
    "whose", "why", "will", "with", "within", "without", "would", "yet", "you", "your",
})
# Keywords that say nothing about what code does; words that also name a
# concept (import, delete, match, type, default...) stay searchable.
_KEYWORDS = frozenset({
    "abstract", "as", "assert", "async", "await", "auto", "bool", "boolean", "break", "catch",
    "cfg", "char", "class", "const", "constexpr", "continue", "def", "del", "do", "dyn",
    "elif", "else", "except", "explicit", "extends", "extern", "false", "finally", "fn", "for",
    "func", "function", "goto", "if", "impl", "implements", "in", "inline", "instanceof", "is",
    "lambda", "let", "mut", "nil", "none", "nonlocal", "not", "null", "or", "pass", "private",
    "protected", "pub", "public", "raise", "return", "self", "static", "struct", "switch",
    "synchronized", "this", "throws", "true", "try", "typedef", "typename", "undefined",
    "unsafe", "var", "void", "volatile", "while", "with", "yield",
})
STOP_WORDS = _ENGLISH | _KEYWORDS
# Plural endings whose "s" is part of the word: status, process, analysis, alias.
_NOT_PLURAL = ("ss", "us", "is", "as")


def fold_plural(term: str) -> str:
    """A light plural folding: urls -> url, entries -> entry, classes -> class, indexes -> index.

    Deliberately conservative: only letters, only words over three letters,
    and never the endings in ``_NOT_PLURAL``. It runs on the index and the
    query alike, so what matters is that both spellings fold together.
    """
    if len(term) <= 3 or not term.isalpha() or not term.endswith("s"):
        return term
    if term.endswith("ies") and len(term) > 4:
        return term[:-3] + "y"
    if term.endswith(("sses", "xes", "ches", "shes")) and not term.endswith("aches"):
        return term[:-2]
    if term.endswith(_NOT_PLURAL):
        return term
    return term[:-1]


def index_terms(text: str) -> list[str]:
    """The terms BM25 sees for a text (indexed or queried): code terms, minus stop words, folded."""
    return [fold_plural(t) for t in code_terms(text) if t not in STOP_WORDS]


def query_terms(text: str) -> list[str]:
    """The distinct terms of a query, in order: what BM25 sums over."""
    return list(dict.fromkeys(index_terms(text)))


def term_spans(line: str, terms: Collection[str]) -> Iterator[tuple[int, int]]:
    """Where BM25 found ``terms`` (``query_terms``) in ``line``: (start, end) offsets of each
    identifier whose whole is one of them, else of each of its parts that is one.

    The same terms as ``index_terms`` takes from the text, so what is marked is what matched.
    """
    for found in _IDENTIFIER.finditer(line):
        identifier = found.group()
        whole = identifier.strip("_").lower()
        if not whole or len(whole) > MAX_TERM_LENGTH:
            continue
        if fold_plural(whole) in terms:
            yield found.start(), found.end()
            continue
        for part in _PART.finditer(identifier):
            if fold_plural(part.group().lower()) in terms:
                yield found.start() + part.start(), found.start() + part.end()


def fts_query(text: str) -> str | None:
    """An FTS5 MATCH expression: any of the query's terms (BM25 ranks the overlap).

    Terms are quoted so that words like AND/OR/NEAR never act as operators.
    None when the text holds no searchable term.
    """
    terms = query_terms(text)
    return " OR ".join(f'"{t}"' for t in terms) if terms else None
