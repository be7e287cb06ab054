"""Code-at-cursor context: what the code at a cursor needs from the rest of the collection.

A coder model completing a line mostly needs the signatures (and, budget
permitting, the bodies) of the functions and classes that line is about to use,
defined in other files. Candidates come from these signals, each measured in
``bench/completion.py`` (results in ``bench/results/completion.md``):

1. the symbol table: the names the code imports, resolved to definitions of
   the collection (re-exports followed), and names it uses that the collection
   defines exactly once;
2. nearness: a name used just above the cursor, or imported and not used yet,
   weighs more than one used at the top of the file;
3. similar code: lexical (BM25) search with the last lines as the query, as
   RepoCoder does (dense search of the same window added 0.6 points, not significant,
   for a third of the time);
4. how the collection uses a module: of a module imported whole, the members
   other files reach through it most (``events.get_running_loop``) come first;
5. the function open at the cursor (``enclosing.py``): what returns what it returns,
   and what is named like it, come earlier.

A linear model fitted on the tuning sets (``candidate_ranker.py``) then orders the best 150
by that evidence and by what each candidate is (a method or a free function, test code, a
name many definitions share, one the last lines already use).

Packing puts a compact outline (signature and first docstring line) of many
candidates first, then whole bodies of the best while the budget lasts. The
file being edited never takes budget: the prompt holds it already.
"""

from __future__ import annotations

import itertools
import math
import posixpath
import re
import sqlite3
import weakref
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import PurePath
from typing import Literal

from embedstore.chunking.grammars import GRAMMARS
from embedstore.chunking.projects import PROJECT_FILES, Project, read_project
from embedstore.chunking.symbols import (
    ANY_VALUE,
    ImportRef,
    extract_symbols,
    glob_binds_imports,
    identifiers,
    implicit_imports,
    import_may_bind_module,
    import_passes_on,
    naming_binds_siblings,
    package_clause,
    package_siblings,
    resolve_import,
    rust_modules_placed,
)
from embedstore.chunking.types import TokenCounter
from embedstore.errors import UserInputError
from embedstore.languages import (
    Declared,
    callable_through,
    detect_language,
    in_test_item,
    is_private_member,
    is_test_code,
    line_comment,
    outline_skips_annotations,
    reachable_from,
    tested_file_name,
)
from embedstore.lexical import plain_names, split_identifier
from embedstore.retrieval.candidate_ranker import Candidate, census, rerank
from embedstore.retrieval.context import (
    ContextBlock,
    RagContext,
    encoder_prompt_counter,
    render,
)
from embedstore.retrieval.enclosing import enclosing_function, returned_types
from embedstore.retrieval.filters import SearchFilters
from embedstore.retrieval.receivers import Receiver, receivers, returned_type
from embedstore.retrieval.search import allowed_file_ids, lexical_hits
from embedstore.retrieval.tokenizers import load_tokenizer
from embedstore.store import db, symbol_table
from embedstore.store.collection import Collection
from embedstore.store.symbol_table import DefinitionRow

# Nearness: a use this many lines above the cursor counts half as much as one on the line above.
HALF_LIFE_LINES = 8.0
# Score parts of a definition the code imports by name (see _structural).
IMPORTED = 1.0
USED_NEAR = 2.0
NOT_YET_USED = 1.5
# A definition of a module the code imports whole weighs this share of an imported name.
MODULE_SHARE = 0.5
# A module's definition weighs up to this much more the more the collection's files reach
# it through the module (log of its uses over log of the most used member's).
REPO_USES = 1.0
# A name the collection defines once, used in the code but not imported (any language).
UNIQUE_NAME = 0.5
# A top-level definition of another file of the edited file's package (Go), not yet used.
SIBLING = 0.25
# ... of the file a test file is named after.
TESTED = 1.0
# A sibling's definition weighs up to this much more the more the package's files use its
# name (log of its uses over log of the most used one's): of a package's hundreds of
# functions, those its files call most are the likely next call, as REPO_USES has it for
# a module's members.
SIBLING_USES = 0.5
# Members of a class the code refers to: what the next `obj.method(` may call.
MEMBER_SHARE = 0.5
# The first member of a class a name used near the cursor holds (`x = Cls()`, `x: Cls`).
RECEIVER = 2.0
# A function that returns what the function at the cursor returns, all its type names.
EXPECTED = 0.5
# A function named as the function at the cursor, all the words of its name.
NAMESAKE = 0.5
# A member defined beside one the code calls through a name holding its class: a class
# keeps related members together (clap's `is_*_set` getters, a builder's setters), and
# code that calls one goes on to its neighbours. It weighs as that call's nearness would
# (USED_NEAR), halving every NEIGHBOUR_HALF_LIFE members away in source order.
NEIGHBOUR_HALF_LIFE = 2.0
# Similar code (RepoCoder): the last lines as a query; its hits' scores by rank.
SIMILAR_WINDOW_LINES = 10
# ... and at most this many of their last characters: a query's cost grows with its length,
# and ten lines of real code are far shorter (one line of 200k `f(` took 0.85 s to split).
SIMILAR_WINDOW_CHARS = 2000
SIMILAR_HITS = 20
SIMILAR = 1.0
# Below this BM25 a hit shares only words that at least half the units hold (SQLite's BM25
# weighs such a word 1e-6): it is not like the code, and ranking it would only rank its
# neighbours in the file.
SIMILAR_MIN_BM25 = 1e-3
# A candidate that the similar code uses: what code like this calls.
CO_USED = 1.0
# The outline of many candidates takes at most this share before bodies are added.
OUTLINE_SHARE = 0.9
# The best candidates' outlines carry their docstring's first line, one per this many
# tokens of budget and at most MAX_DOCUMENTED; the wider set past them is signatures
# alone, twice as many in the same tokens (what a small budget needs most).
TOKENS_PER_DOCUMENTED = 64
MAX_DOCUMENTED = 30
# At most this many member signatures in one class's outline; and the members of the
# candidate ranked r take at most 1/(r + 2)^2 of the budget (a quarter, a ninth, ...):
# all members together never take more than 0.65 of it (pi^2/6 - 1), so classes of sixty
# methods cannot crowd out the wide set. (1/(r + 2), a series without a bound: stdlib
# -1.5 points, train-set packages -2.7.)
MAX_MEMBERS = 100
# Follow `from .core import X` in a package's __init__ at most this deep.
REEXPORT_DEPTH = 3
# Lines a docstring's first sentence may start below the signature.
DOC_LOOKAHEAD = 2
MAX_CODE_CHARS = 1_000_000
# Candidates packing looks at: outlines of the first, bodies of the very first. Past them
# a 4,096-token budget is full on every corpus measured.
MAX_OUTLINED = 150
MAX_BODIES = 30
# No tokenizer packs code denser than this: a longer text surely costs more tokens.
MAX_CHARS_PER_TOKEN = 8
# Below this much budget left, no outline fits any more.
MIN_PIECE_TOKENS = 8
# A block's second run costs about this much: its `…` line.
RUN_TOKENS = 1


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
    ranked = ranked_candidates(collection, code, code_after=code_after, path=path,
                               filters=filters, similar=similar)
    ranked = rerank(ranked, code, census(collection.conn, ranked), path)
    # Lines' token counts are kept between answers for the tokenizers known by name.
    if isinstance(tokenizer, str):
        count, costs = load_tokenizer(tokenizer), _token_costs(collection, tokenizer)
    elif tokenizer is None:
        count, costs = encoder_prompt_counter(collection), _token_costs(collection, "")
    else:
        count, costs = tokenizer, _TokenCosts()
    return _pack(collection, code, ranked, max_tokens, count, costs)


