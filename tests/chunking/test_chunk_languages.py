"""One real snippet per supported language, with the exact chunks expected.

The budget is generous, so these pin down where definitions start and end
(comments, decorators and attributes above them included) and how the code
between them is kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import pytest

from embedstore.chunking import Chunk, code_outline, treesitter
from embedstore.chunking.outline import Block, header_text
from tests.chunking.test_symbols import COMMONJS

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

RUBY = """\
require "net/http"

# Fetches pages and remembers them.
class PageCache
  def self.default
    @default ||= new(100)
  end

  def initialize(limit)
    @limit = limit
    @pages = {}
  end

  # Returns the cached body, fetching it once.
  def fetch(url)
    return @pages[url] if @pages.key?(url)

    @pages.shift if @pages.size >= @limit
    @pages[url] = Net::HTTP.get(URI(url))
  end
end

def warm(cache, urls)
  urls.each do |url|
    cache.fetch(url)
  end
  urls.size
end
"""

PHP = """\
<?php

namespace App\\Cache;

/**
 * Fetches pages and remembers them.
 */
class PageCache
{
    private array $pages = [];

    public function __construct(private int $limit)
    {
        $this->pages = [];
    }

    // Returns the cached body, fetching it once.
    public function fetch(string $url): string
    {
        if (!isset($this->pages[$url])) {
            $this->pages[$url] = file_get_contents($url);
        }
        return $this->pages[$url];
    }
}

function warm(PageCache $cache, array $urls): int
{
    foreach ($urls as $url) {
        $cache->fetch($url);
    }
    return count($urls);
}
"""

CSHARP = """\
using System.Collections.Generic;
using System.Net.Http;

namespace Web.Caching
{
    /// <summary>Fetches pages and remembers them.</summary>
    public class PageCache
    {
        private readonly Dictionary<string, string> _pages = new();

        public PageCache(HttpClient client)
        {
            _client = client;
        }

        [Obsolete("Use FetchAsync")]
        public string Fetch(string url)
        {
            if (!_pages.TryGetValue(url, out var body))
            {
                body = _client.GetStringAsync(url).Result;
                _pages[url] = body;
            }
            return body;
        }
    }

    public static class Warmer
    {
        public static int Warm(PageCache cache, IEnumerable<string> urls)
        {
            var count = 0;
            foreach (var url in urls)
            {
                cache.Fetch(url);
                count++;
            }
            return count;
        }
    }
}
"""

KOTLIN = """\
package web.cache

import java.net.URL

/** Fetches pages and remembers them. */
class PageCache(private val limit: Int) {
    private val pages = LinkedHashMap<String, String>()

    fun fetch(url: String): String {
        return pages.getOrPut(url) {
            URL(url).readText()
        }
    }

    // Forgets every page.
    fun clear() {
        pages.clear()
        println("cache cleared")
    }

    companion object {
        fun unbounded(): PageCache = PageCache(Int.MAX_VALUE)
    }
}

fun warm(cache: PageCache, urls: List<String>): Int {
    for (url in urls) {
        cache.fetch(url)
    }
    return urls.size
}
"""

SWIFT = """\
import Foundation

/// Fetches pages and remembers them.
final class PageCache {
    private var pages: [URL: String] = [:]

    init(limit: Int) {
        self.limit = limit
        self.pages = [:]
    }

    // Returns the cached body, fetching it once.
    func fetch(_ url: URL) throws -> String {
        if let page = pages[url] {
            return page
        }
        let body = try String(contentsOf: url)
        pages[url] = body
        return body
    }
}

func warm(_ cache: PageCache, urls: [URL]) throws -> Int {
    for url in urls {
        _ = try cache.fetch(url)
    }
    return urls.count
}
"""

SCALA = """\
package web.cache

import scala.collection.mutable
import scala.io.Source

/** Fetches pages and remembers them. */
class PageCache(limit: Int) {
  private val pages = mutable.LinkedHashMap.empty[String, String]

