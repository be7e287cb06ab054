"""Code-at-cursor benchmark, CrossCodeEval-style: does the context hold what the next line uses?

A case is a cursor at the start of a line of a source file (the target line) that
uses a definition from another file of the same repository: a function or class it
calls (``call``), a method of an object whose class the code before the cursor shows
(``method``), a constant or class attribute it reads (``attribute``). A retriever
(a row) builds a context from the code before the cursor; it is a hit when one of
its blocks holds the definition's ``def``/``class`` line (a constant's assignment
line; in other languages the line of its name). Only the definition's file and
line are needed to score, so any repository makes its own benchmark, with no
labelling. The answers come from a parse of the benchmark's own per language
(embedstore.evaluation.completion_cases: Python's ``ast``; tree-sitter queries for
TypeScript/JavaScript, Go, Rust and Java), not from the chunker's symbol tables
that code-at-cursor reads, so that row is not graded by its own name resolution.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from embedstore.chunking.types import TokenCounter
from embedstore.errors import UserInputError
from embedstore.evaluation.bootstrap import paired_bootstrap_ci
from embedstore.evaluation.completion_cases import FINDERS, FileUses, Use
from embedstore.evaluation.imported_definitions import imported_signatures
from embedstore.evaluation.runner import POOLED, _unique_name, _workspace
from embedstore.evaluation.window_bm25 import window_context
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.ingest.sources import SourceFile, walk_sources
from embedstore.progress import NullProgress, Progress
from embedstore.retrieval.context import RagContext, context, encoder_prompt_counter
from embedstore.store.store import Store

if TYPE_CHECKING:
    from embedstore.store.collection import Collection

CASE_KINDS = ("call", "method", "attribute")
ALL_KINDS = "all"
DEFAULT_BUDGETS = (512, 1024, 2048, 4096)
DEFAULT_MAX_CASES = 200
# The budget of the per-kind columns and of the paired comparison; the largest one
# asked for when it is not among them.
HEADLINE_BUDGET = 2048
CANDIDATE_ROW = "code-at-cursor"
SUFFIX_ROW = "code-at-cursor with the suffix"
AT_NAME_ROW = "code-at-cursor at the name"
TYPED_ROW = "code-at-cursor, two characters typed"
# What an editor's completion request often has of the name: its first few characters.
TYPED_CHARS = 2
BASELINE_ROW = "context, last 30 lines"
_COLLECTION = "code"
# The used name that a line cut at its end ends in (a JavaScript name may hold `$`).
_NAME_AT_END = re.compile(r"[\w$]+$")


@dataclass(frozen=True)
class CompletionCase:
    repo: str  # the repository folder's name
    path: str  # the file of the cursor, relative to the repository, POSIX
    line: int  # the target line (1-based): the cursor is at its start
    code: str  # the text before the target line
    code_after: str  # the text after the target line
    kind: str  # one of CASE_KINDS
    target_path: str  # the used definition's file
    target_line: int  # its def/class line, or a constant's assignment line
    target_name: str  # qualified within its module: "load", "Widget", "Widget.resize"
    # The target line's text before the used name (`    let n = cmd.`): what an editor's
    # cursor has before it while the name is being typed.
    typed: str = ""
    name: str = ""  # the used name as the line writes it (`get_name`; an alias's `Cmd`)


# -- finding cases ---------------------------------------------------------------------


def build_cases(
    root: Path, seed: int = 0, max_cases: int | None = DEFAULT_MAX_CASES
) -> list[CompletionCase]:
    """Cursors of the repository's files whose line uses another file's definition.

    Each language with a finder (completion_cases.FINDERS) reads its own files.
    Only the first use of each definition in a file gives a case (later ones
    repeat it), and one cursor gives one case: of two definitions first used on
    one line, the leftmost. A name whose import cannot be followed to a
    definition of the repository (a re-export of another package's) is no
    target, so no target line is an import statement. ``max_cases`` are sampled
    (seeded) evenly across the kinds, a kind with too few leaving its share to
    the others.
    """
    by_language: dict[str, list[SourceFile]] = {}
    for source in walk_sources(root):
        if source.language in FINDERS:
            by_language.setdefault(source.language, []).append(source)
    found: list[CompletionCase] = []
    for language, sources in sorted(by_language.items()):
        for file in FINDERS[language](root, sources):
            found.extend(_cases_of(root.name, file))
    return _sample(found, seed, max_cases)


def _cases_of(repo: str, file: FileUses) -> list[CompletionCase]:
    firsts: dict[tuple[str, int], Use] = {}
    for use in sorted(file.uses, key=lambda u: (u.line, u.column)):
        if use.target.path != file.path:
            firsts.setdefault((use.target.path, use.target.line), use)
    per_line: dict[int, Use] = {}
    for use in firsts.values():
        per_line.setdefault(use.line, use)
    lines = file.source.splitlines(keepends=True)
    return [
        CompletionCase(
            repo, file.path, use.line, "".join(lines[: use.line - 1]),
            "".join(lines[use.line :]), use.kind, use.target.path, use.target.line,
            use.target.name, *_split_at_name(lines[use.line - 1], use.column),
        )
        for use in per_line.values()
    ]


def _split_at_name(line: str, name_end: int) -> tuple[str, str]:
    """The text of ``line`` before the name that ends at ``name_end`` (the parsers' UTF-8
    byte offset), and that name; ("", "") when no name ends there."""
    before = line.encode("utf-8", errors="replace")[:name_end].decode("utf-8", errors="replace")
    name = _NAME_AT_END.search(before)
    return (before[: name.start()], name.group()) if name else ("", "")


def _sample(cases: Sequence[CompletionCase], seed: int, limit: int | None) -> list[CompletionCase]:
    """Up to ``limit`` cases, round robin over the kinds, each kind's order shuffled (seeded)."""
    rng = random.Random(seed)
    pools = [[c for c in cases if c.kind == kind] for kind in CASE_KINDS]
    for pool in pools:
        rng.shuffle(pool)
    picked: list[CompletionCase] = []
    total = len(cases) if limit is None else min(limit, len(cases))
    while len(picked) < total:
        for pool in pools:
            if pool and len(picked) < total:
                picked.append(pool.pop())
    return sorted(picked, key=lambda c: (c.path, c.line))


# -- rows: the retrievers compared -----------------------------------------------------

Row = Callable[["Collection", CompletionCase, int, TokenCounter], RagContext]


def no_retrieval(
    collection: Collection, case: CompletionCase, budget: int, count_tokens: TokenCounter
) -> RagContext:
    return RagContext("", "", 0, budget, [])


def last_lines_context(lines: int) -> Row:
    """Today's word-query context, the last ``lines`` lines before the cursor as the query."""

    def row(
        collection: Collection, case: CompletionCase, budget: int, count_tokens: TokenCounter
    ) -> RagContext:
        query = "\n".join(case.code.splitlines()[-lines:])
        if not query.strip():
            return RagContext(query, "", 0, budget, [])
        return context(collection, query, budget, count_tokens=count_tokens)

    return row


def sliding_windows(
    collection: Collection, case: CompletionCase, budget: int, count_tokens: TokenCounter
) -> RagContext:
    return window_context(collection, case.code, case.path, budget, count_tokens)


def code_at_cursor(with_suffix: bool = False, at_name: bool = False, name_chars: int = 0) -> Row:
    """``context_for_code`` with the file's path; ``with_suffix``, given the file's text after
    the cursor's line as well, as an editor asking for a fill-in-the-middle completion sends it;
    ``at_name``, with the cursor on the target line just before the used name (`cmd.|`), or
    ``name_chars`` into it (`cmd.ge|`)."""

    def row(
        collection: Collection, case: CompletionCase, budget: int, count_tokens: TokenCounter
    ) -> RagContext:
        from embedstore.retrieval.code_context import context_for_code

        code = case.code + case.typed + case.name[:name_chars] if at_name else case.code
        return context_for_code(
            collection, code, code_after=case.code_after if with_suffix else None,
            path=case.path, max_tokens=budget, tokenizer=count_tokens,
        )

    return row


def imported_definitions(
    collection: Collection, case: CompletionCase, budget: int, count_tokens: TokenCounter
) -> RagContext:
    return imported_signatures(collection, case.code, case.path, budget, count_tokens)


ROWS: dict[str, Row] = {
    "no retrieval": no_retrieval,
    "imported definitions": imported_definitions,
    "context, last 8 lines": last_lines_context(8),
    BASELINE_ROW: last_lines_context(30),
    "sliding-window BM25": sliding_windows,
    CANDIDATE_ROW: code_at_cursor(with_suffix=False),
    SUFFIX_ROW: code_at_cursor(with_suffix=True),
    AT_NAME_ROW: code_at_cursor(at_name=True),
    TYPED_ROW: code_at_cursor(at_name=True, name_chars=TYPED_CHARS),
}
# The rows whose answers read no vector: a collection indexed by any encoder that counts
# tokens as the model does gives them the same answers (bench/completion.py --fast).
VECTOR_FREE_ROWS = ("no retrieval", "imported definitions", "sliding-window BM25",
                    CANDIDATE_ROW, SUFFIX_ROW, AT_NAME_ROW, TYPED_ROW)


def check_rows(names: Sequence[str]) -> None:
    unknown = [n for n in names if n not in ROWS]
    if unknown:
        raise ValueError(
            f"unknown row {', '.join(map(repr, unknown))}; valid rows: "
            + ", ".join(map(repr, ROWS))
        )


# -- scoring ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """One case under one row at one budget."""

    hit: bool
    tokens: int  # the context's, as a prompt holds it
    current_tokens: int  # of its blocks (each counted alone), those of the cursor's file
    block_tokens: int  # of all its blocks, each counted alone
    seconds: float = 0.0


def is_hit(answer: RagContext, case: CompletionCase) -> bool:
    return any(
        b.path == case.target_path and case.target_line in b.lines for b in answer.blocks
    )


def score(
    answer: RagContext, case: CompletionCase, count_tokens: TokenCounter, seconds: float = 0.0
) -> Outcome:
    """``answer`` measured by one counter of prompt tokens, whatever the row counted with."""
    total, *sizes = count_tokens([answer.text, *(b.render() for b in answer.blocks)])
    current = sum(n for n, b in zip(sizes, answer.blocks, strict=True) if b.path == case.path)
    return Outcome(is_hit(answer, case), total, current, sum(sizes), seconds)


@dataclass(frozen=True)
class CompletionRow:
    repo: str  # a repository's name, or "pooled"
    row: str
    kind: str  # a case kind, or "all"
    budget: int
    cases: int
    recall: float  # %, with its bootstrap 95% CI over cases
    recall_low: float
    recall_high: float
    current_file_share: float | None  # % of the blocks' tokens on the cursor's file
    mean_tokens: float
    ms_per_case: float


@dataclass
class CompletionReport:
    repos: list[str]
    encoder: str
    seed: int
    budgets: list[int]
    rows: list[str]
    headline_budget: int
    cases: int = 0
    kinds: dict[str, int] = field(default_factory=dict)
    results: list[CompletionRow] = field(default_factory=list)
    # Per repository and pooled: code-at-cursor minus "context, last 30 lines", recall at
    # the headline budget, paired bootstrap 95% CI (points); empty without both rows.
    vs_context: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    index_seconds: float = 0.0
    # Every case, "repo:path:line", in the order of ``hits``'s lists; "row@budget" -> 1/0 per
    # case: what a later run compares with case by case (paired).
    case_ids: list[str] = field(default_factory=list)
    hits: dict[str, list[int]] = field(default_factory=dict)


def summarize(
    repo: str, row: str, kind: str, budget: int, outcomes: Sequence[Outcome], seed: int
) -> CompletionRow:
    # A system that never hits differs from this one by its recall, so the paired
    # bootstrap against it gives the recall's own CI.
    hits = [float(o.hit) for o in outcomes]
    recall, low, high = paired_bootstrap_ci(hits, [0.0] * len(hits), seed=seed)
    spent = sum(o.block_tokens for o in outcomes)
    return CompletionRow(
        repo, row, kind, budget, len(outcomes), 100 * recall, 100 * low, 100 * high,
        100 * sum(o.current_tokens for o in outcomes) / spent if spent else None,
        sum(o.tokens for o in outcomes) / len(outcomes),
        1000 * sum(o.seconds for o in outcomes) / len(outcomes),
    )


def run_completion(
    repos: Path | Sequence[Path],
    *,
    encoder: str | None = None,
    seed: int = 0,
    max_cases: int | None = DEFAULT_MAX_CASES,
    budgets: Sequence[int] = DEFAULT_BUDGETS,
    rows: Sequence[str] = tuple(ROWS),
    work: Path | None = None,
    progress: Progress | None = None,
) -> CompletionReport:
    """Index each repository as it is, then score every row at every budget on its cases.

    Every repository is scored on its own and, when there are several, pooled
    (every case weighs the same). ``work`` keeps the collections for next time.
    Every row packs, and is measured, in prompt tokens of the collection's query
    encoder's tokenizer (special tokens aside).
    """
    paths = [Path(repos)] if isinstance(repos, str | Path) else [Path(p) for p in repos]
    paths = list(dict.fromkeys(paths))  # a repository given twice would be pooled twice
    if not paths:
        raise UserInputError("no repository to evaluate")
    check_rows(rows)
    if not budgets or min(budgets) < 1:
        raise ValueError(f"budgets must be at least 1 token, got {list(budgets)}")
    ui = progress or NullProgress()
    headline = HEADLINE_BUDGET if HEADLINE_BUDGET in budgets else max(budgets)
    report = CompletionReport([str(p) for p in paths], "", seed, list(budgets), list(rows),
                              headline)
    scopes: dict[str, tuple[list[CompletionCase], dict[tuple[str, int], list[Outcome]]]] = {}
    with _workspace(work) as space:
        for repo in paths:
            name = _unique_name(repo, paths)
            cases = build_cases(repo, seed, max_cases)
            if not cases:
                raise UserInputError(
                    f"no line of a Python, TypeScript, JavaScript, Go, Rust or Java file in "
                    f"{repo} calls or reads a function, class, method or constant of another "
                    "of its files: nothing to evaluate"
                )
            collection = _index(Store(space / name / "store"), repo, encoder, report, ui)
            scopes[name] = (cases, _run_rows(name, collection, cases, rows, budgets, ui))
            collection.close()
    every = [c for cases, _ in scopes.values() for c in cases]
    if len(paths) > 1:
        pooled: dict[tuple[str, int], list[Outcome]] = {}
        for _, outcomes in scopes.values():
            for config, found in outcomes.items():
                pooled.setdefault(config, []).extend(found)
        scopes[POOLED] = (every, pooled)
    for scope, (cases, outcomes) in scopes.items():
        _add_results(report, scope, cases, outcomes)
    report.cases = len(every)
    report.case_ids = [f"{c.repo}:{c.path}:{c.line}" for c in every]
    _, everything = scopes[POOLED] if POOLED in scopes else next(iter(scopes.values()))
    report.hits = {f"{row}@{budget}": [int(o.hit) for o in found]
                   for (row, budget), found in everything.items()}
    report.kinds = {kind: sum(c.kind == kind for c in every) for kind in CASE_KINDS}
    return report


def _index(
    store: Store, repo: Path, encoder: str | None, report: CompletionReport, ui: Progress
) -> Collection:
    began = time.perf_counter()
    index_folder(store, repo, IndexOptions(name=_COLLECTION, encoder=encoder), ui)
    report.index_seconds += time.perf_counter() - began
    collection = store.open(_COLLECTION)
    report.encoder = collection.manifest.encoder
    return collection


def line_summing(count_tokens: TokenCounter, probe: str) -> TokenCounter:
    """``count_tokens`` summed over lines, each distinct line counted once, when that is exact.

    Packing recounts the whole context for every candidate it tries: most of a
    run's time, counting the same lines again and again. A tokenizer that splits
    at whitespace before anything else (BERT's WordPiece, SentencePiece's
    Metaspace) gives a text the sum of its lines' counts; ``probe`` (real code)
    checks that this counter does, else it is returned as it is.
    """
    cache: dict[str, int] = {}

    def count(texts: list[str]) -> list[int]:
        split = [text.split("\n") for text in texts]
        new = list({line for lines in split for line in lines if line not in cache})
        if new:
            cache.update(zip(new, count_tokens(new), strict=True))
        return [sum(cache[line] for line in lines) for lines in split]

    return count if count([probe]) == count_tokens([probe]) else count_tokens


def _run_rows(
    name: str, collection: Collection, cases: Sequence[CompletionCase], rows: Sequence[str],
    budgets: Sequence[int], ui: Progress,
) -> dict[tuple[str, int], list[Outcome]]:
    a_file = cases[0].code + cases[0].code_after
    count_tokens = line_summing(encoder_prompt_counter(collection), a_file)
    outcomes: dict[tuple[str, int], list[Outcome]] = {(r, b): [] for r in rows for b in budgets}
    for row in rows:
        stage = f"{name}: {row}"
        ui.start(stage, len(cases))
        for case in cases:
            for budget in budgets:
                began = time.perf_counter()
                answer = ROWS[row](collection, case, budget, count_tokens)
                seconds = time.perf_counter() - began
                outcomes[(row, budget)].append(score(answer, case, count_tokens, seconds))
            ui.advance(stage)
        ui.finish(stage)
    return outcomes


def _add_results(
    report: CompletionReport, scope: str, cases: Sequence[CompletionCase],
    outcomes: dict[tuple[str, int], list[Outcome]],
) -> None:
    for (row, budget), found in outcomes.items():
        for kind in (ALL_KINDS, *CASE_KINDS):
            picked = [o for o, c in zip(found, cases, strict=True) if kind in (ALL_KINDS, c.kind)]
            if picked:
                report.results.append(summarize(scope, row, kind, budget, picked, report.seed))
    mine = outcomes.get((CANDIDATE_ROW, report.headline_budget))
    theirs = outcomes.get((BASELINE_ROW, report.headline_budget))
    if mine is not None and theirs is not None:
        diff = paired_bootstrap_ci(
            [float(o.hit) for o in mine], [float(o.hit) for o in theirs], seed=report.seed
        )
        report.vs_context[scope] = (100 * diff[0], 100 * diff[1], 100 * diff[2])


# -- the report ------------------------------------------------------------------------


def markdown_report(report: CompletionReport) -> str:
    """One table of every row over the pooled cases (or the only repository's), then per repo."""
    pooled = len(report.repos) > 1
    scope = POOLED if pooled else next(r.repo for r in report.results)
    head = report.headline_budget
    results = {(r.repo, r.row, r.kind, r.budget): r for r in report.results}
    kinds = ", ".join(f"{n} {kind}" for kind, n in report.kinds.items())
    where = f"pooled over {len(report.repos)} repositories" if pooled else scope
    lines = [
        f"{report.cases:,} cursors ({kinds}), {where}; {report.encoder}, seed {report.seed}. "
        "Recall: a block of the context holds the used definition's def/class line (a "
        "constant's assignment line), % [bootstrap 95% CI over cursors]; current file: % of "
        "the blocks' tokens on the cursor's own file; tokens: mean per context; ms: mean per "
        "context (this harness caches token counts by line); columns without a budget are at "
        f"{head}.",
        "",
        "| row | " + " | ".join(f"recall@{b}" for b in report.budgets) + " | "
        + " | ".join(report.kinds) + " | current file | tokens | ms |",
        "|---|" + "---|" * (len(report.budgets) + len(report.kinds) + 3),
    ]
    for row in report.rows:
        budget_cells = [_with_ci(results[(scope, row, ALL_KINDS, b)]) for b in report.budgets]
        kind_cells = [
            f"{found.recall:.1f}" if (found := results.get((scope, row, kind, head))) else "-"
            for kind in report.kinds
        ]
        overall = results[(scope, row, ALL_KINDS, head)]
        share = overall.current_file_share
        lines.append(
            f"| {row} | " + " | ".join([*budget_cells, *kind_cells]) + " | "
            + ("-" if share is None else f"{share:.1f}")
            + f" | {overall.mean_tokens:.0f} | {overall.ms_per_case:.1f} |"
        )
    if scope in report.vs_context:
        diff, low, high = report.vs_context[scope]
        lines += ["", f"{CANDIDATE_ROW} minus {BASELINE_ROW}, recall@{head}: {diff:+.1f} points "
                      f"[{low:+.1f}, {high:+.1f}] (paired bootstrap over cursors)"]
    if pooled:
        repos = list(dict.fromkeys(r.repo for r in report.results if r.repo != POOLED))
        lines += [
            "", f"Recall@{head} per repository:", "",
            "| repository | cursors | " + " | ".join(report.rows) + " |",
            "|---|---|" + "---|" * len(report.rows),
        ]
        for repo in repos:
            cells = [f"{results[(repo, row, ALL_KINDS, head)].recall:.1f}" for row in report.rows]
            n = results[(repo, report.rows[0], ALL_KINDS, head)].cases
            lines.append(f"| {repo} | {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _with_ci(row: CompletionRow) -> str:
    return f"{row.recall:.1f} [{row.recall_low:.1f}, {row.recall_high:.1f}]"
