"""What a hit shows: the head of a definition, or a class's outline."""

from __future__ import annotations

from embedstore.retrieval.preview import Preview, preview
from embedstore.retrieval.search import SearchResult

# A nested class (indented), lines 10-39 of its file.
PROGRESS_BAR = '''\
    @dataclass
    class ProgressBar(Generic[V]):
        """Shows how far an iteration got.

        Redrawn at most every ``interval`` seconds.
        """

        width: int = 30
        label: str = ""

        def __init__(self, items):
            self.items = items

        @property
        def pct(self) -> float:
            return self.pos / self.length

        @pct.setter
        def pct(self, value: float) -> None:
            self.pos = value * self.length

        eta_format = "{:.0f}s"

        class Style:
            bar = "#"

        def render(
            self, width: int
        ) -> str:
            return "#" * width'''


def class_hit(text: str, start: int, kind: str = "class") -> SearchResult:
    end = start + text.count("\n")
    return SearchResult(0, "bar.py", start, end, start, end, "python", kind, 1.0, text)


def test_a_class_shows_its_own_lines_and_one_line_per_member() -> None:
    assert preview(class_hit(PROGRESS_BAR, 10)) == Preview(
        spans=(
            (10, 18),  # decorator, header, docstring, fields
            (20, 20),  # __init__
            (24, 24),  # the property's getter, its setter folded into it
            (31, 31),  # a field between members
            (33, 33),  # a nested class: a member, not a method
            (36, 36),  # a signature's first line only
        ),
        hidden=30 - 14,
        note="class, 3 methods",
    )


def test_a_long_run_of_own_lines_shows_its_head() -> None:
    fields = "".join(f"    field_{n} = {n}\n" for n in range(20))
    text = f"class Config:\n{fields}\n    def load(self):\n        return self"
    shown = preview(class_hit(text, 1))
    assert shown.spans == ((1, 12), (23, 23))
    assert (shown.hidden, shown.note) == (24 - 13, "class, 1 method")


def test_a_short_class_and_a_function_show_their_head() -> None:
    short = "class Point:\n    x = 0\n\n    def norm(self):\n        return abs(self.x)"
    assert preview(class_hit(short, 5)) == Preview(((5, 9),), 0)
    function = "def f():\n" + "".join(f"    step_{n}()\n" for n in range(20)) + "    return 1"
    assert preview(class_hit(function, 1, kind="function")) == Preview(((1, 12),), 10)
