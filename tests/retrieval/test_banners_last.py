"""Section banners after every unit that says something (banners_last)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedstore.cli.app import app
from embedstore.retrieval.banners_last import demote_banners, is_banner
from embedstore.store.db import UnitRow


def _row(text: str, language: str = "go", kind: str = "module", unit_id: int = 1) -> UnitRow:
    return UnitRow(unit_id, "a", language, 1, 2, kind, None, text, None)


@pytest.mark.parametrize(("text", "language", "banner"), [
    ("// Host -----------------------------------------------------------------", "go", True),
    ("// ------------\n// Matchers\n// ------------", "go", True),
    ("# ====================\n# Errors and warnings\n# ====================", "python", True),
    ("/* ---------- Scoped Mutable API ---------- */", "typescript", True),
    ("////////////////////////////////////////", "rust", True),
    # A comment that says something: a note of more than a few words.
    ("// The router keeps its routes in the order they were added.", "go", False),
    # Code is no banner, however short: an attribute, an import, a statement.
    ("#[cfg(test)]", "rust", False),
    ("import os", "python", False),
    ("// Imports\nimport os", "python", False),
    # `//` starts no comment in Python.
    ("// ----", "python", False),
])
def test_a_banner_is_a_modules_comment_of_a_few_words(
    text: str, language: str, banner: bool
) -> None:
    assert is_banner(_row(text, language)) is banner


def test_only_a_modules_own_lines_are_banners() -> None:
    # A definition's unit that is all comment (a doc comment's first chunk) says what the
    # definition is.
    assert not is_banner(_row("// Host ---", kind="function"))


def test_a_banner_ranks_after_every_unit_scoring_above_zero() -> None:
    rows = {1: _row("// Host ---", unit_id=1),
            2: _row("func Host() {}", kind="function", unit_id=2),
            3: _row("func Path() {}", kind="function", unit_id=3)}
    assert [i for i, _ in demote_banners([(1, 0.9), (2, 0.5), (3, 0.1)], rows)] == [2, 3, 1]


ROUTES = {
    "route.go": (
        "package mux\n\n"
        "// Route stores information to match a request.\n"
        "type Route struct {\n\tmatchers []matcher\n}\n\n"
        "// Host ------------------------------------------------------------------\n\n"
        "// Host adds a matcher for the URL host of a request to the route.\n"
        "func (r *Route) Host(tpl string) *Route {\n"
        "\tr.matchers = append(r.matchers, newHostMatcher(tpl))\n\treturn r\n}\n\n"
        "// Path ------------------------------------------------------------------\n\n"
        "// Path adds a matcher for the URL path of a request to the route.\n"
        "func (r *Route) Path(tpl string) *Route {\n"
        "\tr.matchers = append(r.matchers, newPathMatcher(tpl))\n\treturn r\n}\n"
    ),
}


def test_the_default_model_finds_the_method_and_not_the_banner(tmp_path: Path) -> None:
    root = tmp_path / "mux"
    root.mkdir()
    for rel, text in ROUTES.items():
        (root / rel).write_text(text)
    store = tmp_path / "store"
    runner = CliRunner()
    done = runner.invoke(app, ["index", str(root), "--store", str(store)])
    assert done.exit_code == 0, done.stderr
    done = runner.invoke(app, ["search", "match a route by its host", "-k", "1",
                               "--store", str(store), "--json"])
    assert done.exit_code == 0, done.stderr
    [hit] = json.loads(done.stdout)["results"]
    assert hit["symbol"] == "Route.Host"
