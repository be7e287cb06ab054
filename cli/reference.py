"""The option tables of docs/cli.md, made from the Typer app itself, so that the page and
`--help` say the same (tests/test_cli_docs.py checks it).

    python -m embedstore.cli.reference --write docs/cli.md   # rewrite the tables in place
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer

from embedstore.cli.app import app
from embedstore.cli.usage import option_choices

BEGIN = "<!-- option tables: made by `python -m embedstore.cli.reference --write docs/cli.md` -->"
END = "<!-- end of option tables -->"
# A default the help words itself, where the value is not a constant: "[default: 10]".
_SAID_DEFAULT = re.compile(r"\s*\[default: ([^\]]*)\]\.?")


def commands(group: Any = None, path: str = "embedstore") -> Iterator[tuple[str, Any]]:
    """(``embedstore plt train``, its Click command) for every command, in `--help` order;
    first ``embedstore`` itself, whose options are the global ones."""
    if group is None:
        group = typer.main.get_group(app)
        yield path, group
    for name, command in group.commands.items():
        if hasattr(command, "commands"):
            yield from commands(command, f"{path} {name}")
        else:
            yield f"{path} {name}", command


def options(command: Any) -> Iterator[Any]:
    return (p for p in command.params if p.param_type_name == "option" and not p.hidden)


def long_name(option: Any) -> str:
    """What names an option in the tables and the test: its first ``--`` spelling."""
    return str(next((o for o in option.opts if o.startswith("--")), option.opts[0]))


def default_text(option: Any) -> str:
    said = _SAID_DEFAULT.search(option.help or "")
    if said:
        return said.group(1)
    if option.is_flag and option.secondary_opts:  # --bf16/--fp32: the one that is on
        return str(option.opts[0] if option.default else option.secondary_opts[0])
    if option.is_flag:
        return "on" if option.default else "off"
    if option.default is None or option.default in ([], ()):
        return "-"
    return str(option.default)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _row(option: Any) -> str:
    names = [long_name(option), *(o for o in option.opts if o != long_name(option))]
    spelled = " / ".join([names[0], *option.secondary_opts]) if option.secondary_opts else names[0]
    metavar = option.metavar or "|".join(option_choices(option))
    if metavar:
        spelled += f" {metavar}"
    shown = ", ".join([f"`{spelled}`", *(f"`{n}`" for n in names[1:])])
    what = _SAID_DEFAULT.sub("", option.help or "").strip()
    return f"| {_cell(shown)} | {_cell(default_text(option))} | {_cell(what)} |"


def tables() -> str:
    """Every command's options as Markdown, between BEGIN and END."""
    parts = [BEGIN]
    for path, command in commands():
        summary = (command.help or "").strip().split("\n\n")[0]
        parts += ["", f"### `{path}`", "", _cell(summary), "",
                  "| option | default | what it does |", "| --- | --- | --- |"]
        parts += [_row(option) for option in options(command)]
    parts += ["", END]
    return "\n".join(parts)


def write(page: Path) -> None:
    text = page.read_text()
    start, end = text.index(BEGIN), text.index(END) + len(END)
    page.write_text(text[:start] + tables() + text[end:])


if __name__ == "__main__":
    if sys.argv[1:2] == ["--write"]:
        write(Path(sys.argv[2]))
    else:
        print(tables())
