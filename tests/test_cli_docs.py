"""docs/cli.md and `--help` agree: every option of every command is in the page's option
tables with the app's default, and no option the page names is unknown to the app
(issue 31)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest

from embedstore.cli.reference import BEGIN, END, commands, default_text, long_name, options

PAGE = Path(__file__).resolve().parents[1] / "docs" / "cli.md"
FIX = "rewrite the tables: python -m embedstore.cli.reference --write docs/cli.md"
APP = dict(commands())
GLOBAL = APP["embedstore"]


def spellings(command: Any) -> set[str]:
    """Every way an option of ``command`` (or a global one) is written, ``-k`` included."""
    found = {"-h", "--help"}
    for option in [*options(command), *options(GLOBAL)]:
        found.update(option.opts, option.secondary_opts)
    return found


def documented_tables() -> dict[str, dict[str, str]]:
    """{command: {option: default}} from the page's option tables."""
    text = PAGE.read_text()
    block = text[text.index(BEGIN):text.index(END)]
    tables: dict[str, dict[str, str]] = {}
    current: dict[str, str] = {}
    for line in block.splitlines():
        heading = re.fullmatch(r"### `(embedstore[^`]*)`", line)
        if heading:
            current = tables.setdefault(heading.group(1), {})
        elif line.startswith("| `"):
            names, default = (cell.strip() for cell in line.strip("|").split(" | ")[:2])
            current[re.findall(r"--?[a-z][a-z0-9-]*", names)[0]] = default.replace("\\|", "|")
    return tables


def test_every_option_is_documented_with_its_default() -> None:
    expected = {path: {long_name(o): default_text(o) for o in options(command)}
                for path, command in APP.items()}
    assert documented_tables() == expected, FIX


def summary_rows() -> list[tuple[str, str]]:
    """(command, first cell) of each row of the page's Commands table."""
    text = PAGE.read_text()
    table = text[text.index("## Commands"):text.index("## Store, names and errors")]
    rows = []
    for line in table.splitlines():
        cell = line.strip("|").split(" | ")[0].strip()
        words = cell.strip("`").split()
        if not cell.startswith("`") or not words:
            continue
        command = " ".join(words[:2]) if words[0] == "plt" else words[0]
        rows.append((f"embedstore {command}", cell.replace("\\|", "|")))
    return rows


@pytest.mark.parametrize(("path", "cell"), summary_rows(), ids=lambda v: str(v)[:40])
def test_the_commands_table_names_known_options_with_true_defaults(path: str, cell: str) -> None:
    command = APP[path]
    known = spellings(command)
    for flag in re.findall(r"(?<![\w-])--?[a-z][a-z0-9-]*", cell):
        assert flag in known, f"{path}: {flag} is not an option of the command"
    # `[--limit 20000]` claims a default; `[--name N]` (a metavar) and `[--index a|b]` do not.
    for flag, value in re.findall(r"\[(--?[a-z][a-z0-9-]*) ([^\]\[ |]+)\]", cell):
        option = next(o for o in options(command) if flag in o.opts)
        if not value[0].isupper():
            assert value == default_text(option), f"{path}: [{flag} {value}], --help says otherwise"


def command_lines() -> list[str]:
    """Every `embedstore ...` command line in the page's examples and code spans."""
    text = PAGE.read_text()
    found = re.findall(r"^    (?:.*?)(embedstore [^#\n]*)", text, flags=re.M)
    found += re.findall(r"`(embedstore [^`]*)`", text)
    return [line for line in found if not line.startswith("embedstore/")]


@pytest.mark.parametrize("line", command_lines())
def test_every_example_uses_options_the_app_knows(line: str) -> None:
    words = shlex.split(re.split(r"[|>)]| <", line)[0].replace("...", ""))
    path = " ".join(words[:3] if words[1:2] == ["plt"] else words[:2])
    if path not in APP:  # `embedstore --color always search`: the command comes later
        later = [w for w in words[1:] if not w.startswith("-") and f"embedstore {w}" in APP]
        path = f"embedstore {later[0]}" if later else "embedstore"  # `embedstore --version`
    known = spellings(APP[path])
    for word in words:
        flag = word.split("=")[0]
        if re.fullmatch(r"--?[a-z][a-z0-9-]*", flag):
            assert flag in known, f"{line!r}: {flag} is not an option of {path}"


def test_help_names_the_registrys_default_encoder() -> None:
    """The words of a default may drift from the code: the encoder's did (issue 31)."""
    from embedstore.encoders.registry import DEFAULT_ENCODER

    own_name = DEFAULT_ENCODER.partition("/")[2].partition("@")[0]  # minilm-l6-code
    said = {path: default_text(o) for path, command in APP.items() for o in options(command)
            if long_name(o) in ("--encoder", "--base")}
    assert set(said) == {"embedstore index", "embedstore eval", "embedstore tune"}
    assert all(text.startswith(own_name) for text in said.values()), said
