"""Markdown and reStructuredText: one section per heading."""

from __future__ import annotations

from collections.abc import Callable

from embedstore.chunking import Chunk

README = """\
Intro line before any heading,
and its second line.

# Install

Run the installer for your system; it takes a minute or two
and needs a network connection the first time only.
Later runs work offline.

## Linux

Use the package manager of your distribution to install it,
then add your user to the group that may run the service.

```sh
# not a heading: inside a code fence
sudo apt install tool
```

## macOS

Install with Homebrew, which puts the binary on your path,
then start the service once by hand to accept the prompts.

Usage
=====

Call the tool with a file name and it prints a short report
about what it found, one line per problem, sorted by line.
"""


def sections(chunks: list[Chunk]) -> list[tuple[str | None, int, int, str]]:
    assert {chunk.kind for chunk in chunks} == {"section"}
    return [(chunk.symbol, chunk.start_line, chunk.end_line, chunk.context) for chunk in chunks]


def test_markdown_is_split_by_headings(chunk: Callable[..., list[Chunk]]) -> None:
    assert sections(chunk(README, "markdown")) == [
        (None, 1, 2, ""),
        ("Install", 4, 8, ""),
        # The fenced "# not a heading" stays in its section.
        ("Linux", 10, 18, "Install"),
        ("macOS", 20, 23, "Install"),
        # A setext heading (underlined with "=") is a top-level heading again.
        ("Usage", 25, 29, ""),
    ]


def test_long_section_pieces_carry_the_heading_path(chunk: Callable[..., list[Chunk]]) -> None:
    assert sections(chunk(README, "markdown", 30))[2:4] == [
        ("Linux", 10, 15, "Install"),
        ("Linux", 16, 18, "Install > Linux"),
    ]


def test_tiny_sections_are_merged(chunk: Callable[..., list[Chunk]]) -> None:
    text = "# API\n\n## get\nReads.\n\n## put\nWrites.\n"
    assert sections(chunk(text, "markdown")) == [("API, get, put", 1, 7, "")]


def test_hashes_without_a_space_are_not_headings(chunk: Callable[..., list[Chunk]]) -> None:
    text = "# Tags\n#python #search\n" + "".join(f"line {n}\n" for n in range(5))
    assert sections(chunk(text, "markdown")) == [("Tags", 1, 7, "")]


def test_rst_levels_follow_the_order_of_adornments(chunk: Callable[..., list[Chunk]]) -> None:
    body = "".join(f"Paragraph line {n} of the section.\n" for n in range(4))
    text = f"=====\nGuide\n=====\n\n{body}\nSetup\n-----\n\n{body}\nUsage\n-----\n\n{body}"
    assert sections(chunk(text, "rst")) == [
        ("Guide", 1, 8, ""),
        ("Setup", 10, 16, "Guide"),
        ("Usage", 18, 24, "Guide"),
    ]