  def fetch(url: String): String =
    pages.getOrElseUpdate(url, {
      Source.fromURL(url).mkString
    })

  // Forgets every page.
  def clear(): Unit = {
    pages.clear()
    println("cache cleared")
  }
}

object Warmer {
  def warm(cache: PageCache, urls: Seq[String]): Int = {
    urls.foreach(cache.fetch)
    urls.size
  }
}
"""

LUA = """\
local http = require("socket.http")

--- Fetches pages and remembers them.
local PageCache = {}
PageCache.__index = PageCache

function PageCache.new(limit)
  local self = setmetatable({}, PageCache)
  self.limit = limit
  self.pages = {}
  return self
end

-- Returns the cached body, fetching it once.
function PageCache:fetch(url)
  if self.pages[url] == nil then
    self.pages[url] = http.request(url)
  end
  return self.pages[url]
end

local warm = function(cache, urls)
  for _, url in ipairs(urls) do
    cache:fetch(url)
  end
  return #urls
end

return { PageCache = PageCache, warm = warm }
"""

SHELL = """\
#!/usr/bin/env bash
set -euo pipefail

CACHE_DIR="${CACHE_DIR:-$HOME/.cache/pages}"

# Prints the cached body of a page, fetching it once.
fetch() {
  local url="$1"
  local file="$CACHE_DIR/$(echo "$url" | sha1sum | cut -c1-40)"
  [[ -f "$file" ]] || curl -fsSL "$url" -o "$file"
  cat "$file"
}

function warm {
  mkdir -p "$CACHE_DIR"
  for url in "$@"; do
    fetch "$url" > /dev/null
  done
}