def ranked_candidates(
    collection: Collection,
    code: str,
    *,
    code_after: str | None = None,
    path: str | None = None,
    filters: SearchFilters | None = None,
    similar: bool = True,
) -> list[Candidate]:
    """The MAX_OUTLINED best candidates by their evidence alone, before the fitted order
    (candidate_ranker.py): what ``bench/fit_ranker.py`` learns from."""
    _refresh(collection)
    rules = filters or SearchFilters()
    language = detect_language(path) if path else _main_language(collection)
    candidates = _structural(collection, code, code_after or "", path, language)
    if similar:
        _add_similar(collection, code, path, rules, candidates)
    _order_members(candidates)
    prompt_lines = {line.strip() for line in code.split("\n") if line.strip()}
    # Code that is not a test never uses a test's definitions (Go cannot even see them);
    # a test is shown another test as an example, not as something to call, so whether it
    # could name it does not matter.
    tests_wanted = path is None or is_test_code(path, language) or in_test_item(code, language)

    def usable(c: Candidate) -> bool:
        row = c.row
        if (row.path == path or not rules.allows(row.path, row.language)
                or _already_in_prompt(collection, c, prompt_lines, path)):
            return False
        if is_test_code(row.path, row.language, row.qualname, _header_text(collection, row)):
            return tests_wanted
        return _reachable(collection, row, path)

    wanted = filter(usable, sorted(candidates.values(), key=lambda c: -c.score))
    ranked = list(itertools.islice(wanted, MAX_OUTLINED))  # all that packing looks at
    for cand in ranked:
        cand.members = [m for m in cand.members if _reachable(collection, m, path)]
    return ranked


def _reachable(collection: Collection, row: DefinitionRow, path: str | None) -> bool:
    """Whether the code at ``path`` can name ``row``, by its language's visibility rules
    (``languages.reachable_from``: a Rust item without `pub` in another module, a name a
    TypeScript module does not export...): code there cannot call it, so it would only
    take budget."""
    rule = reachable_from(row.language)
    if rule is None or path is None:
        return True
    text = _lines(collection, row.path)
    naming = _naming_line(collection, row)
    # A Rust `impl` block is no definition: its method's owner is the block's first line.
    owner = ("\n".join(text.get(n, "") for n in _owner_header(collection, row))
             or text.get(_enclosing_lines(collection, row.path).get(naming, 0), ""))
    return rule(Declared(row.path, row.qualname, text.get(naming, ""), owner,
                         _file_text(collection, row.path)), path)


def _file_text(collection: Collection, path: str) -> str:
    """A file's indexed lines in order as one text, one string per file while it is cached
    (its units come from the store in no set order)."""
    got = _of_file(collection, "file texts", path, lambda conn, file: "\n".join(
        line for _, line in sorted(_lines(collection, file).items())))
    assert isinstance(got, str)
    return got


# A `where` clause's first line continues the head above it.
_WHERE = re.compile(r"where\b")


def _enclosing_lines(collection: Collection, path: str) -> dict[int, int]:
    """Each line of a file -> the nearest line above it, indented less, that starts with a
    word: the head of the block it is in (`impl<T> Display for Point<T> {`). Lines that
    start otherwise (`{`, `}`, comments, attributes) and `where` clauses continue a head."""
    def read(conn: sqlite3.Connection, file: str) -> dict[int, int]:
        heads: list[tuple[int, int]] = []  # (indentation, line number), outermost first
        found: dict[int, int] = {}
        for number, line in sorted(_lines(collection, file).items()):
            stripped = line.lstrip()
            if not stripped[:1].isalpha() or _WHERE.match(stripped):
                continue
            indent = len(line) - len(stripped)
            while heads and heads[-1][0] >= indent:
                heads.pop()
            if heads:
                found[number] = heads[-1][1]
            heads.append((indent, number))
        return found

    got = _of_file(collection, "enclosing lines", path, read)
    assert isinstance(got, dict)
    return got


def _order_members(candidates: dict[tuple[str, int], Candidate]) -> None:
    """Each class's outline lists its members as their own evidence ranks them (used near
    the cursor, by the collection, by similar code, through a receiver): the likely next
    `x.method(` first, where a budget cut keeps it. Ties keep the outline's own order."""
    def score(member: DefinitionRow) -> float:
        found = candidates.get((member.path, member.start_line))
        return found.score if found is not None else 0.0

    for cand in candidates.values():
        if len(cand.members) > 1:
            cand.members.sort(key=lambda m: -score(m))


def nearness(code: str, skip_lines: set[int]) -> dict[str, float]:
    """Each identifier of ``code`` (dotted chains too) -> how near the end its last use is, 0..1.

    ``skip_lines`` (the imports) bind names; they do not use them.
    """
    cursor = code.count("\n") + 1
    return _nearest(identifiers(code), skip_lines, lambda line: cursor - line)


def nearness_below(code: str, code_after: str, skip_lines: set[int]) -> dict[str, float]:
    """As ``nearness``, for the text after the cursor (fill-in-the-middle): its first line is
    as near as the line above the cursor. ``skip_lines`` count from the top of ``code``."""
    cursor = code.count("\n") + 1
    uses = [(name, line + cursor - 1) for name, line in identifiers(code_after)]
    return _nearest(uses, skip_lines, lambda line: line - cursor + 1)


def _nearest(uses: Iterable[tuple[str, int]], skip_lines: set[int],
             distance: Callable[[int], int]) -> dict[str, float]:
    near: dict[str, float] = {}
    for name, line in uses:
        if line not in skip_lines:
            near[name] = max(near.get(name, 0.0), 0.5 ** (distance(line) / HALF_LIFE_LINES))
    return near


