"""The tight rule credits the definition itself; contains and overlap are looser."""

from __future__ import annotations

import pytest

from embedstore.evaluation.dataset import EvalQuery
from embedstore.evaluation.hit_rules import CONTAINS, OVERLAP, TIGHT, is_hit

# A method at lines 6-8 (decorator on 6, def on 7) of a class at lines 1-12.
METHOD = EvalQuery("q", "a.py", start_line=6, end_line=8, symbol="prepare", def_line=7)
CLASS_TEXT = (
    "class Request:\n    x = 1\n\n    # why\n    # more\n    @cached\n    def prepare(self):\n"
)


def test_a_class_outline_holding_the_def_line_is_no_tight_hit() -> None:
    assert is_hit(CONTAINS, METHOD, "a.py", 1, 12, CLASS_TEXT)
    assert not is_hit(TIGHT, METHOD, "a.py", 1, 12, CLASS_TEXT)


def test_the_definition_from_its_comments_or_decorator_is_a_tight_hit() -> None:
    with_comments = "\n".join(CLASS_TEXT.split("\n")[3:])  # from line 4, `# why`
    assert is_hit(TIGHT, METHOD, "a.py", 4, 8, with_comments)
    assert is_hit(TIGHT, METHOD, "a.py", 6, 8, "    @cached\n    def prepare(self):\n")
    # The first piece of a split function starts at it; a later piece lacks the def line.
    assert is_hit(TIGHT, METHOD, "a.py", 6, 7, "    @cached\n    def prepare(self):")
    assert not is_hit(TIGHT, METHOD, "a.py", 8, 8, "        return 1")


def test_a_merged_run_counts_only_when_it_starts_at_the_definition() -> None:
    merged = "def tiny():\n    return 0\n\n\n\n@cached\ndef prepare():\n    return 1"
    top_level = EvalQuery("q", "a.py", start_line=6, end_line=8, symbol="prepare", def_line=7)
    assert not is_hit(TIGHT, top_level, "a.py", 1, 8, merged)
    assert is_hit(CONTAINS, top_level, "a.py", 1, 8, merged)
    assert is_hit(TIGHT, top_level, "a.py", 6, 12, "\n".join(merged.split("\n")[5:]))


def test_doc_comments_and_attributes_of_other_languages_may_stand_above() -> None:
    rust = EvalQuery("q", "lib.rs", start_line=3, end_line=5, symbol="parse", def_line=4)
    text = "/// Parses it.\n// more\n#[inline]\npub fn parse() {\n}"
    assert is_hit(TIGHT, rust, "lib.rs", 1, 5, text)
    assert not is_hit(TIGHT, rust, "lib.rs", 1, 5, "impl Parser {\n\n#[inline]\npub fn parse() {")


def test_overlap_credits_any_shared_line_and_other_files_never_count() -> None:
    assert is_hit(OVERLAP, METHOD, "a.py", 8, 20, "")
    assert not is_hit(CONTAINS, METHOD, "a.py", 8, 20, "")
    assert not is_hit(TIGHT, METHOD, "b.py", 6, 8, "")
    with pytest.raises(ValueError, match="unknown hit rule"):
        is_hit("strict", METHOD, "a.py", 6, 8, "")
