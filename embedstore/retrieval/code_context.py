"""Code-at-cursor context: what the code at a cursor needs from the rest of the collection.

A coder model completing a line mostly needs the signatures (and, budget
permitting, the bodies) of the functions and classes that line is about to use,
defined in other files. Candidates come from these signals, each measured in
``bench/completion.py`` (results in ``bench/results/completion.md``):

1. the symbol table: the names the code imports, resolved to definitions of
   the collection (re-exports followed, ``module_bindings.py``), and names it uses that
   the collection defines exactly once;
2. nearness: a name used just above the cursor, or imported and not used yet,
   weighs more than one used at the top of the file;
3. similar code: lexical (BM25) search with the last lines as the query, as
   RepoCoder does (dense search of the same window added 0.6 points, not significant,
   for a third of the time);
4. how the collection uses a module: of a module imported whole, the members
   other files reach through it most (``events.get_running_loop``) come first;
5. the function open at the cursor (``enclosing.py``): what returns what it returns,
   and what is named like it, come earlier;
6. classes: a class the code names, or one a name of the code holds (``receivers.py``),
   brings its members, those the code calls through that name first (``held_members.py``).

What each piece of evidence weighs is in ``evidence_weights.py``.

A linear model fitted on the tuning sets (``candidate_ranker.py``) then orders the best 150
by that evidence and by what each candidate is (a method or a free function, test code, a
name many definitions share, one the last lines already use). When the code ends mid-line
in a member access (`cmd.`, `crate::rt::`), what that names leads (``access_at_cursor.py``).

Packing (``outline_packing.py``) puts a compact outline (signature and first docstring
line) of many candidates first, then whole bodies of the best while the budget lasts. The
file being edited never takes budget: the prompt holds it already. What all of this reads
of the collection's files is kept between answers (``collection_view.py``).
"""

from __future__ import annotations

import math
import posixpath
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace

from embedstore.chunking.grammars import GRAMMARS
from embedstore.chunking.symbols import (
    FileSymbols,
    extract_symbols,
    identifiers,
    naming_binds_siblings,
    package_clause,
    package_siblings,
)
from embedstore.chunking.types import TokenCounter
from embedstore.errors import UserInputError
from embedstore.languages import (
    Declared,
    detect_language,
    in_test_item,
    is_test_code,
    reachable_from,
    tested_file_name,
)
from embedstore.lexical import plain_names, split_identifier
from embedstore.retrieval.access_at_cursor import accessed_first
from embedstore.retrieval.candidate_ranker import Candidate, census, rerank
from embedstore.retrieval.collection_view import (
    TokenCosts,
    all_paths,
    definitions_in,
    enclosing_lines,
    every_definition,
    file_lines,
    file_text,
    header_text,
    in_order,
    main_language,
    naming_line,
    of_file,
    owner_header,
    refresh,
    token_costs,
)
from embedstore.retrieval.context import (
    RagContext,
    encoder_prompt_counter,
)
from embedstore.retrieval.enclosing import enclosing_function, returned_types
from embedstore.retrieval.evidence_weights import (
    CO_USED,
    EXPECTED,
    IMPORTED,
    MODULE_SHARE,
    NAMESAKE,
    NOT_YET_USED,
    REPO_USES,
    SIBLING,
    SIBLING_USES,
    SIMILAR,
    TESTED,
    UNIQUE_NAME,
    USED_NEAR,
)
from embedstore.retrieval.filters import SearchFilters
from embedstore.retrieval.held_members import (
    add_members,
    add_receivers,
    attributes_near,
    chains_by_head,
    field_holders,
    neighbours,
    reached_through,
)
from embedstore.retrieval.module_bindings import (
    HAS_MEMBERS,
    bindings,
    follow,
    module_stem,
    modules_passed_on,
    passed_on_by_name,
)
from embedstore.retrieval.outline_packing import pack
from embedstore.retrieval.receivers import FIELDS_READ, Receiver, receivers
from embedstore.retrieval.search import allowed_file_ids, lexical_hits
from embedstore.retrieval.tokenizers import load_tokenizer
from embedstore.store import db, symbol_table
from embedstore.store.collection import Collection
from embedstore.store.symbol_table import DefinitionRow

# Nearness: a use this many lines above the cursor counts half as much as one on the line above.
HALF_LIFE_LINES = 8.0
# Similar code (RepoCoder): the last lines as a query (evidence_weights.SIMILAR weighs its
# hits by rank).
SIMILAR_WINDOW_LINES = 10
# ... and at most this many of their last characters: a query's cost grows with its length,
# and ten lines of real code are far shorter (one line of 200k `f(` took 0.85 s to split).
SIMILAR_WINDOW_CHARS = 2000
SIMILAR_HITS = 20
# Below this BM25 a hit shares only words that at least half the units hold (SQLite's BM25
# weighs such a word 1e-6): it is not like the code, and ranking it would only rank its
# neighbours in the file.
SIMILAR_MIN_BM25 = 1e-3
MAX_CODE_CHARS = 1_000_000


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
    language = detect_language(path) if path else main_language(collection)
    ranked = accessed_first(rerank(ranked, code, census(collection.conn, ranked), path), code,
                            language, _own_names(collection, code, path, language))
    # Lines' token counts are kept between answers for the tokenizers known by name.
    if isinstance(tokenizer, str):
        count, costs = load_tokenizer(tokenizer), token_costs(collection, tokenizer)
    elif tokenizer is None:
        count, costs = encoder_prompt_counter(collection), token_costs(collection, "")
    else:
        count, costs = tokenizer, TokenCosts()
    return pack(collection, code, ranked, max_tokens, count, costs)