def _structural(
    collection: Collection, code: str, code_after: str, path: str | None, language: str
) -> dict[tuple[str, int], Candidate]:
    """Candidates from the symbol table: imported names, their members, unique names."""
    conn = collection.conn
    own = extract_symbols(code + code_after, language)
    binding = {n for ref in own.imports for n in ref.lines}
    # An import below the cursor (a test module's `use crate::x::Y`) binds for the code below.
    lines_above = code.count("\n") + (not code.endswith("\n"))
    imports = [ref for ref in own.imports if ref.line <= lines_above]
    # Given the code after the cursor (fill-in-the-middle), a name used there and not above
    # may be the one the cursor is about to use first; one used above keeps that use's weight.
    near = {**nearness_below(code, code_after, binding), **nearness(code, binding)}
    paths = _paths(collection)
    candidates: dict[tuple[str, int], Candidate] = {}

    def add(row: DefinitionRow, score: float, named: bool = True) -> Candidate:
        found = candidates.setdefault((row.path, row.start_line), Candidate(row))
        found.score = max(found.score, score)
        found.named = found.named or named
        return found

    def add_module(alias: str, glob: bool, modules: list[str], base: float,
                   imported_by_code: bool = False) -> None:
        # A module bound by name (`import a.b as m`, `from pkg import module`, `*`): each of
        # its definitions may come next, as likely as the module is; what the code already
        # reaches through `m.` more so.
        # Of a module's hundreds of definitions, those the collection reaches through it
        # most (`events.get_running_loop`, `from . import events` elsewhere) come first.
        # As in a class, the definitions beside those the code reaches through `m.` come
        # next (_neighbours); not a glob's, whose bare names say less (the JDK: -0.8 at 512).
        uses = symbol_table.member_uses(conn, sorted({alias, *map(_stem, modules)}))
        most = math.log1p(max(uses.values(), default=0))
        rows = [row for row in _definitions_in(collection, modules)
                if row.qualname == row.name]  # members come with their class
        # A module the code imports whole also holds what it passes on by name (`pub use`).
        # Not one reached by path alone (`crate::`): the crate root's dozens of re-exports
        # took the small budget (validation-multi's Rust -2.7 at 512 tokens).
        if imported_by_code:
            rows += _passed_on_by_name(collection, modules, language, paths)
        reached = {row.name: near.get(row.name if glob else f"{alias}.{row.name}", 0.0)
                   for row in rows}
        beside = _neighbours(rows, {} if glob else {n: w for n, w in reached.items() if w})
        for row in rows:
            popular = math.log1p(uses.get(row.name, 0)) / most if most else 0.0
            add(row, MODULE_SHARE * base + USED_NEAR * (reached[row.name] + beside[id(row)])
                + REPO_USES * popular)

    bound: set[str] = set()
    heads: dict[str, list[str]] = {}  # a name bound to modules -> their files
    for ref, targets, how in _bindings(collection, imports, path or "", language, paths):
        bound.add(ref.alias.split(".")[0])
        if not targets:
            continue
        # A JS default import binds whatever the module exports by default: try its alias.
        name = ref.alias if ref.name == "default" else ref.name
        rows, modules = (
            ([], targets if how == "path" else _modules_passed_on(collection, targets,
                                                                  language, paths))
            if name in (None, "*") else _follow(collection, name, targets, language, paths)
        )
        # A module reached by path alone earns what the code and the collection reach
        # through it, nothing for its head's own uses (`pub(crate)`) nor for the modules it
        # passes on whole (regex's lib.rs: eight): each lifted every item alike, -1.7
        # points at 512 tokens on validation-multi's Rust for none gained.
        use = near.get(ref.alias, 0.0) if how != "path" else 0.0
        # A name only passed on by a glob is not one the code chose to import: it earns
        # what its uses near the cursor and in the collection say (half or a quarter of an
        # import's weight instead: the same on train-multi's Rust at 2,048 tokens, -0.5 at 512).
        named = how == "import"
        imported = IMPORTED if named else 0.0
        # An import used nowhere yet is likely used next; one that neither the code above
        # nor the code below uses (fill-in-the-middle) is most likely used at the cursor.
        fresh = NOT_YET_USED if named and ref.alias not in near else 0.0
        if rows:
            for row in rows:
                add(row, imported + USED_NEAR * use + fresh)
            continue
        if ref.name != "*":
            heads[ref.alias] = modules
        add_module(ref.alias, ref.name == "*", modules, imported + USED_NEAR * use + fresh,
                   how == "import" and ref.name != "*")
    _add_written_paths(collection, near, heads, language, paths, add, add_module)
    # The files of the same package (Go's, Java's folder) share its names with no import; a test
    # file's tests mostly call the file it is named after (`mux_test.go`: `mux.go`).
    subject = tested_file_name(path, language) if path else None
    siblings = _siblings(collection, code, path, language)
    package_uses = _name_uses(collection, siblings)
    most_used = math.log1p(max(package_uses.values(), default=0))
    # Where naming a package's class imports it (Java), a name the file writes anywhere,
    # before the cursor or after it, weighs as an imported one.
    written = ({name for name, _ in identifiers(code + code_after)}
               if naming_binds_siblings(language) else set())
    for row in _definitions_in(collection, siblings):
        if row.qualname == row.name:
            share = TESTED if posixpath.basename(row.path) == subject else SIBLING
            if row.name in written:
                share = max(share, IMPORTED)
            popular = math.log1p(package_uses.get(row.name, 0)) / most_used if most_used else 0
            # In scope unnamed, a sibling is reached by no name the code writes.
            add(row, share + USED_NEAR * near.get(row.name, 0.0) + SIBLING_USES * popular,
                named=row.name in written)
    # Names used near the cursor that the collection defines once: any language, no import.
    defined_here = {d.name for d in own.definitions}
    loose = [n for n, w in near.items()
             if "." not in n and n not in bound and n not in defined_here and w > 0.05]
    by_name: dict[str, list[DefinitionRow]] = {}
    for row in symbol_table.definitions_named(conn, loose):
        if row.path != path:
            by_name.setdefault(row.name, []).append(row)
    # The name of the function open at the cursor, which its unfinished text may not parse
    # as, is used in its header: a delegate's callee (the JDK's) or a twin in a file the code
    # does not reach (nom's `streaming` and `complete` parsers), not a name the code chose.
    enclosing = enclosing_function(code, language)
    for name, rows in by_name.items():
        if len(rows) == 1:
            add(rows[0], UNIQUE_NAME + USED_NEAR * near[name] * 0.5,
                named=enclosing is None or name != enclosing.name)
    # `x.hour()` with x a NaiveDateTime says nothing of the other types' `hour`: a use
    # through a name whose class the code shows speaks for that class alone.
    # A class imported under another name (`use oldtime::Duration as OldDuration`) is
    # defined under its own.
    renamed = {ref.alias: ref.name for ref in imports
               if ref.name not in (None, "*", "default") and ref.alias != ref.name}
    holders = {name: replace(found, source=renamed.get(found.source, found.source))
               for name, found in receivers(code, language).items()}
    attribute_near = _attribute_near(near, holders)
    _add_members(collection, candidates, attribute_near)
    _add_receivers(collection, holders, path, language, candidates, near, attribute_near)
    if enclosing is not None:
        _add_expected(collection, enclosing.returns, candidates)
        _add_namesakes(enclosing.name, candidates)
    return candidates


def _add_expected(
    collection: Collection, expected: frozenset[str], candidates: dict[tuple[str, int], Candidate]
) -> None:
    """The functions that return what the function at the cursor returns (enclosing.py), by
    the share of the type names they write: `Result` says little, `NaiveDate` much."""
    if not expected:
        return
    returns: dict[tuple[str, int], frozenset[str]] = {}
    for key, cand in candidates.items():
        row = cand.row
        if row.kind in ("function", "method"):
            text = _lines(collection, row.path)
            signature = "\n".join(text.get(n, "") for n in range(
                _naming_line(collection, row), row.signature_end_line + 1))
            if got := returned_types(signature, row.language, row.qualname.rpartition(".")[0]):
                returns[key] = got
    _add_shared(expected, returns, EXPECTED, candidates)


def _add_namesakes(name: str, candidates: dict[tuple[str, int], Candidate]) -> None:
    """The functions named like the function at the cursor (`read_buf`: `default_read_buf`),
    by the share of the words of their names: a function often delegates to its namesake."""
    words = {key: frozenset(split_identifier(c.row.name)) for key, c in candidates.items()
             if c.row.kind in ("function", "method")}
    _add_shared(frozenset(split_identifier(name)), words, NAMESAKE, candidates)


def _add_shared(
    wanted: frozenset[str], found: dict[tuple[str, int], frozenset[str]], weight: float,
    candidates: dict[tuple[str, int], Candidate],
) -> None:
    """Each candidate of ``found`` earns ``weight`` times the share of what it has in common
    with ``wanted``, each name weighing as rare as it is among ``found`` (its idf)."""
    if not wanted:
        return
    seen = Counter(name for names in found.values() for name in names)
    rarity = {name: math.log((len(found) + 1) / seen.get(name, 1)) for name in wanted.union(seen)}
    for key, names in found.items():
        if shared := sum(rarity[name] for name in wanted & names):
            candidates[key].score += weight * shared / sum(rarity[n] for n in wanted | names)


def _add_written_paths(
    collection: Collection, near: dict[str, float], heads: dict[str, list[str]], language: str,
    paths: frozenset[str], add: Callable[[DefinitionRow, float], object],
    add_module: Callable[[str, bool, list[str], float], None],
) -> None:
    """What the code reaches by a path through a bound module, as if it imported it:
    `crate::raw::TOKEN` is `use crate::raw::TOKEN`, and `crate::raw` binds raw.rs as
    `use crate::raw` would. Each step follows the module's own imports and re-exports
    (`mod raw;`, `pub use crate::ser::to_string`), as an import would."""
    reached: dict[tuple[str, ...], float] = {}  # module files -> nearest use through them
    for chain, weight in near.items():
        head, *rest = chain.split(".")
        modules = heads.get(head)
        prefix = head
        for segment in rest:
            if not modules:
                break
            rows, modules = _follow(collection, segment, modules, language, paths)
            prefix = f"{prefix}.{segment}"
            for row in rows:
                add(row, IMPORTED + USED_NEAR * weight)
            if modules and prefix not in heads:
                key = (prefix, *modules)
                reached[key] = max(reached.get(key, 0.0), weight)
    for (prefix, *modules), weight in reached.items():
        add_module(prefix, False, modules, IMPORTED + USED_NEAR * weight)


def _siblings(collection: Collection, code: str, path: str | None, language: str) -> list[str]:
    """The files of the edited file's package, those that declare the same one."""
    if path is None:
        return []
    files = package_siblings(path, language, _paths(collection))
    own = package_clause(code.split("\n"), language)
    return [f for f in files
            if package_clause(_in_order(_lines(collection, f)), language) in (own, None)]


def _name_uses(collection: Collection, paths: list[str]) -> Counter[str]:
    """How often each plain name occurs in the files at ``paths`` (a package's), their own
    definitions' lines aside."""
    uses: Counter[str] = Counter()
    for path in paths:
        got = _of_file(collection, "name uses", path, lambda conn, path: _names_used(
            _lines(collection, path), _every_definition(collection, path)))
        assert isinstance(got, Counter)
        uses.update(got)
    return uses


def _names_used(lines: dict[int, str], definitions: list[DefinitionRow]) -> Counter[str]:
    heads = {row.start_line for row in definitions}
    text = "\n".join(line for n, line in sorted(lines.items()) if n not in heads)
    return Counter(name for name, _ in identifiers(text) if "." not in name)


def _in_order(lines: dict[int, str]) -> Iterator[str]:
    return (lines[n] for n in sorted(lines))


