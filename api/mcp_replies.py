"""What the MCP tools answer: fields as structured content, and one compact text to read.

The code of a hit appears once, in the text; the structured content carries its
place (absolute path, lines, the runs of lines the text shows), so the two are
never two copies of the same thing. A search reply fits ``max_tokens``: its text
and its structured content (compact JSON, as sent) together, estimated at one
token per ``CHARS_PER_TOKEN`` characters. The coding models' BPE tokenizers take
about 3.5 to 4 characters a token of code and JSON (cl100k counted 18-24% under
the estimate over the 20 replies of bench/results/mcp.md), so an agent spends no
more than the budget says; an estimate needs no tokenizer, whichever model reads.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field

from embedstore.retrieval.context import signature_end, unit_lines
from embedstore.retrieval.federation import Skipped
from embedstore.retrieval.preview import preview
from embedstore.retrieval.search import SearchResult

CHARS_PER_TOKEN = 3
# Lines of the matched piece shown below a signature, at most.
MATCH_LINES = 12
# Lines of a signature every hit shows before any hit shows more.
SIGNATURE_LINES = 3
# A line longer than this (minified code, a data table) is cut: one must not eat a budget.
MAX_LINE_CHARS = 400
CUT_LINE = " …"
FENCE = "```"


class SearchHit(BaseModel):
    collection: str
    path: str = Field(description="The file on disk, absolute; a document pushed by id: its "
                      "path in the collection.")
    start_line: int = Field(description="The definition's first line (1-based, inclusive).")
    end_line: int
    match_start_line: int = Field(description="First line of the piece that matched best.")
    match_end_line: int
    symbol: str | None
    kind: str
    score: float
    shown: list[tuple[int, int]] = Field(
        description="The runs of the definition's lines that the text shows, in order."
    )
    location: str | None = Field(default=None, description=(
        "A unit of a document: where it is in the file, path#page=12 (a PDF page; slide=7, "
        "cell=5 or a web page's heading id for other formats). Null for code."
    ))
    owner_header: str | None = Field(default=None, description=(
        "A member whose class matched too and ranks after it: the class's header line."
    ))
    heading_path: str | None = Field(default=None, description=(
        "A section's headings, outermost first and its own last. Null for code."
    ))


class SkippedOutput(BaseModel):
    collection: str
    reason: str


class SearchOutput(BaseModel):
    collection: str | None = Field(description="The collection searched; null for several.")
    collections: list[str]
    query: str
    mode: str
    results: list[SearchHit]
    omitted: int = Field(description="Hits found but left out to stay within max_tokens.")
    skipped: list[SkippedOutput] = Field(
        description="Collections left out of an all-collections search (damaged, deleted "
        "meanwhile), and why; the others answered.")
    tokens: int = Field(description="This reply's size, text and structured content.")
    max_tokens: int


class ContextBlockOutput(BaseModel):
    path: str = Field(description="The file on disk, absolute (a document: its path).")
    ranges: list[tuple[int, int]] = Field(description="Runs of lines included, in order.")


class ContextOutput(BaseModel):
    collection: str = Field(description="The collection used; empty for several.")
    query: str
    tokens: int = Field(description="Tokens of the packed text.")
    max_tokens: int
    blocks: list[ContextBlockOutput]
    skipped: list[SkippedOutput] = Field(
        description="Collections left out of an all-collections context, and why.")


class IndexStatus(BaseModel):
    name: str
    files: int
    units: int
    chunks: int
    encoder: str
    source_root: str | None = Field(description="The indexed folder, absolute.")
    indexed_at: str | None = Field(description="Last index run, ISO 8601 UTC.")
    git_head: str | None = Field(description="HEAD commit at that run, for a git work tree.")
    stale: bool | None = Field(description="Files changed since; null when it cannot be told.")
    changed_files: int
    added: int
    removed: int
    modified: int
    unknown: str | None = Field(description="Why stale is null.")


class CollectionsOutput(BaseModel):
    collections: list[IndexStatus]
    unreadable: dict[str, str] = Field(description="Collections that cannot be opened, and why.")


@dataclass(frozen=True)
class _Shown:
    """One hit as the text shows it: the first ``count`` of ``lines`` (line numbers)."""

    hit: SearchResult
    lines: tuple[int, ...]
    count: int

    @property
    def runs(self) -> list[tuple[int, int]]:
        runs: list[tuple[int, int]] = []
        for n in self.lines[: self.count]:
            if runs and runs[-1][1] == n - 1:
                runs[-1] = (runs[-1][0], n)
            else:
                runs.append((n, n))
        return runs


def fit_search(
    hits: Sequence[SearchResult], *, collections: list[str], query: str, mode: str,
    max_tokens: int, include_code: bool, skipped: Sequence[Skipped] = (),
) -> tuple[SearchOutput, str]:
    """The structured reply and its text, together within ``max_tokens``.

    Each hit shows its signature and matched lines (its whole body with
    ``include_code``). First every hit gets its header and signature, in rank order,
    so that ten locations beat three bodies; then each, in rank order, its other
    lines: the first that does not fit whole is cut at a line, and those after it
    keep their signature. Hits whose header does not fit are left out, and counted.
    """

    # Each hit's share of the reply, by (rank, lines shown), measured once: the reply's
    # size is theirs plus its fixed part, so a fit tried costs no new rendering.
    shares: dict[tuple[int, int], int] = {}

    def share(rank: int, one: _Shown) -> int:
        if (rank, one.count) not in shares:
            shares[rank, one.count] = len(_render(rank + 1, one)) + len(_compact(_hit(one)))
        return shares[rank, one.count]

    def tokens(shown: Sequence[_Shown], reported: int = max_tokens) -> int:
        omitted = len(hits) - len(shown)
        notes = _notes(bool(shown), omitted, collections, max_tokens, skipped)
        fixed = _output([], omitted, collections, query, mode, max_tokens, reported, skipped)
        parts = len(shown) + len(notes)
        characters = (
            sum(share(rank, one) for rank, one in enumerate(shown)) + max(len(shown) - 1, 0)
            + sum(map(len, notes)) + 2 * max(parts - 1, 0) + len(_compact(fixed))
        )
        return math.ceil(characters / CHARS_PER_TOKEN)

    shown: list[_Shown] = []
    for hit in hits:
        lines = _lines_of(hit, include_code)
        least = _Shown(hit, lines, _signature_lines(hit, lines))
        if tokens([*shown, least]) > max_tokens:
            break
        shown.append(least)
    for i, least in enumerate(shown):
        def fits(n: int, i: int = i, least: _Shown = least) -> bool:
            return tokens([*shown[:i], _Shown(least.hit, least.lines, n), *shown[i + 1:]]) <= (
                max_tokens)

        if fits(len(least.lines)):
            shown[i] = _Shown(least.hit, least.lines, len(least.lines))
            continue
        # The longest prefix that fits: costs grow with the lines shown.
        low, high = least.count, len(least.lines) - 1
        while low < high:
            middle = (low + high + 1) // 2
            low, high = (middle, high) if fits(middle) else (low, middle - 1)
        shown[i] = _Shown(least.hit, least.lines, low)
        break
    # The reply holds its own size: measured with the largest it may say, then checked with
    # what it says; a tokenizer whose counts do not add up may need a line less.
    while True:
        used = tokens(shown)
        output, text = _reply(shown, len(hits) - len(shown), collections, query, mode,
                              max_tokens, used, skipped)
        if not shown or reply_tokens(output, text) <= max_tokens:
            return output, text
        last = shown.pop()
        if last.count:
            shown.append(_Shown(last.hit, last.lines, last.count - 1))


def reply_tokens(structured: BaseModel, text: str) -> int:
    """The estimated tokens of a reply: its text and its structured content as sent."""
    return math.ceil((len(text) + len(_compact(structured))) / CHARS_PER_TOKEN)


def _compact(structured: BaseModel) -> str:
    return json.dumps(structured.model_dump(mode="json"), separators=(",", ":"))


def _lines_of(hit: SearchResult, include_code: bool) -> tuple[int, ...]:
    """The lines a hit shows, when the budget allows: its whole body, a class's outline, or
    a definition's signature and the lines that matched."""
    if include_code:
        return tuple(range(hit.start_line, hit.end_line + 1))
    view = preview(hit)
    if view.note:  # a class: its own lines and one line per member
        return tuple(n for a, b in view.spans for n in range(a, b + 1))
    head = signature_end(hit, unit_lines(hit))
    first = max(hit.match_start_line, head + 1)
    last = min(hit.match_end_line, first + MATCH_LINES - 1)
    if first == head + 2:  # a gap of one line costs what the line does
        first = head + 1
    if hit.end_line - last <= 1:
        last = hit.end_line
    return (*range(hit.start_line, head + 1), *range(first, last + 1))


