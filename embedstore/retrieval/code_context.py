"""Code-at-cursor context: what the code at a cursor needs from the rest of the collection.

A coder model completing a line mostly needs the signatures (and, budget
permitting, the bodies) of the functions and classes that line is about to use,
defined in other files. Candidates come from three signals, each measured in
``bench/completion.py`` (results in ``bench/results/completion.md``):

1. the symbol table: the names the code imports, resolved to definitions of
   the collection (re-exports followed), and names it uses that the collection
   defines exactly once;
2. nearness: a name used just above the cursor, or imported and not used yet,
   weighs more than one used at the top of the file;
3. similar code: dense and lexical search with the last lines as the query, as
   RepoCoder does.

Packing puts a compact outline (signature and first docstring line) of many
candidates first, then whole bodies of the best while the budget lasts. The
file being edited never takes budget: the prompt holds it already.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from embedstore.chunking.symbols import ImportRef, extract_symbols, identifiers, resolve_import
from embedstore.chunking.types import TokenCounter
from embedstore.errors import UserInputError
from embedstore.languages import detect_language
from embedstore.retrieval.context import (
    ContextBlock,
    RagContext,
    encoder_prompt_counter,
    render,
)
from embedstore.retrieval.filters import SearchFilters
from embedstore.retrieval.search import search
from embedstore.retrieval.tokenizers import load_tokenizer
from embedstore.store import db, symbol_table
from embedstore.store.collection import Collection
from embedstore.store.symbol_table import DefinitionRow

# Nearness: a use this many lines above the cursor counts half as much as one on the line above.
HALF_LIFE_LINES = 8.0
# Score parts of a definition the code imports by name (see _score).
IMPORTED = 1.0
USED_NEAR = 2.0
NOT_YET_USED = 1.5
# A name the collection defines once, used in the code but not imported (any language).
UNIQUE_NAME = 0.5
# Members of a class the code refers to: what the next `obj.method(` may call.
MEMBER_SHARE = 0.5
# Similar code (RepoCoder): the last lines as a query; its hits' scores by rank.
SIMILAR_WINDOW_LINES = 20
SIMILAR_HITS = 20
SIMILAR = 1.0
# The outline of many candidates takes at most this share before bodies are added.
OUTLINE_SHARE = 0.5
# At most this many member signatures in one class's outline.
MAX_MEMBERS = 40
# Follow `from .core import X` in a package's __init__ at most this deep.
REEXPORT_DEPTH = 3
# Lines a docstring's first sentence may start below the signature.
DOC_LOOKAHEAD = 2
MAX_CODE_CHARS = 1_000_000


@dataclass
class Candidate:
    """A definition of another file that the code may need, with its evidence."""

    row: DefinitionRow
    score: float = 0.0
    members: list[DefinitionRow] = field(default_factory=list)

    @property
    def key(self) -> tuple[str, int]:
        return (self.row.path, self.row.start_line)


def context_for_code(
    collection: Collection,
    code: str,
    *,
    code_after: str | None = None,
    path: str | None = None,
    max_tokens: int = 2000,
    tokenizer: str | TokenCounter | None = None,
    filters: SearchFilters | None = None,
    similar: bool = True,
) -> RagContext:
    """The definitions ``code`` (a file's text before the cursor) needs, packed for a prompt.

    ``code_after`` is the text after the cursor (fill-in-the-middle); ``path`` the
    file's path in the collection, which keeps that file out of the answer and
    resolves relative imports. ``tokenizer`` is what ``max_tokens`` counts: a
    tiktoken encoding name, a Hugging Face tokenizer folder, or a counter
    (default: the encoder's tokenizer, special tokens aside). ``similar=False``
    leaves out the similar-code signal (for measuring it).
    """
    if max_tokens < 1:
        raise UserInputError(f"max_tokens must be at least 1, got {max_tokens}")
    if len(code) + len(code_after or "") > MAX_CODE_CHARS:
        raise UserInputError(f"code is longer than {MAX_CODE_CHARS} characters")
    if isinstance(tokenizer, str):
        count = load_tokenizer(tokenizer)
    else:
        count = tokenizer or encoder_prompt_counter(collection)
    rules = filters or SearchFilters()
    language = detect_language(path) if path else _main_language(collection)
    candidates = _structural(collection, code, code_after or "", path, language)
    if similar:
        _add_similar(collection, code, path, rules, candidates)
    prompt_lines = {line.strip() for line in code.split("\n") if line.strip()}
    ranked = [
        c for c in sorted(candidates.values(), key=lambda c: -c.score)
        if c.row.path != path and rules.allows(c.row.path, c.row.language)
        and not _already_in_prompt(collection, c, prompt_lines)
    ]
    return _pack(collection, code, ranked, max_tokens, count)


def nearness(code: str, skip_lines: set[int]) -> dict[str, float]:
    """Each identifier of ``code`` (dotted chains too) -> how near the end its last use is, 0..1.

    ``skip_lines`` (the imports) bind names; they do not use them.
    """
    last_line = code.count("\n") + 1
    near: dict[str, float] = {}
    for name, line in identifiers(code):
        if line not in skip_lines:
            near[name] = max(near.get(name, 0.0), 0.5 ** ((last_line - line) / HALF_LIFE_LINES))
    return near


def _structural(
    collection: Collection, code: str, code_after: str, path: str | None, language: str
) -> dict[tuple[str, int], Candidate]:
    """Candidates from the symbol table: imported names, their members, unique names."""
    conn = collection.conn
    own = extract_symbols(code + code_after, language)
    near = nearness(code, {ref.line for ref in own.imports})
    paths = _paths(collection)
    candidates: dict[tuple[str, int], Candidate] = {}

    def add(row: DefinitionRow, score: float) -> Candidate:
        found = candidates.setdefault((row.path, row.start_line), Candidate(row))
        found.score = max(found.score, score)
        return found

    bound: set[str] = set()
    for ref in own.imports:
        bound.add(ref.alias.split(".")[0])
        targets = resolve_import(ref, path or "", language, paths)
        if not targets:
            continue
        # A JS default import binds whatever the module exports by default: try its alias.
        name = ref.alias if ref.name == "default" else ref.name
        rows = [] if name in (None, "*") else _definitions_of(
            collection, name, targets, language, paths
        )
        if rows:
            use = near.get(ref.alias, 0.0)
            fresh = NOT_YET_USED if ref.alias not in near else 0.0
            for row in rows:
                add(row, IMPORTED + USED_NEAR * use + fresh)
            continue
        # A module bound by name (`import a.b as m`, `from pkg import module`, `*`): what
        # the code reaches through `m.` is the candidate; the rest of the module less so.
        for row in symbol_table.definitions_in(conn, targets):
            if row.qualname != row.name:
                continue  # members come with their class
            reach = near.get(row.name if ref.name == "*" else f"{ref.alias}.{row.name}", 0.0)
            add(row, IMPORTED * 0.5 + USED_NEAR * reach)
    # Names used near the cursor that the collection defines once: any language, no import.
    defined_here = {d.name for d in own.definitions}
    loose = [n for n, w in near.items()
             if "." not in n and n not in bound and n not in defined_here and w > 0.05]
    by_name: dict[str, list[DefinitionRow]] = {}
    for row in symbol_table.definitions_named(conn, loose):
        if row.path != path:
            by_name.setdefault(row.name, []).append(row)
    for name, rows in by_name.items():
        if len(rows) == 1:
            add(rows[0], UNIQUE_NAME + USED_NEAR * near[name] * 0.5)
    _add_members(collection, candidates, near)
    return candidates


def _definitions_of(
    collection: Collection, name: str, targets: list[str], language: str, paths: frozenset[str],
) -> list[DefinitionRow]:
    """Top-level definitions named ``name`` in ``targets``, following re-exports."""
    conn = collection.conn
    for _ in range(REEXPORT_DEPTH):
        rows = [r for r in symbol_table.definitions_in(conn, targets)
                if r.name == name and r.qualname == name]
        if rows:
            return rows
        # `from .core import Client` in pkg/__init__.py: look where that file got it from.
        onward: list[str] = []
        for target in targets:
            for row in symbol_table.imports_of(conn, target):
                if row.alias == name and row.name not in (None, "*"):
                    ref = ImportRef(*row)
                    onward.extend(resolve_import(ref, target, language, paths))
                    name = ref.name or name
        if not onward:
            return []
        targets = onward
    return []


def _add_members(
    collection: Collection, candidates: dict[tuple[str, int], Candidate], near: dict[str, float]
) -> None:
    """A class candidate's outline lists its members' signatures, which score on their own."""
    classes = [c for c in candidates.values() if c.row.kind == "class"]
    if not classes:
        return
    rows = symbol_table.definitions_in(collection.conn, sorted({c.row.path for c in classes}))
    for cls in classes:
        prefix = cls.row.qualname + "."
        cls.members = [r for r in rows if r.qualname.startswith(prefix)
                       and r.qualname.count(".") == cls.row.qualname.count(".") + 1]
        for member in cls.members:
            used = max((w for n, w in near.items() if n.endswith("." + member.name)), default=0.0)
            score = cls.score * MEMBER_SHARE + USED_NEAR * used
            found = candidates.setdefault((member.path, member.start_line), Candidate(member))
            found.score = max(found.score, score)


def _add_similar(
    collection: Collection,
    code: str,
    path: str | None,
    rules: SearchFilters,
    candidates: dict[tuple[str, int], Candidate],
) -> None:
    """Units like the last lines of ``code`` (RepoCoder), scored by rank."""
    window = "\n".join(code.rstrip("\n").split("\n")[-SIMILAR_WINDOW_LINES:]).strip()
    if not window:
        return
    exclude = (*rules.exclude, path) if path else rules.exclude
    scoped = SearchFilters(include=rules.include, exclude=exclude, languages=rules.languages)
    hits = search(collection, window, SIMILAR_HITS, mode="hybrid", filters=scoped)
    for rank, hit in enumerate(hits):
        row = DefinitionRow(hit.path, hit.language, hit.symbol or "", hit.symbol or "",
                            hit.kind, hit.start_line, hit.end_line, hit.start_line, "")
        found = candidates.setdefault((hit.path, hit.start_line), Candidate(row))
        found.score += SIMILAR / math.sqrt(rank + 1)


def _already_in_prompt(collection: Collection, candidate: Candidate, prompt: set[str]) -> bool:
    """The definition's header is in the code already (an unknown path: the same file)."""
    lines = _lines(collection, candidate.row.path)
    header = lines.get(candidate.row.start_line, "").strip()
    return len(header) > 8 and header in prompt


# ---- packing ---------------------------------------------------------------------------------


@dataclass
class _Packer:
    """Blocks of lines by file, their token costs, and the budget."""

    collection: Collection
    count: TokenCounter
    max_tokens: int
    blocks: dict[str, ContextBlock] = field(default_factory=dict)
    costs: dict[str, int] = field(default_factory=dict)

    @property
    def used(self) -> int:
        return sum(self.costs.values())

    def add(self, row: DefinitionRow, lines: Iterable[int], rank: int, limit: int) -> bool:
        """Add ``lines`` of ``row``'s file if the total stays within ``limit``."""
        text = _lines(self.collection, row.path)
        wanted = {n: text[n] for n in lines if n in text}
        block = self.blocks.get(row.path)
        if not wanted or (block is not None and wanted.keys() <= block.lines.keys()):
            return False
        merged = ContextBlock(
            row.path, row.language, {**(block.lines if block else {}), **wanted},
            min(rank, block.best_rank) if block else rank,
        )
        cost = self.count([merged.render()])[0] + 1  # + the blank line between blocks
        if self.used - self.costs.get(row.path, 0) + cost > limit:
            return False
        self.blocks[row.path], self.costs[row.path] = merged, cost
        return True


def _pack(
    collection: Collection,
    code: str,
    ranked: list[Candidate],
    max_tokens: int,
    count: TokenCounter,
) -> RagContext:
    packer = _Packer(collection, count, max_tokens)
    outline_limit = int(max_tokens * OUTLINE_SHARE)
    outlined = 0
    # Outlines first, until they hold their share (the one that crosses it may finish).
    for rank, cand in enumerate(ranked):
        if packer.used >= outline_limit:
            break
        packer.add(cand.row, _outline(collection, cand), rank, max_tokens)
        outlined = rank + 1
    for rank, cand in enumerate(ranked):
        if cand.row.kind != "class":  # a class is its outline; its methods come on their own
            packer.add(cand.row, range(cand.row.start_line, cand.row.end_line + 1), rank,
                       max_tokens)
    for rank, cand in enumerate(ranked[outlined:], start=outlined):
        packer.add(cand.row, _outline(collection, cand), rank, max_tokens)
    ordered = sorted(packer.blocks.values(), key=lambda b: b.best_rank)
    text = render(ordered)
    tokens = count([text])[0] if text else 0
    return RagContext(code[-200:], text, tokens, max_tokens, ordered)


def _outline(collection: Collection, cand: Candidate) -> list[int]:
    """Signature lines and the first docstring line; a class adds its members' signatures."""
    lines = _signature(collection, cand.row)
    for member in cand.members[:MAX_MEMBERS]:
        lines.extend(range(member.start_line, member.signature_end_line + 1))
    return lines


def _signature(collection: Collection, row: DefinitionRow) -> list[int]:
    lines = list(range(row.start_line, max(row.signature_end_line, row.start_line) + 1))
    if row.doc:
        text = _lines(collection, row.path)
        probe = row.doc[:20]
        for n in range(row.signature_end_line + 1, row.signature_end_line + 1 + DOC_LOOKAHEAD):
            if n > row.end_line:
                break
            lines.append(n)
            if probe in text.get(n, ""):
                break
    return lines


# ---- cached lookups (per collection generation) ------------------------------------------------

# Per open collection: (generation, {kind: value}); a write moves the generation on.
_CACHE: weakref.WeakKeyDictionary[Collection, tuple[int, dict[str, object]]] = (
    weakref.WeakKeyDictionary()
)
# File texts kept per collection at most (a few hundred KiB each at worst).
_CACHE_ITEMS = 512


def _cached(collection: Collection, kind: str, make: Callable[[], object]) -> object:
    now = db.generation(collection.conn)
    generation, values = _CACHE.get(collection, (None, {}))
    if generation != now or len(values) >= _CACHE_ITEMS:
        values = {}
        _CACHE[collection] = (now, values)
    if kind not in values:
        values[kind] = make()
    return values[kind]


def _paths(collection: Collection) -> frozenset[str]:
    """The collection's paths; frozen, so that resolve_import keeps its index of them."""
    got = _cached(collection, "paths", lambda: frozenset(symbol_table.paths(collection.conn)))
    assert isinstance(got, frozenset)
    return got


def _lines(collection: Collection, path: str) -> dict[int, str]:
    got = _cached(collection, f"lines:{path}",
                  lambda: symbol_table.file_lines(collection.conn, path))
    assert isinstance(got, dict)
    return got


def _main_language(collection: Collection) -> str:
    def most_common() -> str:
        row = collection.conn.execute(
            "SELECT language FROM files GROUP BY language ORDER BY COUNT(*) DESC LIMIT 1"
        ).fetchone()
        return str(row[0]) if row else "text"

    got = _cached(collection, "language", most_common)
    assert isinstance(got, str)
    return got