# Files that stand for their folder's module.
_FOLDER_MODULES = ("__init__.", "mod.rs")


def _stem(path: str) -> str:
    """The module name a file stands for: `a/b.py`, `a/b/__init__.py` and `a/b/mod.rs` are
    all `b`."""
    file = PurePath(path)
    return file.parent.name if file.name.startswith(_FOLDER_MODULES) else file.stem


def _resolve(
    collection: Collection, ref: ImportRef, importer: str, language: str, paths: frozenset[str]
) -> list[str]:
    """The files ``ref`` imports, as the collection's go.mod and tsconfig.json files and
    the indexed folder's name (a package indexed from inside) have it."""
    return resolve_import(ref, importer, language, paths, _project(collection))


# How the code came by a name (see _bindings): its own import, a glob import's module's
# import, or a path the language reaches with no import.
_How = Literal["import", "glob", "path"]


def _bindings(
    collection: Collection, imports: list[ImportRef], importer: str, language: str,
    paths: frozenset[str],
) -> list[tuple[ImportRef, list[str], _How]]:
    """What the code's imports bind: (import, the files it resolves to, how).

    A glob import also binds what its module's own imports bind: `use super::*` in syn's
    `expr.rs` binds the `mod verbatim;` of `lib.rs`, so `verbatim::between(` is in scope,
    as Python's `from m import *` takes the names m imported. Last come the modules a path
    reaches with no import: Rust's `super::check_json(` in chrono's tests, `crate::` and
    `syn::parse_str(` from syn's tests/ (+5.7 points at 2,048 tokens on train-multi's Rust).
    """
    found: list[tuple[ImportRef, list[str], _How]] = []
    for ref in imports:
        modules = _resolve(collection, ref, importer, language, paths)
        found.append((ref, modules, "import"))
        if ref.name != "*" or not glob_binds_imports(language):
            continue
        for module in modules:
            passed = [ImportRef(*row) for row in _imports(collection, module)
                      if row.name != "*"]  # its globs: _modules_passed_on follows them
            found.extend((onward, _resolve(collection, onward, module, language, paths), "glob")
                         for onward in passed)
    found.extend((ref, _resolve(collection, ref, importer, language, paths), "path")
                 for ref in implicit_imports(language, _project(collection)))
    return found


def _modules_passed_on(
    collection: Collection, modules: list[str], language: str, paths: frozenset[str]
) -> list[str]:
    """``modules`` and those they pass on whole (`export * from "./x"` in a barrel, Python's
    `from .core import *` in a package, Rust's `pub use errors::*`): what a namespace import
    reaches. Not what a module's glob only takes in (a test module's `use super::*`)."""
    found = list(modules)
    todo = list(modules)
    for _ in range(REEXPORT_DEPTH):
        onward = [t for module in todo for row in _imports(collection, module)
                  if row.name == "*" and import_passes_on(
                      language, _lines(collection, module).get(row.line, "").strip())
                  for t in _resolve(collection, ImportRef(*row), module, language, paths)]
        todo = [t for t in dict.fromkeys(onward) if t not in found]
        found.extend(todo)
    return found


def _follow(
    collection: Collection, name: str, targets: list[str], language: str, paths: frozenset[str],
) -> tuple[list[DefinitionRow], list[str]]:
    """What ``name`` imported from ``targets`` is: its top-level definitions (or members
    of the class a file is named for: Java's `import static a.b.Bridge.SCHEME`), or else
    the files of the module it names, following re-exports (``from . import reduction``
    in a file the code imports ``reduction`` from)."""
    for _ in range(REEXPORT_DEPTH):
        # As Python has it: `from pkg import x` is what pkg/__init__ defines as x, else the
        # submodule x (whose own definitions may include an x, as ElementTree's does).
        modules = ([t for t in targets if _stem(t) == name]
                   if import_may_bind_module(language) else [])
        owners = [t for t in targets if t not in modules]
        rows = [r for r in _definitions_in(collection, owners)
                if r.name == name and r.qualname in (name, f"{_stem(r.path)}.{name}")]
        if rows:
            return rows + _passed_on_by_glob(collection, name, owners, language, paths), []
        if modules:  # with what they pass on whole: `pub use errors::*` makes `c::ERROR_X`
            return [], _modules_passed_on(collection, modules, language, paths)
        # `from .core import Client` in pkg/__init__.py: look where that file got it from.
        onward: list[str] = []
        # A barrel's `export * as PubSub from "./PubSub"` passes on a module under a name.
        spaces = [found for target in targets for row in _imports(collection, target)
                  if row.alias == name and row.name is None
                  for found in _resolve(collection, ImportRef(*row), target, language, paths)]
        if spaces:
            return [], _modules_passed_on(collection, spaces, language, paths)
        # A barrel's `export * from "./x"` passes on x's names under their own.
        for target in targets:
            for row in _imports(collection, target):
                if (row.alias == name and row.name not in (None, "*")) or row.name == "*":
                    ref = ImportRef(*row)
                    onward.extend(_resolve(collection, ref, target, language, paths))
                    name = ref.name if ref.name not in (None, "*") else name
        if not onward:
            return [], []
        targets = onward
    return [], []


def _passed_on_by_name(
    collection: Collection, modules: list[str], language: str, paths: frozenset[str],
) -> list[DefinitionRow]:
    """The definitions ``modules`` import by name and pass on as their own (tokio's
    `pub use self::bounded::{channel, Sender}` in sync/mpsc/mod.rs, so that `mpsc::channel(`
    is bounded.rs's), under the name they have there."""
    found: list[DefinitionRow] = []
    for module in modules:
        text = _lines(collection, module)
        for row in _imports(collection, module):
            if row.name in (None, "*") or row.alias != row.name or not import_passes_on(
                    language, text.get(row.line, "").strip()):
                continue
            targets = _resolve(collection, ImportRef(*row), module, language, paths)
            found += _follow(collection, row.name, targets, language, paths)[0]
    return found


def _passed_on_by_glob(
    collection: Collection, name: str, files: list[str], language: str, paths: frozenset[str],
) -> list[DefinitionRow]:
    """The definitions of ``name`` in the modules ``files`` pass on whole: a file may define
    a name and re-export a module's as well, one of them compiled in (regex's `literal`:
    `#[cfg(feature)] pub use self::imp::*;` and, failing the feature, an inline `mod imp`
    with a stub `LiteralSearcher`), so either may be the one the code calls."""
    found: list[DefinitionRow] = []
    for file in files:
        for row in _imports(collection, file):
            if row.name == "*":
                targets = _resolve(collection, ImportRef(*row), file, language, paths)
                found += [r for r in _definitions_in(collection, targets)
                          if r.name == name and r.qualname == name]
    return found


# Kinds whose members come with them: classes, and structs, enums, traits and Go types
# (their methods are in impl blocks and receivers, stored under the type's name).
_HAS_MEMBERS = frozenset({"class", "type"})
def _package_files(collection: Collection, row: DefinitionRow) -> list[str]:
    """A Go type's methods: any file of its package (its folder)."""
    return _folders(collection).get(posixpath.dirname(row.path), [row.path])


def _crate_files(collection: Collection, row: DefinitionRow) -> list[str]:
    """A Rust type's methods: its `impl` blocks, in any file of its crate, unless the crate
    has another type of its name (whose `impl Name` could be either's)."""
    crate = max((c.source for c in _project(collection).rust_crates
                 if row.path.startswith(f"{c.source}/") or not c.source), key=len, default=None)
    if crate is None:
        return [row.path]
    files = _crate_sources(collection, crate)
    namesakes = [r for r in symbol_table.definitions_named(collection.conn, [row.name])
                 if r.kind in _HAS_MEMBERS and r.path in files]
    return sorted(files) if len(namesakes) == 1 else [row.path]


def _crate_sources(collection: Collection, folder: str) -> frozenset[str]:
    def find() -> frozenset[str]:
        inside = f"{folder}/" if folder else ""
        return frozenset(p for p in _paths(collection)
                         if p.startswith(inside) and p.endswith(".rs"))

    got = _cached(collection, f"crate:{folder}", find)
    assert isinstance(got, frozenset)
    return got


# Where a type's members may be defined, by language (elsewhere: its own file).
_MEMBER_FILES: dict[str, Callable[[Collection, DefinitionRow], list[str]]] = {
    "go": _package_files,
    "rust": _crate_files,
}


