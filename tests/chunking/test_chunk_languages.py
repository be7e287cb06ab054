"""One real snippet per supported language, with the exact chunks expected.

The budget is generous, so these pin down where definitions start and end
(comments, decorators and attributes above them included) and how the code
between them is kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from embedstore.chunking import Chunk

if TYPE_CHECKING:
    from conftest import Layout

PYTHON = '''\
"""Caching helpers."""
import os
import sys


# Cached reads of small files.
@dataclass
class FileCache(Base):
    """Remembers file contents."""

    limit: int = 10

    def get(self, path):
        if path not in self.items:
            self.items[path] = open(path).read()
        return self.items[path]


async def warm(cache, paths):
    for path in paths:
        await cache.get(path)
    return len(paths)
'''

JAVASCRIPT = """\
import { readFile } from "fs";

// Parses one line of a CSV file.
export function parseLine(line) {
  const cells = line.split(",");
  return cells.map((cell) => cell.trim());
}

export const sum = (values) => {
  let total = 0;
  for (const value of values) total += value;
  return total;
};

class Table {
  constructor(rows) {
    this.rows = rows;
  }

  width() {
    return this.rows[0].length;
  }
}
"""

TYPESCRIPT = """\
import { Request } from "./http";

/** A user as stored. */
export interface User {
  id: number;
  name: string;
  email: string;
}

export type UserId = User["id"];

export class UserStore {
  private users = new Map<UserId, User>();

  add(user: User): void {
    this.users.set(user.id, user);
  }
}

export async function load(request: Request): Promise<User[]> {
  const body = await request.json();
  const users = body.users as User[];
  return users.filter((user) => user.id > 0);
}
"""

TSX = """\
import React from "react";

type Props = { name: string };

export function Greeting({ name }: Props) {
  const text = `Hello, ${name}`;
  return (
    <div className="greeting">
      <h1>{text}</h1>
    </div>
  );
}

export const Farewell = ({ name }: Props) => {
  return (
    <p>
      Bye, {name}
    </p>
  );
};
"""

GO = """\
package geometry

import "math"

// Point is a location in the plane.
type Point struct {
	X float64
	Y float64
}

// Distance returns the Euclidean distance to q.
func (p *Point) Distance(q Point) float64 {
	dx := p.X - q.X
	dy := p.Y - q.Y
	return math.Sqrt(dx*dx + dy*dy)
}

func Origin() Point {
	var p Point
	p.X = 0
	p.Y = 0
	return p
}
"""

RUST = """\
use std::fmt;

/// A rectangle.
#[derive(Debug, Clone)]
pub struct Rect {
    width: u32,
    height: u32,
}

impl Rect {
    pub fn area(&self) -> u32 {
        self.width * self.height
    }

    pub fn square(side: u32) -> Self {
        Rect { width: side, height: side }
    }
}

impl fmt::Display for Rect {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}
"""

JAVA = """\
package shop;

import java.util.List;

/** A shopping cart. */
public class Cart {
    private final List<Item> items;

    public Cart(List<Item> items) {
        this.items = items;
    }

    @Override
    public String toString() {
        return "Cart" + items;
    }
}
"""

C = """\
#include <stdio.h>
#include <stdlib.h>

/* A growable buffer. */
struct buffer {
    char *data;
    size_t size;
};

static int grow(struct buffer *b, size_t extra)
{
    char *data = realloc(b->data, b->size + extra);
    if (data == NULL)
        return -1;
    b->data = data;
    return 0;
}
"""

CPP = """\
#include <string>

namespace text {

// Counts words in a string.
class WordCounter {
 public:
  explicit WordCounter(std::string s) : s_(std::move(s)) {}
  int count() const;