def ranked_candidates(
    collection: Collection,
    code: str,
    *,
    code_after: str | None = None,
    path: str | None = None,
    filters: SearchFilters | None = None,
    similar: bool = True,
) -> list[Candidate]:
    """Every usable candidate, best evidence first, before the fitted order
    (candidate_ranker.py): what ``bench/fit_ranker.py`` learns from. The fitted order, not
    the evidence alone, decides which of them packing outlines: a Go package's constant
    that no other file uses is last by its evidence, whatever else speaks for it."""
    refresh(collection)
    rules = filters or SearchFilters()
    language = detect_language(path) if path else main_language(collection)
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
        if is_test_code(row.path, row.language, row.qualname, header_text(collection, row)):
            return tests_wanted
        return _reachable(collection, row, path)

    ranked = [c for c in sorted(candidates.values(), key=lambda c: -c.score) if usable(c)]
    for cand in ranked:
        cand.members = [m for m in cand.members if _reachable(collection, m, path)]
    return ranked


def _own_names(collection: Collection, code: str, path: str | None, language: str) -> set[str]:
    """The names the edited file defines (the collection's copy) and its package's parts."""
    names = {row.name for row in every_definition(collection, path)} if path else set()
    package = package_clause(code.split("\n"), language)
    return names | set(package.split(".") if package else ())


def _reachable(collection: Collection, row: DefinitionRow, path: str | None) -> bool:
    """Whether the code at ``path`` can name ``row``, by its language's visibility rules
    (``languages.reachable_from``: a Rust item without `pub` in another module, a name a
    TypeScript module does not export...): code there cannot call it, so it would only
    take budget."""
    rule = reachable_from(row.language)
    if rule is None or path is None:
        return True
    text = file_lines(collection, row.path)
    naming = naming_line(collection, row)
    # A Rust `impl` block is no definition: its method's owner is the block's head.
    owner = ("\n".join(text.get(n, "") for n in owner_header(collection, row))
             or _block_head(text, enclosing_lines(collection, row.path).get(naming, 0), naming))
    return rule(Declared(row.path, row.qualname, text.get(naming, ""), owner,
                         file_text(collection, row.path)), path)


def _block_head(text: Mapping[int, str], first: int, member: int) -> str:
    """A block's head from its ``first`` line to its `{`, above its ``member``'s line: an
    `impl` over lines (`impl<N, E> Default` / `    for MatrixGraph<N, E>` / `{`)."""
    lines: list[str] = []
    for number in range(first, member) if first else ():
        lines.append(text.get(number, ""))
        if "{" in lines[-1]:
            break
    return "\n".join(lines)


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
            near[name] = max(near.get(name, 0.0), _weight_at(distance(line)))
    return near


def _weight_at(lines: int) -> float:
    """The nearness of a use ``lines`` lines from the cursor."""
    return 0.5 ** (lines / HALF_LIFE_LINES)