def _signature_lines(hit: SearchResult, lines: tuple[int, ...]) -> int:
    """How many of ``lines`` every hit shows at least: its signature, a few lines at most."""
    head = signature_end(hit, unit_lines(hit))
    return min(sum(n <= head for n in lines), SIGNATURE_LINES) or 1


def _reply(
    shown: Sequence[_Shown], omitted: int, collections: list[str], query: str, mode: str,
    max_tokens: int, tokens: int, skipped: Sequence[Skipped],
) -> tuple[SearchOutput, str]:
    output = _output([_hit(s) for s in shown], omitted, collections, query, mode, max_tokens,
                     tokens, skipped)
    parts = [_render(rank, s) for rank, s in enumerate(shown, 1)]
    parts += _notes(bool(shown), omitted, collections, max_tokens, skipped)
    return output, "\n\n".join(parts)


def _output(
    results: list[SearchHit], omitted: int, collections: list[str], query: str, mode: str,
    max_tokens: int, tokens: int, skipped: Sequence[Skipped],
) -> SearchOutput:
    return SearchOutput(
        collection=collections[0] if len(collections) == 1 and not skipped else None,
        collections=collections, query=query, mode=mode, results=results, omitted=omitted,
        skipped=skipped_out(skipped), tokens=tokens, max_tokens=max_tokens,
    )