warm "$@"
"""

# language -> (source, max_tokens, expected (kind, symbol, start_line, end_line)).
CASES: dict[str, tuple[str, int, Layout]] = {
    "python": (
        PYTHON,
        1000,
        [
            ("module", None, 1, 3),
            ("class", "FileCache", 6, 16),
            ("method", "FileCache.get", 13, 16),
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
            ("method", "Table.constructor", 16, 18),
            ("method", "Table.width", 20, 23),
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
            ("method", "UserStore.add", 15, 18),
            ("function", "load", 20, 24),
        ],
    ),
    "tsx": (
        TSX,
        1000,
        [
            # The one-line type alias is named: it is not merged into the import's lines.
            ("module", None, 1, 1),
            ("type", "Props", 3, 3),
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
            ("method", "Rect.area", 11, 13),
            ("method", "Rect.square", 15, 18),
            ("impl", "Rect", 20, 24),
            ("method", "Rect.fmt", 21, 24),
        ],
    ),
    "java": (
        JAVA,
        1000,
        [
            ("module", None, 1, 3),
            ("class", "Cart", 5, 17),
            ("method", "Cart.Cart", 9, 11),
            ("method", "Cart.toString", 13, 17),
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
            ("method", "text.WordCounter.WordCounter", 8, 8),
            ("function", "text.WordCounter::count", 15, 23),
            ("namespace", "text", 25, 25),
        ],
    ),
    "ruby": (
        RUBY,
        1000,
        [
            ("module", None, 1, 1),
            ("class", "PageCache", 3, 21),
            ("method", "PageCache.default", 5, 7),
            ("method", "PageCache.initialize", 9, 12),
            ("method", "PageCache.fetch", 14, 20),
            ("function", "warm", 23, 28),
        ],
    ),
    "php": (
        PHP,
        1000,
        [
            ("module", None, 1, 3),
            ("class", "PageCache", 5, 25),
            ("method", "PageCache.__construct", 12, 15),
            ("method", "PageCache.fetch", 17, 25),
            ("function", "warm", 27, 33),
        ],
    ),
    "csharp": (
        CSHARP,
        # Too small for the namespace and its first class, so their members are chunked.
        45,
        [
            ("module", None, 1, 2),
            ("namespace", "Web.Caching", 4, 5),
            # The class whole, as its outline, then its members on their own.
            ("class", "Web.Caching.PageCache", 6, 26),
            ("method", "Web.Caching.PageCache.PageCache", 11, 14),
            # The class's closing brace joins its last member, the namespace's the last class.
            ("method", "Web.Caching.PageCache.Fetch", 16, 26),
            ("class", "Web.Caching.Warmer", 28, 41),
            ("method", "Web.Caching.Warmer.Warm", 30, 41),
        ],
    ),
    "kotlin": (
        KOTLIN,
        1000,
        [
            ("module", None, 1, 3),
            ("class", "PageCache", 5, 24),
            ("method", "PageCache.fetch", 9, 13),
            ("method", "PageCache.clear", 15, 19),
            ("method", "PageCache.unbounded", 22, 24),
            ("function", "warm", 26, 31),
        ],
    ),
    "swift": (
        SWIFT,
        1000,
        [
            ("module", None, 1, 1),
            ("class", "PageCache", 3, 21),
            ("method", "PageCache.init", 7, 10),
            ("method", "PageCache.fetch", 12, 21),
            ("function", "warm", 23, 28),
        ],
    ),
    "scala": (
        SCALA,
        1000,
        [
            ("module", None, 1, 4),
            ("class", "PageCache", 6, 20),
            ("method", "PageCache.fetch", 10, 13),
            ("method", "PageCache.clear", 15, 20),
            ("class", "Warmer", 22, 27),
            ("method", "Warmer.warm", 23, 27),
        ],
    ),
    "lua": (
        LUA,
        1000,
        [
            ("module", None, 1, 5),
            ("function", "PageCache.new", 7, 12),
            ("function", "PageCache.fetch", 14, 20),
            ("function", "warm", 22, 27),
            ("module", None, 29, 29),
        ],
    ),
    "shell": (
        SHELL,
        1000,
        [
            # The shebang leads nothing: a blank line and code separate it from `fetch`.
            ("module", None, 1, 4),
            ("function", "fetch", 6, 12),
            ("function", "warm", 14, 19),
            ("module", None, 21, 21),
        ],
    ),
}


@pytest.mark.parametrize("language", sorted(CASES))
def test_chunks_follow_definitions(language: str, outline: Callable[..., Layout]) -> None:
    text, max_tokens, expected = CASES[language]
    assert outline(text, language, max_tokens) == expected


def test_a_class_that_fits_is_its_outline_beside_its_members(
    chunk: Callable[..., list[Chunk]],
) -> None:
    chunks = {c.symbol: c for c in chunk(JAVASCRIPT, "javascript")}
    table = chunks["Table"]
    assert "constructor(rows)" in table.text and "width()" in table.text
    assert "this.rows[0].length" not in table.text
    assert "this.rows[0].length" in chunks["Table.width"].text


def test_commonjs_assignments_are_units_of_their_own(chunk: Callable[..., list[Chunk]]) -> None:
    # Search finds `exports.compileETag = function` and `Layer.prototype.match` by name,
    # not inside an unnamed run of the file's statements.
    chunks = {c.symbol: c for c in chunk(COMMONJS, "javascript")}
    assert {"compileETag", "MAX_AGE", "Layer", "Layer.match", "app.init"} <= set(chunks)
    assert chunks["Layer.match"].kind == "method"
    assert "return path === this.path;" in chunks["Layer.match"].text
    assert "this.path = path;" not in chunks["Layer.match"].text


def test_members_of_a_split_container_carry_its_header(chunk: Callable[..., list[Chunk]]) -> None:
    members = [c for c in chunk(CPP, "cpp", 60) if c.symbol and "WordCounter" in c.symbol]
    assert [c.context for c in members] == [
        "namespace text {", "namespace text {\nclass WordCounter {", "namespace text {"
    ]


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
        # Its outline, in two pieces: each reaches to the end of the last member it outlines.
        ("class", "Cart", 5, 11),
        ("method", "Cart.Cart", 9, 11),
        # Annotations belong to the method; line 17 is the class's "}".
        ("method", "Cart.toString", 13, 17),
        ("class", "Cart", 13, 17),
    ]


# Every definition the walker finds, members after their container, whatever the budget.
DEFINITIONS: dict[str, tuple[str, list[tuple[str, str | None, int, int]]]] = {
    "ruby": (
        RUBY,
        [
            ("class", "PageCache", 3, 21),
            ("method", "PageCache.default", 5, 7),
            ("method", "PageCache.initialize", 9, 12),
            ("method", "PageCache.fetch", 14, 20),
            ("function", "warm", 23, 28),
        ],
    ),
    "php": (
        PHP,
        [
            ("class", "PageCache", 5, 25),
            ("method", "PageCache.__construct", 12, 15),
            ("method", "PageCache.fetch", 17, 24),
            ("function", "warm", 27, 33),
        ],
    ),
    "csharp": (
        CSHARP,
        [
            ("namespace", "Web.Caching", 4, 41),
            ("class", "Web.Caching.PageCache", 6, 26),
            ("method", "Web.Caching.PageCache.PageCache", 11, 14),
            ("method", "Web.Caching.PageCache.Fetch", 16, 25),
            ("class", "Web.Caching.Warmer", 28, 40),
            ("method", "Web.Caching.Warmer.Warm", 30, 39),
        ],
    ),
    "kotlin": (
        KOTLIN,
        [
            ("class", "PageCache", 5, 24),
            ("method", "PageCache.fetch", 9, 13),
            ("method", "PageCache.clear", 15, 19),
            # A companion object's members belong to the class.
            ("method", "PageCache.unbounded", 22, 22),
            ("function", "warm", 26, 31),
        ],
    ),
    "swift": (
        SWIFT,
        [
            ("class", "PageCache", 3, 21),
            ("method", "PageCache.init", 7, 10),
            ("method", "PageCache.fetch", 12, 20),
            ("function", "warm", 23, 28),
        ],
    ),
    "scala": (
        SCALA,
        [
            ("class", "PageCache", 6, 20),
            # The grammar ends `fetch`'s indented body at `def clear`, comment included;
            # the comment is outdented, so it leads `clear` instead.
            ("method", "PageCache.fetch", 10, 13),
            ("method", "PageCache.clear", 15, 19),
            ("class", "Warmer", 22, 27),
            ("method", "Warmer.warm", 23, 26),
        ],
    ),
    "lua": (
        LUA,
        [
            ("function", "PageCache.new", 7, 12),
            ("function", "PageCache.fetch", 14, 20),  # `PageCache:fetch`
            ("function", "warm", 22, 27),  # `local warm = function(...)`
        ],
    ),
    "shell": (SHELL, [("function", "fetch", 6, 12), ("function", "warm", 14, 19)]),
}


def _walk(blocks: Sequence[Block]) -> list[Block]:
    """The blocks in order, each followed by its members."""
    return [b for block in blocks for b in (block, *_walk(block.children))]


@pytest.mark.parametrize("language", sorted(DEFINITIONS))
def test_definitions_and_their_owners(language: str) -> None:
    text, expected = DEFINITIONS[language]
    parsed = treesitter.outline(text, language)
    assert parsed is not None and parsed.clean
    assert [(b.kind, b.symbol, b.start, b.end) for b in _walk(parsed.blocks)] == expected


GENERIC_TS = """\
export class QueryObserver<
  TQueryFnData = unknown,
  TError = DefaultError,
  TData = TQueryFnData,