 private:
  std::string s_;
};

int WordCounter::count() const {
  int n = 0;
  bool in_word = false;
  for (char c : s_) {
    if (c == ' ') in_word = false;
    else if (!in_word) { in_word = true; ++n; }
  }
  return n;
}

}  // namespace text
"""

# language -> (source, max_tokens, expected (kind, symbol, start_line, end_line)).
CASES: dict[str, tuple[str, int, Layout]] = {
    "python": (
        PYTHON,
        1000,
        [
            ("module", None, 1, 3),
            ("class", "FileCache", 6, 16),
            ("function", "warm", 19, 22),
        ],
    ),
    "javascript": (
        JAVASCRIPT,
        1000,
        [
            ("module", None, 1, 1),
            ("function", "parseLine", 3, 7),
            ("function", "sum", 9, 13),
            ("class", "Table", 15, 23),
        ],
    ),
    "typescript": (
        TYPESCRIPT,
        1000,
        [
            ("module", None, 1, 1),
            ("interface", "User", 3, 8),
            ("type", "UserId", 10, 10),
            ("class", "UserStore", 12, 18),
            ("function", "load", 20, 24),
        ],
    ),
    "tsx": (
        TSX,
        1000,
        [
            # The import and the one-line type alias are merged as tiny neighbours.
            ("module", "Props", 1, 3),
            ("function", "Greeting", 5, 12),
            ("function", "Farewell", 14, 20),
        ],
    ),
    "go": (
        GO,
        1000,
        [
            ("module", None, 1, 3),
            ("type", "Point", 5, 9),
            ("method", "Point.Distance", 11, 16),
            ("function", "Origin", 18, 23),
        ],
    ),
    "rust": (
        RUST,
        1000,
        [
            ("module", None, 1, 1),
            ("type", "Rect", 3, 8),
            ("impl", "Rect", 10, 18),
            ("impl", "Rect", 20, 24),
        ],
    ),
    "java": (
        JAVA,
        1000,
        [
            ("module", None, 1, 3),
            ("class", "Cart", 5, 17),
        ],
    ),
    "c": (
        C,
        1000,
        [
            ("module", None, 1, 2),
            ("type", "buffer", 4, 8),
            ("function", "grow", 10, 17),
        ],
    ),
    "cpp": (
        CPP,
        # Too small for the whole namespace (71 words), so its members are chunked.
        60,
        [
            ("module", None, 1, 1),
            ("namespace", "text", 3, 3),
            ("class", "text.WordCounter", 5, 13),
            ("function", "text.WordCounter::count", 15, 23),
            ("namespace", "text", 25, 25),
        ],
    ),
}


@pytest.mark.parametrize("language", sorted(CASES))
def test_chunks_follow_definitions(language: str, outline: Callable[..., Layout]) -> None:
    text, max_tokens, expected = CASES[language]
    assert outline(text, language, max_tokens) == expected


def test_whole_class_fits_as_one_chunk_with_members_inside(
    chunk: Callable[..., list[Chunk]],
) -> None:
    table = chunk(JAVASCRIPT, "javascript")[-1]
    assert table.symbol == "Table"
    assert "constructor(rows)" in table.text and "width()" in table.text


def test_members_of_a_split_container_carry_its_header(chunk: Callable[..., list[Chunk]]) -> None:
    members = [c for c in chunk(CPP, "cpp", 60) if c.symbol and "WordCounter" in c.symbol]
    assert [c.context for c in members] == ["namespace text {", "namespace text {"]


@pytest.mark.parametrize(
    ("language", "source", "symbol", "first_line"),
    [
        ("python", PYTHON, "FileCache", "# Cached reads of small files."),
        ("javascript", JAVASCRIPT, "parseLine", "// Parses one line of a CSV file."),
        ("go", GO, "Point.Distance", "// Distance returns the Euclidean distance to q."),
        ("rust", RUST, "Rect", "/// A rectangle."),
        ("java", JAVA, "Cart", "/** A shopping cart. */"),
    ],
)
def test_leading_comments_belong_to_the_definition(
    chunk: Callable[..., list[Chunk]], language: str, source: str, symbol: str, first_line: str
) -> None:
    owner = next(c for c in chunk(source, language) if c.symbol == symbol)
    assert owner.text.split("\n")[0] == first_line


def test_comment_separated_by_a_blank_line_stays_outside(outline: Callable[..., Layout]) -> None:
    body = "".join(f"    a += {n}\n" for n in range(4))
    source = f"x = 1\n# about x\n\ndef f(a):\n{body}    return a\n"
    assert outline(source, "python") == [("module", None, 1, 2), ("function", "f", 4, 9)]


def test_class_over_budget_is_split_and_its_closing_brace_joins_the_last_member(
    outline: Callable[..., Layout],
) -> None:
    assert outline(JAVA, "java", 20) == [
        ("module", None, 1, 3),
        ("class", "Cart", 5, 7),
        ("method", "Cart.Cart", 9, 11),
        # Annotations belong to the method; line 17 is the class's "}".
        ("method", "Cart.toString", 13, 17),
    ]
