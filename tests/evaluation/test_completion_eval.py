"""The code-at-cursor benchmark on a handmade package whose cases are known line by line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedstore.cli.app import app
from embedstore.evaluation.completion import (
    CompletionCase,
    Outcome,
    build_cases,
    is_hit,
    line_summing,
    score,
    summarize,
)
from embedstore.evaluation.window_bm25 import WindowIndex, file_windows, window_context
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.retrieval.context import ContextBlock, RagContext, render
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder

runner = CliRunner()

CONFIG = '''"""Settings of the widget shop."""

DEFAULT_SIZE = 12


def load_config(path):
    return {"path": path, "size": DEFAULT_SIZE}


def save_config(path, settings):
    return path, settings
'''
MODELS = '''from pkg.config import DEFAULT_SIZE


class Widget:
    LIMIT = 3

    def __init__(self, size=DEFAULT_SIZE):
        self.size = size

    def resize(self, factor):
        return Widget(self.size * factor)

    def describe(self):
        return f"widget of {self.size}"
'''
SERVICE = '''from . import config
from .models import Widget


def build(path: str) -> Widget:
    settings = config.load_config(path)
    widget = Widget(settings["size"])
    widget.resize(2)
    return widget.resize(config.DEFAULT_SIZE)


def label(w: Widget) -> str:
    limit = Widget.LIMIT
    return w.describe()[:limit]
'''
# Nothing here is a case: an untyped object, a module outside the repository, a
# parameter and then a local that hide the imported module.
UNTYPED = '''import os

from pkg import config


def run(config_path, widget):
    widget.describe()
    os.path.join(config_path, "x")
    config = None
    return config.save_config(config_path, {})


def shadowed(config):
    return config.save_config("y", {})
'''
APP = '''import pkg.config
from pkg import Widget


def main():
    current: Widget = pkg.config.load_config("x")
    widget = Widget(1)
    return current.describe(), widget
'''
REPO = {
    "pkg/__init__.py": "from .models import Widget\n",
    "pkg/config.py": CONFIG,
    "pkg/models.py": MODELS,
    "pkg/service.py": SERVICE,
    "pkg/untyped.py": UNTYPED,
    "app.py": APP,
}
# (path, line, kind, target_path, target_line, target_name), by construction above.
EXPECTED = {
    ("pkg/models.py", 7, "attribute", "pkg/config.py", 3, "DEFAULT_SIZE"),
    ("pkg/service.py", 6, "call", "pkg/config.py", 6, "load_config"),
    ("pkg/service.py", 7, "call", "pkg/models.py", 4, "Widget"),
    ("pkg/service.py", 8, "method", "pkg/models.py", 10, "Widget.resize"),
    ("pkg/service.py", 9, "attribute", "pkg/config.py", 3, "DEFAULT_SIZE"),
    ("pkg/service.py", 13, "attribute", "pkg/models.py", 5, "Widget.LIMIT"),
    ("pkg/service.py", 14, "method", "pkg/models.py", 13, "Widget.describe"),
    ("app.py", 6, "call", "pkg/config.py", 6, "load_config"),  # `import pkg.config`
    ("app.py", 7, "call", "pkg/models.py", 4, "Widget"),  # re-exported by pkg/__init__.py
    ("app.py", 8, "method", "pkg/models.py", 13, "Widget.describe"),  # annotated local
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    for rel, text in REPO.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def key(case: CompletionCase) -> tuple[str, int, str, str, int, str]:
    return (case.path, case.line, case.kind, case.target_path, case.target_line, case.target_name)


def words(texts: list[str]) -> list[int]:
    return [len(t.split()) for t in texts]  # prompt tokens of the fake encoder's counter


def test_build_cases_finds_each_kind_with_its_definition(repo: Path) -> None:
    cases = build_cases(repo, seed=0, max_cases=None)
    assert {key(c) for c in cases} == EXPECTED
    assert len(cases) == len(EXPECTED)  # one case per (file, definition) and per cursor
    assert all(c.target_path != c.path for c in cases)
    for case in cases:
        lines = REPO[case.path].splitlines(keepends=True)
        assert case.code == "".join(lines[: case.line - 1])
        assert case.code_after == "".join(lines[case.line :])
        assert case.repo == "shop"
        target = REPO[case.target_path].splitlines()[case.target_line - 1]
        assert case.target_name.rpartition(".")[2] in target
        # An editor's cursor as the name is typed: the line up to the used name.
        used = lines[case.line - 1]
        assert used.startswith(case.typed)
        assert used[len(case.typed):].startswith(case.target_name.rpartition(".")[2])


def test_sampling_is_seeded_and_stratified(repo: Path) -> None:
    picked = build_cases(repo, seed=3, max_cases=6)
    assert len(picked) == 6
    assert sorted(c.kind for c in picked) == ["attribute"] * 2 + ["call"] * 2 + ["method"] * 2
    assert [key(c) for c in picked] == [key(c) for c in build_cases(repo, 3, 6)]
    assert {key(c) for c in picked} <= EXPECTED


def test_file_windows_overlap_and_end_at_the_last_line() -> None:
    text = "".join(f"line{n}\n" for n in range(1, 46))
    windows = file_windows("a.py", "python", text)
    assert [(w.start_line, w.end_line) for w in windows] == [(1, 20), (11, 30), (21, 40), (31, 45)]
    assert windows[1].lines[0] == "line11"


def test_window_bm25_finds_the_window_that_shares_the_query_identifiers() -> None:
    lib = ["value = 1"] * 45
    lib[24] = "def frobnicate_widget(size):"  # line 25
    other = "widget = None\n" * 5
    index = WindowIndex([
        *file_windows("lib.py", "python", "\n".join(lib) + "\n"),
        *file_windows("other.py", "python", other),
    ])
    found = index.search("result = frobnicate_widget(3)", 10)
    best, _ = found[0]
    assert (best.path, best.start_line, best.end_line) == ("lib.py", 11, 30)  # ties: first
    assert {(w.path, w.start_line) for w, _ in found} == {("lib.py", 11), ("lib.py", 21),
                                                         ("other.py", 1)}
    assert [s for _, s in found] == sorted((s for _, s in found), reverse=True)
    # The cursor's own file is left out, statistics included.
    assert [(w.path, w.start_line) for w, _ in index.search("frobnicate_widget", 10,
                                                            exclude="lib.py")] == [("other.py", 1)]


def test_window_context_packs_other_files_only(repo: Path, fake_encoder: FakeEncoder) -> None:
    store = Store(repo.parent / "store")
    index_folder(store, repo, IndexOptions(name="shop", encoder=FAKE_SPEC))
    collection = store.open("shop")
    (case,) = [c for c in build_cases(repo, 0, None) if (c.path, c.line) == ("app.py", 8)]
    answer = window_context(collection, case.code, case.path, 4096, words)
    assert is_hit(answer, case)
    assert answer.blocks and all(b.path != "app.py" for b in answer.blocks)
    assert answer.text == render(answer.blocks)
    small = window_context(collection, case.code, case.path, 20, words)
    assert 0 < small.tokens <= 20 and small.tokens == words([small.text])[0]


def test_hit_and_current_file_share_arithmetic() -> None:
    case = CompletionCase("shop", "app.py", 8, "", "", "method", "pkg/models.py", 13,
                          "Widget.describe")
    target = ContextBlock("pkg/models.py", "python",
                          {13: "    def describe(self):", 14: "        return x"})
    own = ContextBlock("app.py", "python", {1: "import pkg.config"}, best_rank=1)
    answer = RagContext("q", render([target, own]), 0, 100, [target, own])
    # models block: "pkg/models.py:13-14", "```python", "def", "describe(self):", "return",
    # "x", "```" = 7 words; app block: "app.py:1-1", "```python", "import", "pkg.config",
    # "```" = 5 words.
    assert score(answer, case, words) == Outcome(True, 12, 5, 12)
    moved = ContextBlock("pkg/models.py", "python", {14: "        return x"})
    assert not is_hit(RagContext("q", "", 0, 100, [moved, own]), case)
    elsewhere = ContextBlock("pkg/other.py", "python", dict(target.lines))
    assert not is_hit(RagContext("q", "", 0, 100, [elsewhere]), case)
    assert score(RagContext("q", "", 0, 100, []), case, words) == Outcome(False, 0, 0, 0)


def test_summary_pools_tokens_before_dividing() -> None:
    outcomes = [Outcome(True, 100, 25, 100), Outcome(False, 50, 0, 50, 0.002),
                Outcome(True, 0, 0, 0), Outcome(False, 10, 10, 10, 0.006)]
    row = summarize("shop", "r", "all", 512, outcomes, seed=0)
    assert (row.cases, row.recall, row.mean_tokens) == (4, 50.0, 40.0)
    assert row.current_file_share == pytest.approx(100 * 35 / 160)
    assert row.ms_per_case == pytest.approx(2.0)
    assert 0.0 <= row.recall_low < 50.0 < row.recall_high <= 100.0
    empty = summarize("shop", "r", "all", 512, [Outcome(False, 0, 0, 0)], seed=0)
    assert empty.current_file_share is None
    assert (empty.recall, empty.recall_low, empty.recall_high) == (0.0, 0.0, 0.0)


def test_line_summing_counts_lines_once_and_only_when_exact() -> None:
    seen: list[str] = []

    def recording(texts: list[str]) -> list[int]:
        seen.extend(texts)
        return words(texts)

    count = line_summing(recording, "def f(x):\n    return x")
    assert count is not recording
    seen.clear()
    assert count(["a b\nc", "c\n\na b"]) == [3, 3]
    assert sorted(seen) == ["", "a b", "c"]
    count(["a b\nc d"])
    assert seen[3:] == ["c d"]

    def characters(texts: list[str]) -> list[int]:  # "\n" counts: not a sum over lines
        return [len(t) for t in texts]

    assert line_summing(characters, "a\nb") is characters


ROW_ARGS = ["--row", "no retrieval", "--row", "context, last 8 lines",
            "--row", "sliding-window BM25"]


def test_cli_completion_prints_the_table(repo: Path, fake_encoder: FakeEncoder) -> None:
    result = runner.invoke(app, ["eval", "--task", "completion", str(repo), "--encoder",
                                 FAKE_SPEC, "--budget", "4096", *ROW_ARGS])
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith(
        "10 cursors (4 call, 3 method, 3 attribute), shop; fake:hash, seed 0."
    )
    assert lines[2] == ("| row | recall@4096 | call | method | attribute | current file | tokens"
                        " | ms |")
    assert lines[4].startswith("| no retrieval | 0.0 [0.0, 0.0] | 0.0 | 0.0 | 0.0 | - | 0 | ")
    # Every target file is one window that shares the imported names with the query,
    # and every other file of the shop fits in 4096 words.
    assert lines[6].startswith("| sliding-window BM25 | 100.0 [100.0, 100.0] | 100.0 | 100.0 |"
                               " 100.0 | 0.0 | ")


def test_cli_completion_json_pools_repositories(
    repo: Path, tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    twin = tmp_path / "twin" / "shop"
    shutil.copytree(repo, twin)
    result = runner.invoke(app, ["eval", "--task", "completion", str(repo), str(twin),
                                 "--encoder", FAKE_SPEC, "--max-cases", "6", *ROW_ARGS, "--json"])
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert (report["cases"], report["kinds"]) == (12, {"call": 4, "method": 4, "attribute": 4})
    assert report["budgets"] == [512, 1024, 2048, 4096] and report["headline_budget"] == 2048
    assert report["vs_context"] == {}  # code-at-cursor was not asked for
    pooled = {(r["row"], r["kind"], r["budget"]): r for r in report["results"]
              if r["repo"] == "pooled"}
    assert pooled[("no retrieval", "all", 512)]["recall"] == 0.0
    assert pooled[("sliding-window BM25", "method", 4096)]["cases"] == 4
    assert pooled[("sliding-window BM25", "all", 4096)]["current_file_share"] == 0.0
    assert pooled[("context, last 8 lines", "all", 2048)]["mean_tokens"] > 0
    assert {r["repo"] for r in report["results"]} == {"shop-1", "shop-2", "pooled"}


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--task", "autocomplete"], "'autocomplete' is not one of 'search', 'completion'"),
        (["--task", "completion", "--row", "grep"], "unknown row 'grep'; valid rows: "),
        (["--task", "completion", "--mode", "dense"], "it applies to --task search"),
        (["--row", "no retrieval"], "it applies to --task completion"),
        (["--task", "completion", "--budget", "0"], "greater than or equal to 1"),
    ],
)
def test_cli_usage_errors_exit_2(repo: Path, args: list[str], fragment: str) -> None:
    result = runner.invoke(app, ["eval", str(repo), *args])
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and fragment in errors[0], result.stderr


def test_code_at_cursor_row_fits_the_budget(repo: Path, fake_encoder: FakeEncoder) -> None:
    pytest.importorskip("embedstore.retrieval.code_context")
    from embedstore.evaluation.completion import ROWS

    store = Store(repo.parent / "store")
    index_folder(store, repo, IndexOptions(name="shop", encoder=FAKE_SPEC))
    collection = store.open("shop")
    for case in build_cases(repo, 0, None):
        answer = ROWS["code-at-cursor"](collection, case, 300, words)
        assert answer.tokens <= 300


def test_an_overloaded_method_is_its_implementation_not_its_stubs(tmp_path: Path) -> None:
    root = tmp_path / "hdrs"
    root.mkdir()
    (root / "headers.py").write_text(
        "import typing as t\n"
        "from typing import overload\n"
        "\n"
        "class Headers:\n"
        "    @t.overload\n"
        "    def get(self, key: str) -> str | None: ...\n"
        "    @overload\n"
        "    def get(self, key: str, default: str) -> str: ...\n"
        "    def get(self, key, default=None):\n"
        "        return default\n"
    )
    (root / "use.py").write_text(
        "from headers import Headers\n"
        "\n"
        "def read(headers: Headers) -> str:\n"
        "    return headers.get('a', '')\n"
    )
    (case,) = build_cases(root, seed=0, max_cases=None)
    assert (case.kind, case.target_name, case.target_line) == ("method", "Headers.get", 9)
