"""The notebook reader over nbformat-4 notebooks written in the test (plain JSON, as Jupyter
saves them)."""

from __future__ import annotations

import json

import pytest

from embedstore.chunking.readers import DocumentReadError, chunk_document, read_document
from embedstore.chunking.readers.notebook import read_notebook
from tests.chunking.conftest import count_words


def notebook(cells: list[dict[str, object]], language: str = "python") -> bytes:
    metadata = {"kernelspec": {"name": "python3", "language": language, "display_name": "P"},
                "language_info": {"name": language, "file_extension": ".py"}}
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": metadata,
                       "cells": cells}).encode()


def markdown(text: str) -> dict[str, object]:
    return {"cell_type": "markdown", "metadata": {}, "source": text.splitlines(keepends=True)}


def code(text: str) -> dict[str, object]:
    return {"cell_type": "code", "metadata": {}, "execution_count": 1,
            "source": text.splitlines(keepends=True),
            "outputs": [{"output_type": "stream", "name": "stdout", "text": ["OUTPUT TEXT\n"]}]}


CELLS = [
    markdown("# Cleaning\nLoad the raw table."),
    code("import csv\n\n\ndef load(path):\n    return list(csv.reader(open(path)))\n"),
    markdown("## Dropping rows\nRows without a date go."),
    code("rows = [r for r in load('x.csv') if r[0]]"),
]


def test_markdown_cells_are_sections_and_code_cells_code_with_their_cell_numbers() -> None:
    sections = read_notebook(notebook(CELLS)).sections
    assert [(s.path, s.location, s.language) for s in sections] == [
        (("Cleaning",), "cell=1", None),
        (("Cleaning",), "cell=2", "python"),
        (("Cleaning", "Dropping rows"), "cell=3", None),
        (("Cleaning", "Dropping rows"), "cell=4", "python"),
    ]
    assert sections[1].text.startswith("import csv")


def test_outputs_are_left_out() -> None:
    assert "OUTPUT TEXT" not in read_document("nb.ipynb", notebook(CELLS)).text


def test_a_code_cell_is_chunked_as_code_in_the_notebooks_language() -> None:
    rendered = read_document("nb.ipynb", notebook(CELLS))
    chunks = chunk_document(rendered, max_tokens=200, count_tokens=count_words)
    load = next(c for c in chunks if c.symbol == "load")
    assert (load.kind, rendered.location_at(load.start_line)) == ("function", "cell=2")
    assert load.context.startswith("Cleaning")


@pytest.mark.parametrize("data", [b"", b"{not json", b'{"cells": 3}', b'{"cells": [1]}',
                                  b"\xff\xfe"])
def test_a_damaged_notebook_is_refused_as_damaged(data: bytes) -> None:
    with pytest.raises(DocumentReadError) as raised:
        read_document("nb.ipynb", data)
    assert raised.value.reason == "damaged"