> extends Subscribable<QueryObserverListener<TData, TError>> {
  getCurrentResult(): QueryObserverResult<TData, TError> {
    return this.#currentResult
  }
}
"""
GENERIC_RUST = """\
impl<'a, T: Display + 'a> Render<'a, T> for Page<T> {
    fn title(&self) -> &str {
        &self.title
    }
}
"""
GENERIC_GO = """\
package cache

type Cache[K comparable, V any] struct {
\tentries map[K]V
}
"""
GENERIC_JAVA = """\
public class Box<T extends Comparable<T>> implements Holder<T> {
    public <U> U map(Function<T, U> f) { return f.apply(value); }
}
"""


@pytest.mark.parametrize(
    ("language", "source", "symbol", "header"),
    [
        # The `[Obsolete(...)]` line above the signature is left out.
        ("csharp", CSHARP, "Web.Caching.PageCache.Fetch", "public string Fetch(string url)"),
        ("php", PHP, "PageCache.fetch", "public function fetch(string $url): string"),
        ("lua", LUA, "warm", "local warm = function(cache, urls)"),
        # A definition's own type parameters are left out: a generic class's ran over lines
        # and headed every member's chunk. Type arguments (`Subscribable<...>`) stay.
        ("typescript", GENERIC_TS, "QueryObserver",
         "export class QueryObserver extends Subscribable<QueryObserverListener<TData, TError>> {"),
        ("rust", GENERIC_RUST, "Page", "impl Render<'a, T> for Page<T> {"),
        ("go", GENERIC_GO, "Cache", "type Cache struct {"),
        ("java", GENERIC_JAVA, "Box", "public class Box implements Holder<T> {"),
        ("java", GENERIC_JAVA, "Box.map",
         "public U map(Function<T, U> f) { return f.apply(value); }"),
    ],
)
def test_headers_are_the_signatures(language: str, source: str, symbol: str, header: str) -> None:
    parsed = treesitter.outline(source, language)
    assert parsed is not None
    headers = {block.symbol: block.header for block in _walk(parsed.blocks)}
    assert headers[symbol] == header


def test_a_member_of_a_generic_class_is_headed_by_its_name_not_its_parameters(
    chunk: Callable[..., list[Chunk]],
) -> None:
    chunks = chunk(GENERIC_TS, "typescript")
    member = next(c for c in chunks if c.symbol == "QueryObserver.getCurrentResult")
    assert member.context.startswith("export class QueryObserver extends")
    assert "TQueryFnData" not in member.context


def test_bracketed_lines_are_annotations_only_when_whole() -> None:
    attribute = ["[HttpGet(\"pages\")]", "public string Get()"]
    computed = ["[Symbol.iterator](", "  options,", ") {"]
    assert header_text(attribute, 1, 2) == "public string Get()"
    assert header_text(computed, 1, 3) == "\n".join(line.strip() for line in computed)


TS_OVERLOADS = """\
import { pad } from "./text";