def _member_files(collection: Collection, row: DefinitionRow) -> list[str]:
    where = _MEMBER_FILES.get(row.language)
    return where(collection, row) if where is not None else [row.path]


def _add_members(
    collection: Collection, candidates: dict[tuple[str, int], Candidate],
    attribute_near: Mapping[str, float],
) -> None:
    """A class candidate's outline lists its members' signatures, which score on their own;
    ``attribute_near`` are the code's uses of attributes of values of no known class."""
    classes = [c for c in candidates.values() if c.row.kind in _HAS_MEMBERS]
    if not classes:
        return
    scopes = {id(c): _member_files(collection, c.row) for c in classes}
    # Members by (file, class): a class of the same name in another scope has its own.
    members_of: dict[tuple[str, str], list[DefinitionRow]] = {}
    for row in _definitions_in(collection, {p for files in scopes.values() for p in files}):
        owner, dot, _ = row.qualname.rpartition(".")
        if dot and not _private(collection, row):
            members_of.setdefault((row.path, owner), []).append(row)
    for cls in classes:
        members = [m for path in scopes[id(cls)]
                   for m in members_of.get((path, cls.row.qualname), [])]
        # What the collection reaches through the class's name (`Error::new`, `Bridge.TAG`),
        # as it does a module's members.
        uses = symbol_table.member_uses(collection.conn, [cls.row.name])
        most = math.log1p(max(uses.values(), default=0))
        popular = {m.name: math.log1p(uses.get(m.name, 0)) / most if most else 0.0
                   for m in members}
        # An outline cut short keeps what a caller needs first: the members used near the
        # cursor, those the collection uses most, the constructor, the public ones, then
        # the rest, each in source order.
        cls.members = sorted(members, key=lambda m: (
            -attribute_near.get(m.name, 0.0), -popular[m.name], m.name != "__init__",
            m.name.startswith("_")))
        for member in cls.members:
            used = attribute_near.get(member.name, 0.0)
            score = cls.score * MEMBER_SHARE + USED_NEAR * used + REPO_USES * popular[member.name]
            found = candidates.setdefault((member.path, member.start_line), Candidate(member))
            found.score = max(found.score, score)


def _private(collection: Collection, member: DefinitionRow) -> bool:
    """A member only its own class reaches (`private x: Foo`): code elsewhere never uses it."""
    return is_private_member(member.name, _header_text(collection, member), member.language)


def _attribute_near(near: dict[str, float], holders: Mapping[str, Receiver]) -> dict[str, float]:
    """`obj.method` near the cursor: the nearest use of each attribute name, except those
    through a name whose class the code shows (``holders``)."""
    found: dict[str, float] = {}
    for name, weight in near.items():
        if "." in name:
            receiver, _, last = name.rpartition(".")
            if receiver not in holders:
                found[last] = max(found.get(last, 0.0), weight)
    return found


def _add_receivers(
    collection: Collection, holders: Mapping[str, Receiver], path: str | None, language: str,
    candidates: dict[tuple[str, int], Candidate], near: dict[str, float],
    attribute_near: Mapping[str, float],
) -> None:
    """The members of the classes the names used near the cursor hold (receivers.py): what
    the next `x.` calls, those the code calls through that name or through a name of no
    known class (`self.environment.parse`) first, then public ones in source order,
    each after the first weighing less, so that one class cannot crowd out the rest; and
    those beside the members the code calls through that name (_neighbours). Only those
    the value can call as its name holds it (a Rust `&T`: `&self` methods; callable_through)."""
    held: dict[str, float] = {}  # class name -> how near its holder is used
    borrows: dict[str, str] = {}  # class name -> how its holders hold it, the freest
    # The code's chains by each of their heads (`a`, `a.b` for `a.b.c`): one pass over the
    # code's names, not one per holder (a suffix of 2,000 lines has thousands of names).
    chains: dict[str, list[tuple[str, float]]] = {}
    for chain, weight in near.items():
        head = ""
        for part in chain.split("."):
            head = f"{head}.{part}" if head else part
            if head in holders:
                chains.setdefault(head, []).append((chain, weight))
    called: dict[str, dict[str, float]] = {}  # class name -> member -> nearest call through it
    for name, found in holders.items():
        use, through = _reached_through(chains.get(name, []), name)
        for made in _classes_made_by(collection, found, language):
            held[made] = max(held.get(made, 0.0), use)
            borrows[made] = min(borrows.get(made, found.borrow), found.borrow, key=_FREEDOM.index)
            merged = called.setdefault(made, {})
            for attribute, weight in through.items():
                merged[attribute] = max(merged.get(attribute, 0.0), weight)
    if not held:
        return
    rows = [r for r in symbol_table.definitions_named(collection.conn, sorted(held))
            if r.kind in _HAS_MEMBERS]
    calls = _method_calls(collection)
    for name in held:
        of_name = [r for r in rows if r.name == name]
        # A class name several files define: the one the code imports, else the edited
        # file's own (Rust's `self`), else none.
        if len(of_name) > 1:
            of_name = sorted((r for r in of_name
                              if (r.path, r.start_line) in candidates or r.path == path),
                             key=lambda r: r.path == path)[:1]
        for row in of_name:
            cls = candidates.setdefault((row.path, row.start_line), Candidate(row))
            used = called[name]
            if not cls.members:
                _add_members(collection, {(row.path, row.start_line): cls}, used)
            # The edited file's members are in the prompt already: they take no place.
            reachable = [m for m in cls.members if m.path != path]
            if (can_call := callable_through(row.language)) is not None:
                owner = _header_text(collection, row)
                reachable = [m for m in reachable
                             if can_call(_header_text(collection, m), borrows[name], owner)]
            ordered = sorted(reachable, key=lambda m: (
                -max(used.get(m.name, 0.0), attribute_near.get(m.name, 0.0)),
                -calls.get(m.name, 0), m.name.startswith("_")))
            beside = _neighbours(cls.members, used)
            for order, member in enumerate(ordered):
                it = candidates.setdefault((member.path, member.start_line), Candidate(member))
                it.score = max(it.score, RECEIVER * held[name] / math.sqrt(order + 1)
                               + USED_NEAR * used.get(member.name, 0.0),
                               it.score + USED_NEAR * beside[id(member)])
                it.held = True


# How a name may hold a value, freest first (Rust: owned, `&mut`, `&`).
_FREEDOM = ("", "&mut", "&")


def _header_text(collection: Collection, row: DefinitionRow) -> str:
    """A definition's lines down to its signature's end: attributes, doc comment, header."""
    text = _lines(collection, row.path)
    return "\n".join(text.get(n, "") for n in range(row.start_line, row.signature_end_line + 1))


def _reached_through(
    chains: Iterable[tuple[str, float]], name: str
) -> tuple[float, dict[str, float]]:
    """How near the cursor ``name`` is used, and each attribute the code reaches through
    it (`cmd.get_name()`: get_name) with its nearest use, of the code's ``chains`` that
    start with ``name``."""
    use = 0.0
    through: dict[str, float] = {}
    prefix = name + "."
    for chain, weight in chains:
        use = max(use, weight)
        if chain != name:
            attribute = chain[len(prefix):].split(".", 1)[0]
            through[attribute] = max(through.get(attribute, 0.0), weight)
    return use, through


def _neighbours(members: list[DefinitionRow], used: Mapping[str, float]) -> dict[int, float]:
    """id(member) -> the nearness of the uses of the members beside it in its class's source
    order, halving every NEIGHBOUR_HALF_LIFE members away (a used member counts by its own
    use, not here)."""
    in_source = sorted(members, key=lambda m: (m.path, m.start_line))
    uses = [(place, used[m.name]) for place, m in enumerate(in_source) if m.name in used]
    return {id(member): 0.0 if member.name in used else max(
        (weight * 0.5 ** ((abs(place - at) - 1) / NEIGHBOUR_HALF_LIFE) for at, weight in uses),
        default=0.0) for place, member in enumerate(in_source)}


def _classes_made_by(collection: Collection, found: Receiver, language: str) -> list[str]:
    """The class ``found``'s source names, or that a function of that name returns."""
    name = found.source.rsplit(".", 1)[-1]
    if not found.called:
        return [name]
    rows = symbol_table.definitions_named(collection.conn, [name])
    if any(r.kind in _HAS_MEMBERS for r in rows):
        return [name]
    made = [returned_type(_header_text(collection, r), language)
            for r in rows if r.kind in ("function", "method")]
    return list(dict.fromkeys(m.rsplit(".", 1)[-1] for m in made if m))


