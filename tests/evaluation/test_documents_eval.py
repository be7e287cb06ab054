"""The documents benchmark on real pages: cases, stripping, scoring and the CLI.

``files/documents`` holds real manual pages as Debian ships them: ``classes.html`` is the
Python 3.11 tutorial's chapter on classes cut to six of its sections (python3.11-doc, the
page's own markup, sidebar and navigation kept), ``tutorial-views.html`` and
``tutorial-delete.html`` two PostgreSQL 15 pages (postgresql-doc-15).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedstore.chunking.readers import read_document
from embedstore.cli.app import app
from embedstore.evaluation.document_cases import build_cases, heading_query
from embedstore.evaluation.documents import run_documents
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.retrieval.search import search
from embedstore.store.store import Store
from tests.chunking.readers.make_pdf import make_pdf
from tests.fakes import FAKE_SPEC, FakeEncoder

FILES = Path(__file__).parent / "files" / "documents"
runner = CliRunner()


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    shutil.copytree(FILES, folder)
    return folder


def test_heading_queries_drop_numbering_and_keep_words() -> None:
    assert heading_query("9.6. Private Variables¶") == "Private Variables"
    assert heading_query("Chapter 3. Advanced Features") == "Advanced Features"
    assert heading_query("A First Look at Classes") == "A First Look at Classes"


def test_cases_are_main_content_sections_and_sentences_leave_the_copy(
    docs: Path, tmp_path: Path
) -> None:
    mined = build_cases(docs, tmp_path / "copy")
    headings = {c.query: c for c in mined.cases if c.kind == "heading"}
    assert headings["Private Variables"].path == "classes.html"
    assert headings["Views"].path == "tutorial-views.html"
    # The sidebar's headings are navigation, not sections of the page.
    assert not {"Previous topic", "Navigation", "Table of Contents"} & headings.keys()
    sentences = [c for c in mined.cases if c.kind == "sentence"]
    private = next(c for c in sentences if c.title == "9.6. Private Variables")
    assert private.query.startswith("“Private” instance variables that cannot be accessed")
    for case in sentences:  # as indexed: the reader's text of the original and of the copy
        original, copied = (_words(folder / case.path) for folder in (docs, tmp_path / "copy"))
        assert case.query in original
        assert case.query not in copied, case.query
    assert all(c.spans for c in mined.cases) and mined.unlocated == 0
    assert mined.files == 3


def _words(path: Path) -> str:
    return " ".join(read_document(path.name, path.read_bytes()).text.split())


def test_cli_scores_every_mode_per_kind(docs: Path, fake_encoder: FakeEncoder) -> None:
    result = runner.invoke(app, [
        "eval", str(docs), "--task", "documents", "--encoder", FAKE_SPEC, "--json",
        "--mode", "hybrid", "--mode", "lexical",
    ])
    assert result.exit_code == 0, (result.stdout, result.stderr)
    report = json.loads(result.stdout)
    rows = {(r["kind"], r["mode"]): r for r in report["rows"]}
    assert set(rows) == {(k, m) for k in ("heading", "sentence", "all")
                         for m in ("hybrid", "lexical")}
    assert rows[("all", "hybrid")]["queries"] == sum(report["stats"][0]["cases"].values())
    assert rows[("all", "hybrid")]["hybrid_gain"] is None
    assert rows[("all", "lexical")]["hybrid_gain"] is not None
    # The page's own heading finds its section by its words alone.
    assert rows[("heading", "lexical")]["metrics"]["recall@10"] > 50


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--strict"], "it applies to --task search"),
        (["--row", "no retrieval"], "it applies to --task completion"),
        (["--mode", "fuzzy"], "unknown mode 'fuzzy'"),
    ],
)
def test_cli_usage_errors_exit_2(docs: Path, args: list[str], fragment: str) -> None:
    result = runner.invoke(app, ["eval", str(docs), "--task", "documents", *args])
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    assert fragment in result.stderr


def test_private_variables_question_finds_its_section_first(docs: Path, tmp_path: Path) -> None:
    """The issue's acceptance query, with the real default model."""
    store = Store(tmp_path / "store")
    index_folder(store, docs, IndexOptions(name="docs"))
    hits = search(store.open("docs"), "how do I declare a private variable in a class", 5)
    assert hits[0].location == "classes.html#private-variables"
    assert "Private Variables" in hits[0].text.split("\n")[0]
    # Shown with its heading path: the chapter above the section.
    assert hits[0].heading_path is not None
    *above, own = hits[0].heading_path.split(" > ")
    assert "Private Variables" in own and any("Classes" in h for h in above)


def test_real_model_hybrid_finds_headings(docs: Path, tmp_path: Path) -> None:
    report = run_documents(docs, work=tmp_path / "work")
    rows = {(r.kind, r.mode): r for r in report.rows}
    assert rows[("heading", "hybrid")].metrics["recall@10"] == 100.0
    assert rows[("sentence", "hybrid")].queries >= 5


def test_a_pdf_sections_lines_are_those_of_its_page_and_of_the_pages_it_goes_on_to(
    tmp_path: Path,
) -> None:
    (tmp_path / "pdf").mkdir()
    (tmp_path / "pdf" / "manual.pdf").write_bytes(make_pdf(
        [["Introduction", "This manual explains the tool."],
         ["Classes", "Private variables are mangled by name.", "Names get the prefix."],
         ["The classes chapter goes on here."],
         ["Options", "Flags come last."]],
        outline=[(0, "Introduction", 0), (0, "Classes", 1), (0, "Options", 3)],
    ))
    mined = build_cases(tmp_path / "pdf", tmp_path / "copy")
    case = next(c for c in mined.cases if c.query == "Classes")
    rendered = read_document("manual.pdf", (tmp_path / "copy" / "manual.pdf").read_bytes())
    lines = rendered.text.split("\n")
    covered = [lines[n - 1] for first, last in case.spans for n in range(first, last + 1)]
    # (The first sentence is a sentence case's, so it left the copy.)
    assert "Names get the prefix." in covered
    assert "The classes chapter goes on here." in covered  # page 3, the same section
    assert not {"This manual explains the tool.", "Flags come last."} & set(covered)


def test_a_pdf_sections_first_sentence_is_asked_and_leaves_the_copy(tmp_path: Path) -> None:
    (tmp_path / "pdf").mkdir()
    (tmp_path / "pdf" / "manual.pdf").write_bytes(make_pdf(
        [["Introduction", "This manual explains the tool to its users.", "Read it first."],
         ["Classes", "Private variables are mangled by their name.",
          "Two underscores start such a name.", "Options", "Flags come last on the line."]],
        outline=[(0, "Introduction", 0), (0, "Classes", 1), (0, "Options", 1)],
    ))
    mined = build_cases(tmp_path / "pdf", tmp_path / "copy")
    sentences = {c.query: c for c in mined.cases if c.kind == "sentence"}
    assert sentences.keys() == {
        "This manual explains the tool to its users",
        "Private variables are mangled by their name",
        "Flags come last on the line",
    }
    assert sentences["Private variables are mangled by their name"].location == "page=2"
    copied = _words(tmp_path / "copy" / "manual.pdf")
    assert not any(query in copied for query in sentences)
    # The rest of each section, its heading and the outline stay.
    assert "Classes Two underscores start such a name." in copied
    assert "Read it first." in copied and mined.unlocated == 0
    assert all(c.spans for c in mined.cases)