// Parses a value.
function parse(a: string): string;
function parse(a: number): number;
function parse(a: any): any {
  return a;
}

export function wrap(s: string): string;
export function wrap(s: string, n: number): string;
export function wrap(s: string, n = 2): string {
  return pad(s, n);
}

declare function lonely(a: string): void;

class Box {
  get(key: string): string;
  get(key: number): number;
  get(key: any): any {
    return this.items[key];
  }

  get size(): number {
    return this._size;
  }

  set size(value: number) {
    this._size = value;
  }
}
"""


def test_typescript_overload_signatures_fold_into_their_implementation(
    outline: Callable[..., Layout],
) -> None:
    assert outline(TS_OVERLOADS, "typescript", 30) == [
        ("module", None, 1, 1),
        # From the comment above the first signature to the implementation's end.
        ("function", "parse", 3, 8),
        ("function", "wrap", 10, 14),
        # A signature with no implementation after it is no definition, as before.
        ("module", None, 16, 16),
        ("class", "Box", 18, 32),
        ("method", "Box.get", 19, 23),
        # A getter and a setter: one unit (with the class's closing brace).
        ("method", "Box.size", 25, 32),
    ]
    blocks = code_outline(TS_OVERLOADS, "typescript") or []
    assert [b.header for b in blocks] == [
        "function parse(a: any): any {",
        "export function wrap(s: string, n = 2): string {",
        "class Box {",
    ]


def test_alternatives_and_overloads_side_by_side_are_one_definition() -> None:
    c = (
        "#ifdef _WIN32\nint getch(void) {\n    return _getch();\n}\n"
        "#else\nint getch(void) {\n    return getchar();\n}\n#endif\n"
    )
    java = (
        "class Sum {\n    void add(int x) {\n        total += x;\n    }\n\n"
        "    void add(String x) {\n        total += Integer.parseInt(x);\n    }\n\n"
        "    void reset() {\n        total = 0;\n    }\n}\n"
    )
    assert [(b.symbol, b.start, b.end) for b in code_outline(c, "c") or []] == [("getch", 2, 8)]
    (owner,) = code_outline(java, "java") or []
    assert [(b.symbol, b.start, b.end) for b in owner.children] == [
        ("Sum.add", 2, 8),
        ("Sum.reset", 10, 12),
    ]


TS_VALUES = """\
import * as NEA from './NonEmptyArray'