def _add_similar(
    collection: Collection,
    code: str,
    path: str | None,
    rules: SearchFilters,
    candidates: dict[tuple[str, int], Candidate],
) -> None:
    """Units like the last lines of ``code`` (RepoCoder), scored by rank; and the
    candidates that such code uses, since code like this calls them too."""
    tail = code.rstrip("\n")[-SIMILAR_WINDOW_CHARS:]
    window = "\n".join(tail.split("\n")[-SIMILAR_WINDOW_LINES:]).strip()
    if not window:
        return
    # Units, not search results: which piece of a long unit matched does not matter here.
    # The edited file is dropped after the search: a file filter costs more than the search.
    ranked = lexical_hits(collection, window, SIMILAR_HITS + 5, allowed_file_ids(collection, rules))
    rows = db.unit_rows(collection.conn, [unit_id for unit_id, _ in ranked])
    hits = [rows[i] for i, score in ranked
            if score >= SIMILAR_MIN_BM25 and i in rows and rows[i].path != path][:SIMILAR_HITS]
    used: dict[str, float] = {}
    for rank, hit in enumerate(hits):  # best first: a name keeps its best hit's weight
        for name in plain_names(hit.text):
            used.setdefault(name, 1 / math.sqrt(rank + 1))
    for cand in candidates.values():
        cand.score += CO_USED * used.get(cand.row.name, 0.0)
    # A README's or a doc page's example shows what such code calls (above), but holds
    # nothing the next line can call: only code is a candidate itself.
    for rank, hit in enumerate(hits):
        if hit.language not in GRAMMARS:
            continue
        row = _unit_definition(collection, hit)
        found = candidates.setdefault((row.path, row.start_line), Candidate(row))
        found.score += SIMILAR / math.sqrt(rank + 1)


def _unit_definition(collection: Collection, unit: db.UnitRow) -> DefinitionRow:
    """The definition a unit holds, from the symbol table (its whole signature, decorators
    and all); a unit that defines nothing (statements between definitions) is its first line."""
    for row in _definitions_in(collection, [unit.path]):  # in source order: outermost first
        if unit.start_line <= row.start_line <= unit.end_line:
            return row
    return DefinitionRow(unit.path, unit.language, unit.symbol or "", unit.symbol or "",
                         unit.kind, unit.start_line, unit.end_line, unit.start_line, "")


def _already_in_prompt(
    collection: Collection, candidate: Candidate, prompt: set[str], path: str | None
) -> bool:
    """The definition's header is in the code already (an unknown path: the same file).

    With the path known, the edited file's own definitions are left out by path, and a
    header in the code is another definition's, headed alike, when the code reaches this
    one by a name of its own: a member of a class it holds (the JDK's `finishConnect()`
    returning `plainConnection.finishConnect()`), a definition it imports or reaches by a
    module's path (hermit's `pub unsafe fn cleanup() {` calling `args::cleanup()`). Not a
    member of a class it only names: that is an override of the method the code writes
    (Cordova's plugins' `onPause`, a trait's declaration the code implements), or a
    definition found otherwise (by its name, by similar code), a twin of the function at
    the cursor (nom's `streaming` and `complete` parsers).
    """
    if path is not None and (candidate.held or candidate.named):
        return False
    row = candidate.row
    header = _lines(collection, row.path).get(_naming_line(collection, row), "").strip()
    return len(header) > 8 and header in prompt


# Lines that annotate a definition: `#[derive(Debug)]` heads a third of a crate's
# definitions, so they cannot tell one from another.
_ANNOTATION = ("#[", "#![", "@")


def _naming_line(collection: Collection, row: DefinitionRow) -> int:
    """The number of the line naming the definition (`pub struct Point {`), past its
    attributes and decorators; failing one, its first line. Kept per file: a type's outline
    asks it of each of its members, on every answer."""
    def find(conn: sqlite3.Connection, path: str) -> dict[tuple[int, str], int]:
        text = _lines(collection, path)
        return {(r.start_line, r.name): _header_number(text, r)
                for r in _every_definition(collection, path)
                if text.get(r.start_line, "").strip().startswith(_ANNOTATION)}

    got = _of_file(collection, "naming lines", row.path, find)
    assert isinstance(got, dict)
    if (row.start_line, row.name) in got:
        return int(got[(row.start_line, row.name)])
    return _header_number(_lines(collection, row.path), row)


def _header_number(lines: dict[int, str], row: DefinitionRow) -> int:
    """:func:`_naming_line`, read from the file's lines."""
    if not lines.get(row.start_line, "").strip().startswith(_ANNOTATION):
        return row.start_line
    name = re.compile(rf"(?<![\w$]){re.escape(row.name)}(?![\w$])") if row.name else None
    for n in range(row.start_line, row.signature_end_line + 1):
        line = lines.get(n, "").strip()
        if name is not None and not line.startswith(_ANNOTATION) and name.search(line):
            return n
    return row.start_line


def _signature_start(collection: Collection, row: DefinitionRow) -> int:
    """Where an outline starts ``row``'s signature: past the annotations that say little."""
    return _naming_line(collection, row) if outline_skips_annotations(row.language) \
        else row.start_line


# ---- packing ---------------------------------------------------------------------------------


@dataclass
class _TokenCosts:
    """Token counts of lines, (path, line) -> n, and of each file's empty block."""

    lines: dict[tuple[str, int], int] = field(default_factory=dict)
    headers: dict[str, int] = field(default_factory=dict)
    # A long signature joined into one line, by (path, its first line).
    joined: dict[tuple[str, int], int] = field(default_factory=dict)


