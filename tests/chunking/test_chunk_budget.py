"""The budget: splitting, merging tiny sections, batching, bad options."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from embedstore.chunking import MIN_MAX_TOKENS, Chunk, TokenCounter, chunk_file

if TYPE_CHECKING:
    from conftest import Layout, RecordingCounter


def getters(names: str) -> str:
    return "".join(f"def get_{name}(self):\n    return self.{name}\n\n" for name in names)


def big_function(name: str) -> str:
    body = "".join(f"    step_{n}(value)\n" for n in range(6))
    return f"def {name}(value):\n{body}    return value\n\n"


def test_named_definitions_are_never_merged(outline: Callable[..., Layout]) -> None:
    # A search hit should be the getter asked for, not a run of getters starting at another.
    text = getters("abc") + big_function("run") + getters("de")
    assert outline(text, "python") == [
        ("function", "get_a", 1, 2),
        ("function", "get_b", 4, 5),
        ("function", "get_c", 7, 8),
        ("function", "run", 10, 17),
        ("function", "get_d", 19, 20),
        ("function", "get_e", 22, 23),
    ]


def tiny_sections(names: str) -> str:
    return "".join(f"# {name}\nsee {name}\n\n" for name in names)


def test_tiny_sections_are_merged_until_the_budget(outline: Callable[..., Layout]) -> None:
    # A section is 4 words: three of them and the 2 specials make 14 tokens, four 18.
    assert outline(tiny_sections("abcdef"), "markdown", 16) == [
        ("section", "a, b, c", 1, 8),
        ("section", "d, e, f", 10, 17),
    ]


def test_a_class_that_fits_is_outlined_beside_its_members(
    outline: Callable[..., Layout],
) -> None:
    members = big_function("run") + getters("xy")
    text = "class Point:\n" + "".join(f"    {line}\n" for line in members.splitlines())
    text += "limit = 3\n"
    assert outline(text, "python") == [
        ("class", "Point", 1, 15),  # the class's outline
        ("method", "Point.run", 2, 9),
        ("method", "Point.get_x", 11, 12),
        ("method", "Point.get_y", 14, 15),
        ("module", None, 17, 17),
    ]


def test_members_on_either_side_of_class_lines_stay_apart(
    outline: Callable[..., Layout],
) -> None:
    members = big_function("run") + getters("xy") + "LIMIT = 3\n\n" + getters("zw")
    text = "class Point:\n" + "".join(f"    {line}\n" for line in members.splitlines())
    assert outline(text, "python", 30) == [
        ("class", "Point", 1, 23),  # its outline holds `LIMIT = 3`
        ("method", "Point.run", 2, 9),
        ("method", "Point.get_x", 11, 12),
        ("method", "Point.get_y", 14, 15),
        ("method", "Point.get_z", 19, 20),
        ("method", "Point.get_w", 22, 23),
    ]


def test_a_line_too_long_for_the_budget_is_cut_within_the_line(
    chunk: Callable[..., list[Chunk]],
) -> None:
    line = " ".join(f"word{n}" for n in range(100))
    chunks = chunk(f"short line\n{line}\nlast line\n", None, 20)
    middle = [c for c in chunks if c.start_line == c.end_line == 2]
    # 100 words, at most 18 with the 2 specials in a piece.
    assert len(middle) >= 6
    assert "".join(c.text for c in middle) == line


@pytest.mark.parametrize("max_tokens", [0, 1, MIN_MAX_TOKENS - 1])
def test_tiny_max_tokens_is_refused(count_tokens: TokenCounter, max_tokens: int) -> None:
    with pytest.raises(ValueError, match=f"at least {MIN_MAX_TOKENS}"):
        chunk_file("x = 1\n", "python", max_tokens=max_tokens, count_tokens=count_tokens)


def test_a_counter_returning_too_few_counts_is_reported() -> None:
    with pytest.raises(ValueError, match="count_tokens returned"):
        chunk_file("x = 1\n", "python", max_tokens=64, count_tokens=lambda texts: [])


def test_counting_is_batched(recording_counter: RecordingCounter) -> None:
    text = "".join(big_function(f"f{n}") for n in range(200))
    chunks = chunk_file(text, "python", max_tokens=64, count_tokens=recording_counter)
    assert len(chunks) == 200
    # One call to learn the special tokens, one for all 200 functions.
    assert len(recording_counter.batches) <= 3


def test_spans_certainly_over_budget_are_not_tokenized_whole(
    recording_counter: RecordingCounter,
) -> None:
    body = "".join(f"    total += values[{n}]\n" for n in range(500))
    text = f"class Big:\n    def add(self, values):\n{body}        return total\n"
    chunk_file(text, "python", max_tokens=64, count_tokens=recording_counter)
    longest = max(len(t) for batch in recording_counter.batches for t in batch)
    assert longest < len(text) / 10


def test_pieces_are_planned_again_when_the_estimate_falls_short(
    chunk: Callable[..., list[Chunk]],
) -> None:
    # Lines with few visible characters but many words: the per-character
    # estimate learnt on the first lines is far too low for the rest.
    head = "".join(f"    value = compute_something_long_{n}(value)\n" for n in range(20))
    tail = "".join("    a b c d e f g h i j k l\n" for _ in range(60))
    text = f"def mixed(value):\n{head}{tail}    return value\n"
    chunks = chunk(text, "python", 40)
    # The tail needs many more pieces than first planned; all are within
    # budget (checked by the fixture), and the head's pieces, planned too
    # small, are joined again.
    assert len(chunks) > 20
    assert chunks[0].end_line - chunks[0].start_line > 5
