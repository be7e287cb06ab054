from __future__ import annotations

import pytest

from embedstore.rag import pack_context
from embedstore.search import SearchResult


def hit(path: str, start: int, end: int, rank_text: str = "x") -> SearchResult:
    text = "\n".join(f"{rank_text}{n}" for n in range(start, end + 1))
    return SearchResult(0, path, start, end, "python", 1.0, text)


def words(texts: list[str]) -> list[int]:
    return [len(t.split()) + 2 for t in texts]  # +2: the specials a real tokenizer adds


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
def test_budget_is_never_exceeded_and_smaller_hits_still_fit(budget: int) -> None:
    hits = [hit("big.py", 1, 40), hit("a.py", 1, 3), hit("b.py", 1, 3), hit("c.py", 1, 30)]
    packed = pack_context("q", hits, budget, words)
    assert packed.tokens <= budget
    assert packed.tokens == (words([packed.text])[0] - 2 if packed.blocks else 0)
    if budget >= 12:
        assert "a.py:1-3" in packed.text  # skipped the big one, kept the small one


def test_blocks_keep_rank_order() -> None:
    packed = pack_context("q", [hit("z.py", 1, 2), hit("a.py", 1, 2)], 1000, words)
    assert [b.path for b in packed.blocks] == ["z.py", "a.py"]


def test_budget_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        pack_context("q", [], 0, words)