@dataclass
class _Packer:
    """Blocks of lines by file within a budget, their costs kept up to date line by line.

    Counting each line once and summing keeps packing linear in what it reads; the
    sum is checked against one count of the rendered whole at the end (see ``fit``).
    """

    collection: Collection
    count: TokenCounter
    known: _TokenCosts
    blocks: dict[str, ContextBlock] = field(default_factory=dict)
    used: int = 0
    costs: dict[str, int] = field(default_factory=dict)
    # What each accepted piece replaced, to undo the last ones if the whole runs over.
    history: list[tuple[str, ContextBlock | None]] = field(default_factory=list)

    def add(self, row: DefinitionRow, lines: Iterable[int], rank: int, limit: int) -> bool:
        """Add ``lines`` of ``row``'s file if the total stays within ``limit``."""
        text = _shown_lines(self.collection, row.path)
        block = self.blocks.get(row.path)
        have = _numbers(block) if block else set()
        new = [n for n in dict.fromkeys(lines) if n in text and n not in have]
        if not new:
            return False
        self._count_lines(row.path, text, new)
        merged = self._block(row, have.union(new), min(rank, block.best_rank) if block else rank)
        cost = self._cost(merged)
        if self.used - self.costs.get(row.path, 0) + cost > limit:
            return False
        self.history.append((row.path, block))
        self._put(row.path, merged, cost)
        return True

    def fit(self, max_tokens: int) -> tuple[list[ContextBlock], str, int]:
        """The blocks in rank order, their text and its exact count, within ``max_tokens``."""
        while True:
            ordered = sorted(self.blocks.values(), key=lambda b: b.best_rank)
            text = render(ordered)
            tokens = self.count([text])[0] if text else 0
            if tokens <= max_tokens or not self.history:
                return ordered, text, tokens
            # The estimate ran over: undo the last pieces until it is under by as much as it
            # was wrong, so that one more count (not one per piece) usually settles it.
            error = tokens - self.used
            while self.history and self.used + error > max_tokens:
                path, before = self.history.pop()
                if before is None:
                    self.used -= self.costs.pop(path)
                    del self.blocks[path]
                else:
                    self._put(path, before, self._cost(before))

    def _block(self, row: DefinitionRow, numbers: set[int], rank: int) -> ContextBlock:
        """The file's lines ``numbers`` as a block, each long signature they hold whole
        joined into one line (the lines it stands for are covered, not shown again)."""
        text = _shown_lines(self.collection, row.path)
        lines = {n: text[n] for n in sorted(numbers)}
        covers: dict[int, int] = {}
        long = _long_signatures(self.collection, row.path)
        comments = _signature_comments(self.collection, row.path) if long else frozenset()
        for first, last in long.items():
            code = [n for n in range(first, last + 1) if n not in comments]
            if all(n in lines for n in code):
                joined = _joined([lines[n] for n in code])
                for n in range(first + 1, last + 1):
                    lines.pop(n, None)
                lines[first] = joined
                covers[first] = last
        return ContextBlock(row.path, row.language, lines, rank, covers)

    def _put(self, path: str, block: ContextBlock, cost: int) -> None:
        self.used += cost - self.costs.get(path, 0)
        self.blocks[path], self.costs[path] = block, cost

    def prefetch(self, pieces: list[tuple[DefinitionRow, list[int]]]) -> None:
        """Count the lines of ``pieces`` in one call."""
        todo: dict[tuple[str, int], str] = {}
        headers: dict[str, str] = {}
        for row, lines in pieces:
            text = _shown_lines(self.collection, row.path)
            if row.path not in self.known.headers:
                headers[row.path] = _empty_block(row)
            for n in lines:
                if n in text and (row.path, n) not in self.known.lines:
                    todo[(row.path, n)] = text[n]
        counted = self.count([*todo.values(), *headers.values()])
        self.known.lines.update(zip(todo, counted, strict=False))
        self.known.headers.update(zip(headers, counted[len(todo):], strict=True))

    def first_within(self, path: str, pieces: list[list[int]], cap: int) -> list[int]:
        """The lines of the first piece and of as many next ones as keep to ``cap`` tokens
        (lines already counted)."""
        lines, spent = list(pieces[0]), 0
        for piece in pieces[1:]:
            spent += sum(self.known.lines.get((path, n), 0) for n in piece)
            if spent > cap:
                break
            lines.extend(piece)
        return lines

    def _count_lines(self, path: str, text: dict[int, str], numbers: list[int]) -> None:
        todo = [n for n in numbers if (path, n) not in self.known.lines]
        for n, tokens in zip(todo, self.count([text[n] for n in todo]), strict=True):
            self.known.lines[(path, n)] = tokens

    def _cost(self, block: ContextBlock) -> int:
        if block.path not in self.known.headers:
            self.known.headers[block.path] = self.count([_empty_block(block)])[0]
        runs = len(block.ranges)
        lines = sum(self.known.lines[(block.path, n)] for n in block.lines if n not in block.covers)
        joined = [(block.path, n) for n in block.covers if (block.path, n) not in self.known.joined]
        if joined:
            counted = self.count([block.lines[n] for _, n in joined])
            self.known.joined.update(zip(joined, counted, strict=True))
        lines += sum(self.known.joined[(block.path, n)] for n in block.covers)
        return self.known.headers[block.path] + lines + RUN_TOKENS * (runs - 1) + 1


def _numbers(block: ContextBlock) -> set[int]:
    """The file's lines a block shows, those a joined signature stands for included."""
    return set(block.lines).union(
        *(range(first + 1, last + 1) for first, last in block.covers.items()))


def _joined(lines: list[str]) -> str:
    """A signature's lines as one: `def f(a, b) -> T:` for `def f(`, `    a,`, `    b,`,
    `) -> T:` (a comma before the closing bracket dropped)."""
    out = lines[0].rstrip()
    for line in lines[1:]:
        part = line.strip()
        if not part:
            continue
        if part.startswith((")", "]", "}", ">")):
            out = out.rstrip(",")
        elif not out.endswith(("(", "[", "{", "<")):
            out += " "
        out += part
    return out


def _characters(collection: Collection, path: str, lines: list[int]) -> int:
    text = _shown_lines(collection, path)
    return sum(len(text.get(n, "")) + 1 for n in lines)


def _empty_block(of: DefinitionRow | ContextBlock) -> str:
    """A block's header and fences alone: what every block costs besides its lines."""
    return ContextBlock(of.path, of.language, {1: ""}).render()


