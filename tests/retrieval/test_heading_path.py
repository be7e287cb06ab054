"""A section's hit says where it sits: its headings down to its own, on every face."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedstore.cli.app import app
from embedstore.retrieval.search import heading_path
from embedstore.store.db import UnitRow
from tests.fakes import FakeEncoder, index_with_fake

# Sections long enough to stay units of their own (short neighbours are joined).
FILLER = " ".join(["More words about installing things in the usual way."] * 12)
MARKDOWN = f"""# Guide

{FILLER}

## Install

{FILLER}

### Linux

Run the package manager to install the zebra tool on Linux. {FILLER}
"""
HTML = """<html><body><h1>9. Classes</h1><p>Classes bundle data.</p>
<h2 id="private-variables">9.6. Private Variables</h2>
<p>Name mangling keeps a zebra attribute private to its class.</p></body></html>
"""


def section(context: str, symbol: str | None) -> UnitRow:
    return UnitRow(1, "a.md", "markdown", 1, 2, "section", symbol, "", None, None, context)


def test_the_path_ends_at_the_section_whatever_its_context_holds() -> None:
    # Markdown's context is the headings above; a read document's, the headings down to it.
    assert heading_path(section("Guide > Install", "Linux")) == "Guide > Install > Linux"
    assert heading_path(section("9. Classes > 9.6. Private", "9.6. Private")) == (
        "9. Classes > 9.6. Private")
    # Short neighbours joined into one unit are named together.
    assert heading_path(section("Guide > Usage", "Usage, Mangling")) == "Guide > Usage, Mangling"
    assert heading_path(section("Install", "Install on Linux")) == "Install > Install on Linux"
    assert heading_path(section("", None)) is None
    code = UnitRow(1, "a.py", "python", 1, 2, "function", "f", "", None)
    assert heading_path(code) is None


@pytest.fixture
def store(tmp_path: Path, fake_encoder: FakeEncoder) -> Path:
    return index_with_fake(tmp_path, "docs", {"guide.md": MARKDOWN, "classes.html": HTML})


def test_cli_json_and_text_show_the_heading_path(store: Path) -> None:
    def search(*args: str) -> str:
        result = CliRunner().invoke(app, ["search", "zebra", "--mode", "lexical", "--store",
                                          str(store), *args])
        assert result.exit_code == 0, result.stderr
        return result.stdout

    paths = {h["path"]: h["heading_path"] for h in json.loads(search("--json"))["results"]}
    assert paths["guide.md"] == "Guide > Install > Linux"
    assert paths["classes.html"] == "9. Classes > 9.6. Private Variables"
    heads = [line for line in search().splitlines() if line[:1].isdigit()]
    assert any("classes.html#private-variables" in h and "9. Classes > 9.6. Private Variables"
               in h for h in heads)