def _since_bindings(
    code: str, near: Mapping[str, float], below: Mapping[str, float],
    holders: Mapping[str, Receiver],
) -> tuple[dict[str, float], set[str]]:
    """``near``, where a chain through a held variable (`t.minute`) is used above only before
    the variable's binding, at least as near as its use below the cursor; and the chains
    the code uses only so. Such a use is another variable's of the same name (the `t` of
    a function further up, often of the same class): it says what the file calls through
    such names, but must neither hide what the code after the cursor calls through this
    one, nor count as a call this variable has made (held_members.add_receivers). A
    method's own receiver (Rust's `self`, Go's `func (s *Server)`) is of one class in every
    method: its calls in the other methods count as its own."""
    cursor = code.count("\n") + 1
    bound = {name: _weight_at(cursor - found.line)
             for name, found in holders.items() if "." not in name}
    scoped = dict(near)
    earlier: set[str] = set()
    for chain, weight in near.items():
        head, dot, _ = chain.partition(".")
        if dot and head in bound and weight < bound[head]:
            if below.get(chain, 0.0) > weight:
                scoped[chain] = below[chain]
            elif not holders[head].own:
                earlier.add(chain)
    return scoped, earlier


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
    below = nearness_below(code, code_after, binding)
    near = {**below, **nearness(code, binding)}
    paths = all_paths(collection)
    candidates: dict[tuple[str, int], Candidate] = {}
    module_chains = chains_by_head(near)

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
        # next (held_members.neighbours); not a glob's, whose bare names say less (the
        # JDK: -0.8 at 512).
        uses = symbol_table.member_uses(conn, sorted({alias, *map(module_stem, modules)}))
        most = math.log1p(max(uses.values(), default=0))
        rows = [row for row in definitions_in(collection, modules)
                if row.qualname == row.name]  # members come with their class
        # A module the code imports whole also holds what it passes on by name (`pub use`).
        # Not one reached by path alone (`crate::`): the crate root's dozens of re-exports
        # took the small budget (validation-multi's Rust -2.7 at 512 tokens).
        if imported_by_code:
            rows += passed_on_by_name(collection, modules, language, paths)
        # `m.f(` and `m.f.g(` both reach `f` through `m` (zod's `core.$ZodString.init(`).
        _, through = reached_through(module_chains.get(alias, []), alias)
        reached = {row.name: near.get(row.name, 0.0) if glob else through.get(row.name, 0.0)
                   for row in rows}
        beside = neighbours(rows, {} if glob else {n: w for n, w in reached.items() if w})
        for row in rows:
            popular = math.log1p(uses.get(row.name, 0)) / most if most else 0.0
            add(row, MODULE_SHARE * base + USED_NEAR * (reached[row.name] + beside[id(row)])
                + REPO_USES * popular).through.add(alias)

    bound: set[str] = set()
    heads: dict[str, list[str]] = {}  # a name bound to modules -> their files
    for ref, targets, how in bindings(collection, imports, path or "", language, paths):
        bound.add(ref.alias.split(".")[0])
        if not targets:
            continue
        # A JS default import binds whatever the module exports by default: try its alias.
        name = ref.alias if ref.name == "default" else ref.name
        rows, modules = (
            ([], targets if how == "path" else modules_passed_on(collection, targets,
                                                                 language, paths))
            if name in (None, "*") else follow(collection, name, targets, language, paths)
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
    for row in definitions_in(collection, siblings):
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
    if language in FIELDS_READ:  # only there do the classes' texts say anything
        holders.update(field_holders(collection, holders, _class_texts(code + code_after, own),
                                     path, language))
    attribute_near = attributes_near(near, holders)
    add_members(collection, candidates, attribute_near)
    # ... and its members are reached through the name it is imported under (`OldDuration::`).
    for cand in candidates.values():
        cand.through.update(alias for alias, name in renamed.items() if name in cand.through)
    add_receivers(collection, holders, path, language, candidates,
                  *_since_bindings(code, near, below, holders), attribute_near)
    if enclosing is not None:
        _add_expected(collection, enclosing.returns, candidates)
        _add_namesakes(enclosing.name, candidates)
    return candidates


def _class_texts(text: str, symbols: FileSymbols) -> dict[str, str]:
    """The text of each class ``symbols`` (of ``text``) defines, by name; the definitions
    of one name joined (Rust's `#[cfg]` alternatives)."""
    lines = text.split("\n")
    found: dict[str, str] = {}
    for d in symbols.definitions:
        if d.kind in HAS_MEMBERS:
            body = "\n".join(lines[d.start_line - 1:d.end_line])
            found[d.name] = f"{found[d.name]}\n{body}" if d.name in found else body
    return found


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
            text = file_lines(collection, row.path)
            signature = "\n".join(text.get(n, "") for n in range(
                naming_line(collection, row), row.signature_end_line + 1))
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
            rows, modules = follow(collection, segment, modules, language, paths)
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
    files = package_siblings(path, language, all_paths(collection))
    own = package_clause(code.split("\n"), language)
    return [f for f in files
            if package_clause(in_order(file_lines(collection, f)), language) in (own, None)]


def _name_uses(collection: Collection, paths: list[str]) -> Counter[str]:
    """How often each plain name occurs in the files at ``paths`` (a package's), their own
    definitions' lines aside."""
    uses: Counter[str] = Counter()
    for path in paths:
        got = of_file(collection, "name uses", path, lambda conn, path: _names_used(
            file_lines(collection, path), every_definition(collection, path)))
        assert isinstance(got, Counter)
        uses.update(got)
    return uses


def _names_used(lines: dict[int, str], definitions: list[DefinitionRow]) -> Counter[str]:
    heads = {row.start_line for row in definitions}
    text = "\n".join(line for n, line in sorted(lines.items()) if n not in heads)
    return Counter(name for name, _ in identifiers(text) if "." not in name)


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
    # nothing the next line can call: only code is a candidate itself. Nor does a
    # namespace that defines nothing where it is written: a module written in another file
    # (Rust's `pub mod run;`, which may name the edited file itself).
    for rank, hit in enumerate(hits):
        if hit.language not in GRAMMARS:
            continue
        row = _unit_definition(collection, hit)
        if row.kind == "namespace":
            continue
        found = candidates.setdefault((row.path, row.start_line), Candidate(row))
        found.score += SIMILAR / math.sqrt(rank + 1)


def _unit_definition(collection: Collection, unit: db.UnitRow) -> DefinitionRow:
    """The definition a unit holds, from the symbol table (its whole signature, decorators
    and all); a unit that defines nothing (statements between definitions) is its first line."""
    for row in definitions_in(collection, [unit.path]):  # in source order: outermost first
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
    header = file_lines(collection, row.path).get(naming_line(collection, row), "").strip()
    return len(header) > 8 and header in prompt


