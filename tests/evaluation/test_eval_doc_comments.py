"""Queries mined from doc comments: one real snippet per language, exact lines expected.

Each snippet also holds comments that must not become queries: too short, not
a doc comment (`////`), or separated from the function by a blank line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from embedstore.chunking import chunk_file
from embedstore.evaluation.dataset import build_corpus, strip_docs
from embedstore.evaluation.doc_comments import documented_functions
from embedstore.evaluation.hit_rules import TIGHT, is_hit

JAVASCRIPT = """\
const path = require("path");

/**
 * Resolves a module name to the path of its entry file.
 * @param {string} name
 */
function resolveModule(name) {
  const dir = path.join(ROOT, "node_modules", name);
  return path.join(dir, require(path.join(dir, "package.json")).main);
}

module.exports = { resolveModule };
"""

TYPESCRIPT = """\
import { readFile } from "fs/promises";

/**
 * Reads a JSON settings file and merges it with the defaults.
 *
 * @param path - where the file lives
 * @returns the merged settings
 */
export async function loadSettings(path: string): Promise<Settings> {
  const raw = await readFile(path, "utf8");
  return { ...DEFAULTS, ...JSON.parse(raw) };
}

/** Too short. */
function noop(): void {}

export class Cache {
  /**
   * Returns the cached value for {@link key}, computing it once.
   */
  @memoize()
  get(key: string): string {
    return this.compute(key);
  }
}

/** Splits a comma separated line into trimmed cells. */
export const parseLine = (line: string): string[] =>
  line.split(",").map((cell) => cell.trim());
"""

GO = """\
package geometry

import "math"

// Distance returns the Euclidean distance between two points.
// It never fails.
func Distance(p, q Point) float64 {
	dx := p.X - q.X
	dy := p.Y - q.Y
	return math.Sqrt(dx*dx + dy*dy)
}

// Scale multiplies both coordinates of the point by a factor.
//
//go:noinline
func (p *Point) Scale(f float64) {
	p.X *= f
	p.Y *= f
}

// Origin is the centre.

func Origin() Point { return Point{} }
"""

RUST = """\
use std::fs;

/// Reads the whole configuration file into a string.
///
/// # Errors
/// Fails when the file cannot be read.
#[inline]
pub fn read_config(path: &str) -> std::io::Result<String> {
    fs::read_to_string(path)
}

impl Rect {
    //// Not a doc comment: four slashes make an ordinary one.
    pub fn area(&self) -> u32 {
        self.width * self.height
    }

    /// Builds a square rectangle with the given side length.
    pub fn square(side: u32) -> Self {
        Rect { width: side, height: side }
    }
}
"""

JAVA = """\
package shop;

import java.util.List;

public class Cart {
    private final List<Item> items;

    /**
     * Creates a cart holding the given list of items.
     */
    public Cart(List<Item> items) {
        this.items = items;
    }

    /**
     * Computes the total price of every item in the cart, in cents.
     * <p>Taxes are not included.
     *
     * @return the total
     */
    @Override
    public long total() {
        return items.stream().mapToLong(Item::price).sum();
    }
}
"""

KOTLIN = """\
package web.cache

/**
 * Keeps fetched pages in memory.
 */
class PageCache(private val limit: Int) {
    /**
     * Returns the cached body of [url], fetching it on the first call.
     *
     * @param url the page address
     */
    @Synchronized
    fun fetch(url: String): String {
        return pages.getOrPut(url) { URL(url).readText() }
    }
}
"""

SCALA = """\
package web.cache

object Pages {
  /** Downloads the page at the given address as one string.
    *
    * @param url the page address
    */
  def download(url: String): String =
    Source.fromURL(url).mkString
}
"""

PHP = """\
<?php

namespace App\\Billing;

final class InvoiceService
{
    /**
     * Sends the invoice for one order to the customer by email.
     *
     * @throws MailerException
     */
    #[Retry(3)]
    public function send(Order $order): void
    {
        $this->mailer->send($order->customer(), $this->render($order));
    }
}
"""

CSHARP = """\
namespace Web.Caching
{
    public class PageCache
    {
        /// <summary>
        /// Returns the cached body of the page at <paramref name="url"/>, fetching it once.
        /// </summary>
        /// <param name="url">The page address.</param>
        [Obsolete("Use FetchAsync")]
        public string Fetch(string url)
        {
            return _pages.GetOrAdd(url, u => _client.GetStringAsync(u).Result);
        }
    }
}
"""

SWIFT = """\
import Foundation