def _hit(shown: _Shown) -> SearchHit:
    hit = shown.hit
    return SearchHit(
        collection=hit.collection, path=hit.abs_path or hit.path, start_line=hit.start_line,
        end_line=hit.end_line, match_start_line=hit.match_start_line,
        match_end_line=hit.match_end_line, symbol=hit.symbol, kind=hit.kind,
        score=round(hit.score, 4), shown=shown.runs,
        location=f"{hit.abs_path or hit.path}#{hit.anchor}" if hit.anchor else None,
        owner_header=hit.owner_header, heading_path=hit.heading_path,
    )


def _notes(
    any_shown: bool, omitted: int, collections: list[str], max_tokens: int,
    skipped: Sequence[Skipped],
) -> list[str]:
    """The lines after the hits: nothing found, hits left out, collections skipped."""
    notes = []
    if not any_shown and not omitted:
        notes.append(f"No results in {', '.join(collections)}.")
    if omitted:
        notes.append(f"{omitted} more hit{'s' if omitted > 1 else ''} left out to stay within "
                     f"max_tokens={max_tokens}: raise it, lower k, or narrow with include.")
    return notes + skipped_lines(skipped)


def skipped_out(skipped: Sequence[Skipped]) -> list[SkippedOutput]:
    return [SkippedOutput(collection=s.collection, reason=s.reason) for s in skipped]


def skipped_lines(skipped: Sequence[Skipped]) -> list[str]:
    """What an all-collections answer left out, one line each, for the agent to read."""
    return [f"Skipped collection {s.collection!r}: {s.reason}" for s in skipped]


def _render(rank: int, shown: _Shown) -> str:
    hit = shown.hit
    name = f"  {hit.heading_path or hit.symbol}" if hit.heading_path or hit.symbol else ""
    where = f"#{hit.anchor}" if hit.anchor else f":{hit.start_line}-{hit.end_line}"
    owner = f" in {hit.owner_header}" if hit.owner_header else ""
    head = (f"{rank}. {hit.abs_path or hit.path}{where}{name}  "
            f"({hit.kind}, score {hit.score:.3f}){owner}")
    lines = hit.text.split("\n")
    body: list[str] = []
    following = hit.start_line  # the first line not yet accounted for
    for first, last in shown.runs:
        if first > following:
            body.append(_gap(following, first - 1))
        body += [_cut(lines[n - hit.start_line]) for n in range(first, last + 1)]
        following = last + 1
    if following <= hit.end_line:
        body.append(_gap(following, hit.end_line))
    return "\n".join([head, f"{FENCE}{hit.language}", *body, FENCE])


def _gap(first: int, last: int) -> str:
    return f"… line {first} not shown" if first == last else f"… lines {first}-{last} not shown"


def _cut(line: str) -> str:
    return line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + CUT_LINE


def status_line(status: IndexStatus) -> str:
    if status.stale is None:
        state = f"freshness unknown ({status.unknown})"
    elif status.stale:
        state = (f"STALE: {status.added} added, {status.removed} removed, "
                 f"{status.modified} modified since")
    else:
        state = "up to date"
    head = f" at {status.git_head[:12]}" if status.git_head else ""
    return (
        f"{status.name}: {status.source_root or 'documents'}; {status.files:,} files, "
        f"{status.units:,} definitions; indexed {status.indexed_at or 'at an unknown time'}"
        f"{head}; {state}"
    )