/**
 * Prepend an element to the front of an array.
 */
export const prepend = NEA.prepend

/** The HTTP methods a route may answer, in the order they are tried. */
export const METHODS = ['get', 'post', 'put'] as const

/** Default options of every client. */
export const defaults = {
  retries: 3,
  timeout: 1000,
}
export const ZodString = core.$constructor('ZodString', init)
let counter = 0
const { left, right } = pair
"""


def test_typescript_named_values_are_units_with_their_doc_comments(
    outline: Callable[..., Layout],
) -> None:
    assert outline(TS_VALUES, "typescript") == [
        ("module", None, 1, 1),
        ("constant", "prepend", 3, 6),
        ("constant", "METHODS", 8, 9),
        ("constant", "defaults", 11, 15),
        ("constant", "ZodString", 16, 16),
        ("constant", "counter", 17, 17),
        # Destructuring names nothing a reader looks up: plain lines.
        ("module", None, 18, 18),
    ]


GO_VALUES = """\
package limits

// Limits of one request, in bytes.
const (
\tMaxHeader = 1 << 20
\tMaxBody, MaxForm = 10 << 20, 1 << 20
)

// ErrClosed is returned after Close.
var ErrClosed = errors.New("closed")

var (
\tmu    sync.Mutex
\tcache = map[string]int{}
)
"""

RUST_VALUES = """\
use std::time::Duration;

/// How long a connection may stay idle.
pub const IDLE: Duration = Duration::from_secs(90);

/// Connections opened so far.
static OPENED: AtomicUsize = AtomicUsize::new(0);

impl Pool {
    /// The most connections one pool opens.
    pub const MAX: usize = 64;
}
"""


def test_go_and_rust_values_are_units_named_by_their_names(
    outline: Callable[..., Layout],
) -> None:
    assert outline(GO_VALUES, "go") == [
        ("module", None, 1, 1),
        # A block is one unit, named by every name it declares.
        ("constant", "MaxHeader, MaxBody, MaxForm", 3, 7),
        ("variable", "ErrClosed", 9, 10),
        ("variable", "mu, cache", 12, 15),
    ]
    assert outline(RUST_VALUES, "rust") == [
        ("module", None, 1, 1),
        ("constant", "IDLE", 3, 4),
        ("variable", "OPENED", 6, 7),
        ("impl", "Pool", 9, 12),
        ("constant", "Pool.MAX", 10, 12),
    ]
    (*_, impl) = code_outline(RUST_VALUES, "rust") or []
    assert [(b.kind, b.symbol) for b in impl.children] == [("constant", "Pool.MAX")]


def test_a_value_holding_definitions_leaves_them_their_units(
    outline: Callable[..., Layout],
) -> None:
    bundle = (
        "var Lib = (() => {\n  function parse(text) {\n    return text.split(',');\n  }\n\n"
        "  const api = {\n    get(key) {\n      return store[key];\n    },\n  };\n"
        "  return { parse, api };\n})();\n"
    )
    assert [(kind, symbol) for kind, symbol, *_ in outline(bundle, "javascript") if symbol] == [
        ("function", "parse"),
        ("function", "get"),
    ]