final class PageCache {
    /// Returns the cached body of a page, fetching it on first use.
    ///
    /// - Parameter url: The page address.
    @discardableResult
    func fetch(_ url: URL) throws -> String {
        return try String(contentsOf: url)
    }
}
"""

# language -> (path, source, expected (symbol, query, start_line, end_line, def_line)),
# lines in the stripped copy.
CASES: dict[str, tuple[str, str, list[tuple[str, str, int, int, int]]]] = {
    "javascript": (
        "lib/resolve.js",
        JAVASCRIPT,
        [("resolveModule", "Resolves a module name to the path of its entry file", 3, 6, 3)],
    ),
    "typescript": (
        "src/settings.ts",
        TYPESCRIPT,
        [
            ("loadSettings", "Reads a JSON settings file and merges it with the defaults", 3, 6, 3),
            # The decorator starts the target; `{@link key}` reads as `key`.
            ("get", "Returns the cached value for key, computing it once", 12, 15, 13),
            ("parseLine", "Splits a comma separated line into trimmed cells", 18, 19, 18),
        ],
    ),
    "go": (
        "geometry/point.go",
        GO,
        [
            # Go's docs open with the function's name, which would give the answer away.
            ("Distance", "returns the Euclidean distance between two points", 5, 9, 5),
            ("Scale", "multiplies both coordinates of the point by a factor", 11, 14, 11),
        ],
    ),
    "rust": (
        "src/config.rs",
        RUST,
        [
            ("read_config", "Reads the whole configuration file into a string", 3, 6, 4),
            ("square", "Builds a square rectangle with the given side length", 14, 16, 14),
        ],
    ),
    "java": (
        "shop/Cart.java",
        JAVA,
        [
            ("Cart", "Creates a cart holding the given list of items", 8, 10, 8),
            ("total", "Computes the total price of every item in the cart, in cents", 12, 15, 13),
        ],
    ),
    "kotlin": (
        "web/PageCache.kt",
        KOTLIN,
        # The class's KDoc gives no query: only functions are targets, as in Python.
        [("fetch", "Returns the cached body of url, fetching it on the first call", 7, 10, 8)],
    ),
    "scala": (
        "web/Pages.scala",
        SCALA,
        [("download", "Downloads the page at the given address as one string", 4, 5, 4)],
    ),
    "php": (
        "src/InvoiceService.php",
        PHP,
        [("send", "Sends the invoice for one order to the customer by email", 7, 11, 8)],
    ),
    "csharp": (
        "Web/PageCache.cs",
        CSHARP,
        [("Fetch", "Returns the cached body of the page at url, fetching it once", 5, 9, 6)],
    ),
    "swift": (
        "Sources/PageCache.swift",
        SWIFT,
        [("fetch", "Returns the cached body of a page, fetching it on first use", 4, 7, 5)],
    ),
}


@pytest.mark.parametrize("language", sorted(CASES))
def test_doc_comments_become_queries_and_leave_the_copy(language: str) -> None:
    path, source, expected = CASES[language]
    stripped, queries = strip_docs(source, path, language)
    found = [(q.symbol, q.query, q.start_line, q.end_line, q.def_line) for q in queries]
    assert found == expected
    lines = stripped.split("\n")
    for query in queries:
        assert query.path == path
        assert query.symbol in lines[query.def_line - 1]
        assert " ".join(query.query.split()[:3]) not in stripped  # the doc is gone...
    removed = {line for line in source.split("\n") if line not in lines}
    # ... and nothing but doc comments.
    assert all(line.strip().startswith(("/**", "*", "//")) for line in removed), removed


@pytest.mark.parametrize(
    ("language", "kept"),
    [
        ("typescript", "/** Too short. */"),
        ("go", "// Origin is the centre."),  # a blank line separates it from `func`
        ("rust", "//// Not a doc comment: four slashes make an ordinary one."),
    ],
)
def test_comments_that_give_no_query_stay(language: str, kept: str) -> None:
    path, source, _ = CASES[language]
    stripped, _ = strip_docs(source, path, language)
    assert kept in stripped


def test_doc_prose_drops_markup_and_stops_at_tags() -> None:
    docs = {d.symbol: d.doc for d in documented_functions(CASES["java"][1], "java")}
    assert docs["total"] == (
        "Computes the total price of every item in the cart, in cents.\nTaxes are not included."
    )


def test_trailing_comment_is_not_a_doc_comment() -> None:
    source = "let x = 1; /** Counts the lines of every file in the tree. */\nfunction f() {}\n"
    assert strip_docs(source, "a.js", "javascript") == (source, [])


def test_corpus_holds_every_mined_language(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "geometry").mkdir(parents=True)
    (repo / "geometry" / "point.go").write_text(GO)
    (repo / "tool.py").write_text(
        'def run():\n    """Run the tool on every file of the tree."""\n    return 0\n'
    )
    (repo / "setup.sh").write_text("# Builds everything in the tree twice.\nbuild() {\n  make\n}\n")
    queries = build_corpus(repo, tmp_path / "corpus")
    assert sorted(q.symbol for q in queries) == ["Distance", "Scale", "run"]
    corpus = tmp_path / "corpus"
    copied = sorted(path.relative_to(corpus).as_posix() for path in corpus.rglob("*.*"))
    # Shell has no doc comments to read, so its files are not part of the corpus.
    assert copied == ["geometry/point.go", "tool.py"]


TAGS_FIRST = """\
/**
 * @internal
 * Creates a reaction that runs the effect whenever the tracked values change.
 * @param effect - what to run
 *   when anything it read changes
 */
