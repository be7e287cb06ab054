from __future__ import annotations

import ast
import random
import sysconfig
from pathlib import Path

import pytest

from embedstore.chunking.types import TokenCounter
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.retrieval.context import (
    ContextBlock,
    context,
    pack_context,
    render,
    unit_lines,
    with_block,
)
from embedstore.retrieval.search import SearchResult, search
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder

STDLIB = Path(sysconfig.get_paths()["stdlib"])


def hit(
    path: str, start: int, end: int, *, text: str | None = None,
    match: tuple[int, int] | None = None, kind: str = "function",
) -> SearchResult:
    body = text if text is not None else "\n".join(f"x{n}" for n in range(start, end + 1))
    first, last = match or (start, end)
    return SearchResult(0, path, start, end, first, last, "python", kind, 1.0, body)


def words(texts: list[str]) -> list[int]:
    return [len(t.split()) for t in texts]


def cost(text: str) -> int:
    return words([text])[0]


# A decorated function with a two-line signature and a body of statements, some
# of them multi-line calls: lines 10..(10 + len - 1) of long.py.
LONG_FUNCTION = [
    "@cached",
    "def load_settings(path,",
    "                  defaults=None):",
    *[line for i in range(12) for line in (
        f"    value_{i} = read_value(path, 'key number {i}')",
        f"    merged_{i} = merge(",
        f"        value_{i}, defaults, strict=True, name='setting {i}'",
        "    )",
    )],
    "    return merged_11",
]
LONG_START = 10
LONG_END = LONG_START + len(LONG_FUNCTION) - 1


def long_hit(match: tuple[int, int]) -> SearchResult:
    return hit("long.py", LONG_START, LONG_END, text="\n".join(LONG_FUNCTION), match=match)


def test_overlapping_hits_of_a_file_merge_without_repeating_lines() -> None:
    packed = pack_context("q", [hit("a.py", 1, 5), hit("a.py", 4, 8)], 1000, words)
    assert [(b.path, b.start_line, b.end_line) for b in packed.blocks] == [("a.py", 1, 8)]
    assert packed.text.startswith("a.py:1-8\n```python\n")
    assert [line for line in packed.text.splitlines() if line.startswith("x")] == [
        f"x{n}" for n in range(1, 9)
    ]


def test_a_hit_bridging_two_blocks_merges_all_three() -> None:
    hits = [hit("a.py", 1, 3), hit("a.py", 10, 12), hit("a.py", 3, 10), hit("b.py", 1, 2)]
    packed = pack_context("q", hits, 1000, words)
    assert [(b.path, b.start_line, b.end_line) for b in packed.blocks] == [
        ("a.py", 1, 12), ("b.py", 1, 2)
    ]


@pytest.mark.parametrize("budget", [5, 12, 20, 33, 60])
def test_budget_is_never_exceeded(budget: int) -> None:
    hits = [hit("big.py", 1, 40), hit("a.py", 1, 3), hit("b.py", 1, 3), hit("c.py", 1, 30),
            long_hit((LONG_START + 20, LONG_START + 27))]
    packed = pack_context("q", hits, budget, words)
    assert packed.tokens <= budget
    assert packed.tokens == (cost(packed.text) if packed.blocks else 0)


def test_a_hit_with_no_clean_cut_is_skipped_and_smaller_hits_still_fit() -> None:
    # One statement over 40 lines: no prefix of it ends where a statement does.
    text = "\n".join(["def big():", "    return [", *["        n," for _ in range(40)], "    ]"])
    hits = [hit("big.py", 1, 43, text=text), hit("a.py", 1, 3)]
    packed = pack_context("q", hits, 30, words)
    assert [b.path for b in packed.blocks] == ["a.py"]


def test_blocks_keep_rank_order() -> None:
    packed = pack_context("q", [hit("z.py", 1, 2), hit("a.py", 1, 2)], 1000, words)
    assert [b.path for b in packed.blocks] == ["z.py", "a.py"]


def test_budget_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        pack_context("q", [], 0, words)


def test_a_definition_that_fits_goes_in_whole_even_when_its_match_is_small() -> None:
    match = (LONG_START + 20, LONG_START + 23)
    packed = pack_context("q", [long_hit(match)], 1000, words)
    assert [b.ranges for b in packed.blocks] == [[(LONG_START, LONG_END)]]
    assert "…" not in packed.text
    assert packed.text.splitlines()[2:-1] == LONG_FUNCTION


