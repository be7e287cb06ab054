"""The stdout/stderr consoles off a terminal: whole lines, tables as wide as their cells."""

from __future__ import annotations

import io

from rich.table import Table

from embedstore.cli.console import WholeLineConsole

WIDE = "sentence-transformers/" + "a-very-long-model-name-" * 4


def printed(*renderables: object) -> list[str]:
    file = io.StringIO()  # a file: not a terminal
    console = WholeLineConsole(file=file, highlight=False)
    for renderable in renderables:
        console.print(renderable)
    return file.getvalue().splitlines()


def test_text_is_neither_wrapped_nor_padded() -> None:
    assert printed(f"[bold]encoder[/bold] {WIDE}", "short") == [f"encoder {WIDE}", "short"]


def test_a_table_keeps_every_cell_whole() -> None:
    table = Table("name", "encoder")
    table.add_row("lib", WIDE)
    lines = printed(table)
    assert any(f"│ lib  │ {WIDE} │" == line for line in lines), lines
    assert len({len(line) for line in lines}) == 1  # as wide as its content, not 80 columns
    assert len(lines[0]) < 150


def test_a_terminal_keeps_rich_layout() -> None:
    file = io.StringIO()
    console = WholeLineConsole(file=file, force_terminal=True, width=40, color_system=None)
    console.print("word " * 20)
    assert max(len(line) for line in file.getvalue().splitlines()) <= 40