def _pack(
    collection: Collection,
    code: str,
    ranked: list[Candidate],
    max_tokens: int,
    count: TokenCounter,
    costs: _TokenCosts,
) -> RagContext:
    packer = _Packer(collection, count, costs)
    documented = min(MAX_DOCUMENTED, max_tokens // TOKENS_PER_DOCUMENTED)
    parts = [(c.row, _outline(collection, c, with_doc=rank < documented))
             for rank, c in enumerate(ranked[:MAX_OUTLINED])]
    # One tokenizer call per phase, not one per candidate.
    packer.prefetch([(row, [n for part in pieces for n in part]) for row, pieces in parts])
    outlines = [(row, packer.first_within(row.path, pieces, max_tokens // (rank + 2) ** 2))
                for rank, (row, pieces) in enumerate(parts)]
    bodies = [(c.row, _owner_header(collection, c.row)
               + list(range(c.row.start_line, c.row.end_line + 1)))
              for c in ranked[:MAX_BODIES] if c.row.kind != "class"]
    outline_limit = int(max_tokens * OUTLINE_SHARE)
    outlined = 0
    # Outlines first, until they hold their share (the one that crosses it may finish).
    for rank, (row, lines) in enumerate(outlines):
        if packer.used >= outline_limit:
            break
        packer.add(row, lines, rank, max_tokens)
        outlined = rank + 1
    # Then whole bodies, best first (a class is its outline; its methods come on their own).
    # Bodies far longer than the budget left are not even counted.
    left = max_tokens - packer.used
    bodies = [(row, lines) for row, lines in bodies
              if _characters(collection, row.path, lines) <= left * MAX_CHARS_PER_TOKEN]
    packer.prefetch(bodies)
    for rank, (row, lines) in enumerate(bodies):
        packer.add(row, lines, rank, max_tokens)
    for rank, (row, lines) in enumerate(outlines[outlined:], start=outlined):
        if packer.used >= max_tokens - MIN_PIECE_TOKENS:
            break
        packer.add(row, lines, rank, max_tokens)
    ordered, text, tokens = packer.fit(max_tokens)
    return RagContext(code[-200:], text, tokens, max_tokens, ordered)


def _outline(collection: Collection, cand: Candidate, *, with_doc: bool) -> list[list[int]]:
    """Signature lines and the first docstring line, after the class header of a member (a
    lone `path: str` says nothing of whose it is); a class adds its members' signatures,
    one piece each."""
    pieces = [_owner_header(collection, cand.row) + _signature(collection, cand.row,
                                                               with_doc=with_doc)]
    pieces.extend(_signature(collection, member, with_doc=False)
                  for member in cand.members[:MAX_MEMBERS])
    return pieces


def _owner_header(collection: Collection, row: DefinitionRow) -> list[int]:
    owner, dot, _ = row.qualname.rpartition(".")
    if not dot:
        return []
    for other in _definitions_in(collection, [row.path]):
        if other.qualname == owner and other.start_line < row.start_line <= other.end_line:
            first = _signature_start(collection, other)
            return list(range(first, other.signature_end_line + 1))
    return []


def _signature(collection: Collection, row: DefinitionRow, *, with_doc: bool) -> list[int]:
    """The signature's lines and the docstring's first line; from the line naming the
    definition where the language's annotations say little (a third of a Rust crate's
    member lines are `#[inline]`, `#[must_use]`...)."""
    first = _signature_start(collection, row)
    lines = list(range(first, max(row.signature_end_line, first) + 1))
    if len(lines) > 2:  # a comment line stands between two others
        comments = _signature_comments(collection, row.path)
        lines = [n for n in lines if n not in comments]
    if row.doc and with_doc:
        text = _lines(collection, row.path)
        probe = row.doc[:20]
        below = range(row.signature_end_line + 1,
                      min(row.signature_end_line + DOC_LOOKAHEAD, row.end_line) + 1)
        # Only a docstring below the signature (Python's); a doc comment above it (Rust's,
        # Go's...) is not there, and the lines below are the body's.
        found = next((n for n in below if probe in text.get(n, "")), None)
        if found is not None:
            lines.extend(range(below.start, found + 1))
    return lines


# ---- cached lookups (per collection generation) ------------------------------------------------

# Per open collection: (generation, {kind: value}); a write moves the generation on.
_CACHE: weakref.WeakKeyDictionary[Collection, tuple[int, dict[str, object]]] = (
    weakref.WeakKeyDictionary()
)
# Files whose lines, and apart whose definitions, are kept per collection at most (a few
# hundred KiB each at worst).
MAX_CACHED_FILES = 512
# Line counts kept per tokenizer and collection at most (some 20 MiB).
MAX_COUNTED_LINES = 200_000


def _refresh(collection: Collection) -> None:
    """Forget what a write has made stale: once per answer, not once per lookup."""
    now = db.generation(collection.conn)
    generation, _ = _CACHE.get(collection, (None, {}))
    if generation != now:
        _CACHE[collection] = (now, {})


def _cached(collection: Collection, kind: str, make: Callable[[], object]) -> object:
    if collection not in _CACHE:
        _refresh(collection)
    values = _CACHE[collection][1]
    if kind not in values:
        values[kind] = make()
    return values[kind]


def _method_calls(collection: Collection) -> dict[str, int]:
    """Method name -> how often the collection's files call `.name(` on any value."""
    got = _cached(collection, "method calls",
                  lambda: symbol_table.member_uses(collection.conn, [ANY_VALUE]))
    assert isinstance(got, dict)
    return got


def _paths(collection: Collection) -> frozenset[str]:
    """The collection's paths; frozen, so that resolve_import keeps its index of them."""
    got = _cached(collection, "paths", lambda: frozenset(symbol_table.paths(collection.conn)))
    assert isinstance(got, frozenset)
    return got


def _project(collection: Collection) -> Project:
    """The collection's project files (go.mod, tsconfig.json...), read."""
    def read() -> Project:
        paths = _paths(collection)

        def text(path: str) -> str | None:  # a config's `extends` may name any file
            return "\n".join(_in_order(_lines(collection, path))) if path in paths else None

        root = collection.manifest.source_root
        files = {path: text(path) or "" for path in paths
                 if posixpath.basename(path) in PROJECT_FILES}
        project = read_project(PurePath(root).name if root else "", files, text)
        placed = rust_modules_placed((path, ref.module, ref.alias) for path, ref
                                     in symbol_table.imports_ending(collection.conn, ".rs"))
        return replace(project, rust_modules=placed)

    got = _cached(collection, "project", read)
    assert isinstance(got, Project)
    return got


def _folders(collection: Collection) -> dict[str, list[str]]:
    """The collection's files by folder ("" for the root)."""
    def group() -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for path in sorted(_paths(collection)):
            found.setdefault(posixpath.dirname(path), []).append(path)
        return found

    got = _cached(collection, "folders", group)
    assert isinstance(got, dict)
    return got


def _lines(collection: Collection, path: str) -> dict[int, str]:
    got = _of_file(collection, "lines", path, symbol_table.file_lines)
    assert isinstance(got, dict)
    return got


def _shown_lines(collection: Collection, path: str) -> dict[int, str]:
    """The file's lines as an answer shows them: an overloaded function's implementation
    ends its signature with how many `@overload` stubs it stands for (`# 3 overloads`),
    since the stubs themselves are never shown (:func:`_one_per_name`)."""
    def annotate(conn: sqlite3.Connection, path: str) -> dict[int, str]:
        text = _lines(collection, path)
        rows = _every_definition(collection, path)
        shown = {(r.qualname, r.start_line) for r in _one_per_name(rows)}
        stubs = Counter((r.qualname, r.kind) for r in rows
                        if (r.qualname, r.start_line) not in shown and not _has_body(r))
        notes = {}
        for row in rows:
            count = stubs.get((row.qualname, row.kind), 0)
            if count and (row.qualname, row.start_line) in shown and _has_body(row):
                end = row.signature_end_line
                notes[end] = f"{text.get(end, '')}  {line_comment(row.language)} {count} " \
                    f"overload{'s' if count > 1 else ''}"
        return {**text, **notes} if notes else text

    got = _of_file(collection, "shown lines", path, annotate)
    assert isinstance(got, dict)
    return got


def _long_signatures(collection: Collection, path: str) -> dict[int, int]:
    """The file's signatures over several lines, by their def/class line -> their last line
    (decorators and attributes stay lines of their own), except those with a comment after
    code before their last line, which one line would swallow (a comment's own lines are
    left out of it, :func:`_signature_comments`)."""
    def find(conn: sqlite3.Connection, path: str) -> dict[int, int]:
        text = _lines(collection, path)
        comments = _signature_comments(collection, path)
        found = {}
        for row in _every_definition(collection, path):
            first = _naming_line(collection, row)
            marks = (line_comment(row.language), "/*")
            named = not text.get(first, "").strip().startswith(_ANNOTATION)
            if named and first < row.signature_end_line and not any(
                mark in text.get(n, "") for n in range(first, row.signature_end_line)
                if n not in comments for mark in marks
            ):
                found[first] = row.signature_end_line
        return found

    got = _of_file(collection, "long signatures", path, find)
    assert isinstance(got, dict)
    return got


def _signature_comments(collection: Collection, path: str) -> frozenset[int]:
    """The lines within the file's signatures that hold a comment alone: effect's
    `export const map: {` writes a JSDoc block of twenty lines above each of its overloads,
    which would take an outline's budget from the overloads themselves."""
    def find(conn: sqlite3.Connection, path: str) -> frozenset[int]:
        text = _lines(collection, path)
        found: set[int] = set()
        for row in _every_definition(collection, path):
            mark = line_comment(row.language)
            in_block = False
            for n in range(_naming_line(collection, row) + 1, row.signature_end_line):
                line = text.get(n, "").strip()
                opens = line.startswith("/*")
                if in_block or opens or line.startswith(mark):
                    found.add(n)
                    in_block = (in_block or opens) and "*/" not in line
        return frozenset(found)

    got = _of_file(collection, "signature comments", path, find)
    assert isinstance(got, frozenset)
    return got


def _imports(collection: Collection, path: str) -> list[symbol_table.ImportRow]:
    """The file's imports, in line order (read once per file while it stays cached)."""
    got = _of_file(collection, "imports", path, symbol_table.imports_of)
    assert isinstance(got, list)
    return got


def _definitions_in(collection: Collection, paths: Iterable[str]) -> list[DefinitionRow]:
    """Every definition of the files at ``paths``, by path, then in source order."""
    found: list[DefinitionRow] = []
    for path in sorted(set(paths)):
        rows = _of_file(collection, "definitions", path,
                        lambda conn, path: _one_per_name(_every_definition(collection, path)))
        assert isinstance(rows, list)
        found.extend(rows)
    return found


def _every_definition(collection: Collection, path: str) -> list[DefinitionRow]:
    """All the file's definitions, stubs and namesakes too, in source order."""
    got = _of_file(collection, "every definition", path,
                   lambda conn, path: symbol_table.definitions_in(conn, [path]))
    assert isinstance(got, list)
    return got


def _one_per_name(rows: list[DefinitionRow]) -> list[DefinitionRow]:
    """One definition per qualified name of a file: the first, unless it is a bodiless stub
    of a later one of the same kind.

    That is a property's getter (its setter and deleter repeat the name below it), an
    overloaded function's implementation (its `@overload` stubs end on their signature
    line), the first branch of `if WINDOWS: def getchar ... else: def getchar ...` and of
    ctypes' `c_int = c_long` / `else: class c_int(...)` (what a reader finds first).
    """
    chosen: dict[str, DefinitionRow] = {}
    for row in rows:
        kept = chosen.setdefault(row.qualname, row)
        if not _has_body(kept) and _has_body(row) and row.kind == kept.kind:
            chosen[row.qualname] = row
    return [row for row in rows if chosen[row.qualname] is row]


def _has_body(row: DefinitionRow) -> bool:
    return row.end_line > row.signature_end_line


def _of_file(collection: Collection, kind: str, path: str,
             read: Callable[[sqlite3.Connection, str], object]) -> object:
    """What ``read`` makes of one file, the most recently used files' kept."""
    files = _cached(collection, kind, OrderedDict)
    assert isinstance(files, OrderedDict)
    if path in files:
        files.move_to_end(path)
    else:
        files[path] = read(collection.conn, path)
        if len(files) > MAX_CACHED_FILES:
            files.popitem(last=False)
    return files[path]


def _token_costs(collection: Collection, tokenizer: str) -> _TokenCosts:
    """The counts one named tokenizer has made of this collection's lines so far."""
    got = _cached(collection, f"costs:{tokenizer}", _TokenCosts)
    assert isinstance(got, _TokenCosts)
    if len(got.lines) > MAX_COUNTED_LINES:
        got.lines.clear()
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