def test_a_definition_over_budget_gives_signature_and_matched_piece_with_elision() -> None:
    match = (LONG_START + 19, LONG_START + 26)  # value_4 .. the ")" closing merged_5
    whole = cost(render([ContextBlock("long.py", "python", unit_lines(long_hit(match)))]))
    packed = pack_context("q", [long_hit(match)], whole // 3, words)
    assert packed.tokens <= whole // 3
    (block,) = packed.blocks
    signature = (LONG_START, LONG_START + 2)  # decorator and the two-line def
    assert block.ranges[0] == signature and block.ranges[1][0] == match[0]
    assert len(block.ranges) == 2 and block.ranges[1][1] <= match[1]
    header, fence, *body, closing = packed.text.splitlines()
    assert header == f"long.py:{signature[0]}-{block.ranges[1][1]}"  # the `…` marks the gap
    assert (fence, closing) == ("```python", "```")
    assert body[:4] == [*LONG_FUNCTION[:3], "…"]
    # Cut only where a statement ends: the piece's last line closes its call.
    assert body[-1] == "    )"


def test_the_cut_never_leaves_a_bracket_open() -> None:
    match = (LONG_START + 3, LONG_END)
    full = cost(render([ContextBlock("long.py", "python", unit_lines(long_hit(match)))]))
    for budget in range(10, full):
        packed = pack_context("q", [long_hit(match)], budget, words)
        for block in packed.blocks:
            last = block.lines[block.end_line]
            assert not last.endswith("(") and "strict=True" not in last, (budget, last)


def _stdlib_units(name: str) -> list[SearchResult]:
    """Every function and method of a real module as a hit, matched on a middle piece.

    Nested functions are left out: like the units search returns, no two hits overlap.
    """
    source = (STDLIB / name).read_text()
    lines = source.splitlines()
    tree = ast.parse(source)
    tops = [*tree.body, *(n for c in tree.body if isinstance(c, ast.ClassDef) for n in c.body)]
    hits = []
    for node in tops:
        if isinstance(node, ast.FunctionDef) and node.end_lineno is not None:
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            end = node.end_lineno
            middle = start + (end - start) // 2
            hits.append(SearchResult(
                0, name, start, end, middle, min(end, middle + 8), "python", "function", 1.0,
                "\n".join(lines[start - 1 : end]),
            ))
    return hits


@pytest.mark.parametrize("seed", range(6))
def test_context_never_emits_a_partial_range_of_a_definition_that_fits(seed: int) -> None:
    units = _stdlib_units("shlex.py") + _stdlib_units("textwrap.py")
    hits = random.Random(seed).sample(units, 15)
    for budget in (60, 150, 400, 900, 2000):
        packed = pack_context("q", hits, budget, words)
        assert packed.tokens <= budget
        for rank, h in enumerate(hits):
            wanted = set(range(h.start_line, h.end_line + 1))
            shown = {n for b in packed.blocks if b.path == h.path for n in b.lines} & wanted
            if shown and shown != wanted:
                # Cut only because the whole would not have fit beside what was taken.
                widened = with_block(packed.blocks, ContextBlock(
                    h.path, h.language, unit_lines(h), rank
                ))
                assert cost(render(widened)) > budget, (seed, budget, h.symbol, h.start_line)
                assert h.start_line in shown  # the signature is always kept


def test_collection_context_widens_hits_to_whole_definitions(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    filler = [f"    total += values[{i}] * {i}  # accumulate step {i}" for i in range(120)]
    source = ["def accumulate(values):", "    total = 0", *filler, "    return total", "",
              "", "def other():", "    return 'nothing to see'", ""]
    (repo / "m.py").write_text("\n".join(source))
    store = Store(tmp_path / "store")
    index_folder(store, repo, IndexOptions(name="r", encoder=FAKE_SPEC))
    collection = store.open("r")
    (top,) = search(collection, "accumulate step 97", 1)
    assert (top.start_line, top.end_line) == (1, 123)
    assert top.match_start_line > 1  # the fake encoder really split it

    roomy = context(collection, "accumulate step 97", 5000)
    assert roomy.blocks[0].ranges == [(1, 123)]
    assert roomy.text.splitlines()[2:125] == source[:123]

    tight = context(collection, "accumulate step 97", 200)
    assert tight.tokens <= 200
    first = tight.blocks[0]
    assert first.ranges[0] == (1, 1) and len(first.ranges) == 2
    assert first.ranges[1][0] == top.match_start_line
    assert "…" in tight.text.splitlines()


def _recorded_packing(seed: int) -> tuple[list[SearchResult], list[str], TokenCounter]:
    """Fifteen stdlib definitions, and a word counter that records what it is asked to count
    (a new one each time: counts are kept per counter)."""
    units = _stdlib_units("shlex.py") + _stdlib_units("textwrap.py")
    counted: list[str] = []

    def recording(texts: list[str]) -> list[int]:
        counted.extend(texts)
        return words(texts)

    return random.Random(seed).sample(units, 15), counted, recording


def test_packing_counts_each_line_once_and_the_whole_once() -> None:
    """Issue 32: packing re-counted the whole context for every hit it tried (some 2 s an
    answer on a busy machine); now each distinct text is counted once, the whole once more."""
    hits, counted, recording = _recorded_packing(seed=0)
    packed = pack_context("q", hits, 400, recording)
    assert 0 < packed.tokens == cost(packed.text) <= 400
    assert counted.count(packed.text) == 1
    long_texts = [t for t in counted if t.count("\n") > 1]  # renders of blocks
    assert long_texts == [packed.text]


def test_line_counts_are_kept_between_answers_by_counter() -> None:
    """`context QUERY` answers in tens of milliseconds because a second answer with the same
    counter counts only the texts it has not met: here only its rendered whole."""
    hits, counted, recording = _recorded_packing(seed=1)
    first = pack_context("q", hits, 400, recording)
    counted.clear()
    second = pack_context("q", hits, 400, recording)
    assert second.text == first.text
    assert counted == [second.text]


def test_a_joined_signature_covers_its_lines_until_a_block_shows_them_one_by_one() -> None:
    joined = ContextBlock("a.py", "python", {1: "def f(a, b) -> int:", 4: "    return a"},
                          covers={1: 3})
    assert joined.ranges == [(1, 4)] and joined.end_line == 4
    assert joined.body == "def f(a, b) -> int:\n    return a"
    written = ContextBlock("a.py", "python", {1: "def f(", 2: "    a,", 3: "    b,"})
    merged = joined.union(written)
    assert merged.covers == {} and merged.body == "def f(\n    a,\n    b,\n    return a"
    # A block without the covered lines keeps the joined line.
    assert joined.union(ContextBlock("a.py", "python", {9: "x = 1"})).body == (
        "def f(a, b) -> int:\n    return a\n…\nx = 1")