export function autorun(effect: () => void): Disposer {
  return track(effect);
}

/**
 * @name flow
 * @description Turns a generator function into a cancellable promise chain.
 */
export function flow(generator: Generator): Flow {
  return wrap(generator);
}

/**
 * @param value - a value that is never described
 *   on more than one line
 * @since 2.0.0
 */
export function silent(value: number): number {
  return value;
}
"""

OVERLOADS = """\
/** Parses one number from the decimal digits of a string. */
export function parse(text: string): number;
/** Parses every number of an array of decimal strings at once. */
export function parse(texts: string[]): number[];
export function parse(input: string | string[]): number | number[] {
  return Array.isArray(input) ? input.map(Number) : Number(input);
}

export interface Reader {
  /** Reads the next record from the underlying stream of bytes. */
  read(): Record;
}

export class Box {
  /** Returns the value stored under one key of the box. */
  get(key: string): string;
  get(key: string, fallback?: string): string {
    return this.store[key] ?? fallback;
  }
}
"""


def test_jsdoc_that_opens_with_tags_gives_its_description() -> None:
    docs = {d.symbol: d.doc for d in documented_functions(TAGS_FIRST, "typescript")}
    assert docs == {
        "autorun": "Creates a reaction that runs the effect whenever the tracked values change.",
        "flow": "Turns a generator function into a cancellable promise chain.",
        # A parameter's text is no description of the function.
        "silent": "",
    }


def test_a_documented_commonjs_assignment_is_a_documented_function() -> None:
    text = (
        "/**\n * Compiles a value into a function that makes ETags.\n */\n"
        "exports.compileETag = function (val) {\n  return val;\n};\n\n"
        "/** Matches a path against the layer's route. */\n"
        "Layer.prototype.match = function match(path) {\n  return path;\n};\n"
        "/** Not a definition: it only sets state. */\napp.locals = {};\n"
    )
    found = [(d.symbol, d.doc, d.name_row) for d in documented_functions(text, "javascript")]
    assert found == [
        ("compileETag", "Compiles a value into a function that makes ETags.", 3),
        ("match", "Matches a path against the layer's route.", 8),
    ]


def test_documented_overload_signatures_give_queries_on_their_own_lines() -> None:
    _, queries = strip_docs(OVERLOADS, "src/parse.ts", "typescript")
    assert [(q.symbol, q.query, q.start_line, q.def_line) for q in queries] == [
        ("parse", "Parses one number from the decimal digits of a string", 1, 1),
        # The function starts at its first overload signature, whichever one is documented.
        ("parse", "Parses every number of an array of decimal strings at once", 1, 2),
        # An interface's method signature declares no function that follows it.
        ("get", "Returns the value stored under one key of the box", 13, 13),
    ]


DOCUMENTED_IMPLEMENTATION = """\
export function firstValue<T>(source: Source<T>, fallback: T): Promise<T>;
export function firstValue<T>(source: Source<T>): Promise<T>;

/**
 * Converts a source to a promise that resolves with its first value.
 */
export function firstValue<T>(source: Source<T>, fallback?: T): Promise<T> {
  return source.first(fallback);
}
"""


def test_a_function_documented_below_its_overloads_is_them_and_it() -> None:
    # The chunker's one unit for the name, overloads and implementation, is the function.
    stripped, (query,) = strip_docs(DOCUMENTED_IMPLEMENTATION, "src/first.ts", "typescript")
    assert (query.start_line, query.def_line, query.end_line) == (1, 4, 6)
    words = lambda texts: [len(text.split()) for text in texts]  # noqa: E731
    (unit,) = chunk_file(stripped, "typescript", max_tokens=500, count_tokens=words)
    assert (unit.symbol, unit.start_line, unit.end_line) == ("firstValue", 1, 6)
    assert is_hit(TIGHT, query, "src/first.ts", unit.start_line, unit.end_line, unit.text)
