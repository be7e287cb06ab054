"""Code-at-cursor cases in Go, TypeScript, Rust and Java, on small real-shaped repositories.

Each repository is written line by line so that every expected case (cursor line,
kind, answer file and line) can be read off it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedstore.cli.app import app
from embedstore.evaluation.completion import ROWS, CompletionCase, build_cases, is_hit
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder

runner = CliRunner()

# A Go module with two packages besides `main`; `example.com/shop` is the module's root.
GO = {
    "go.mod": "module example.com/shop\n\ngo 1.21\n",
    "shop.go": """package shop

// DefaultSize is the size of a new cart.
const DefaultSize = 12

// Cart holds items.
type Cart struct {
	items []string
}

// NewCart makes an empty cart.
func NewCart() *Cart {
	return &Cart{items: make([]string, 0, DefaultSize)}
}
""",
    "cart_methods.go": """package shop

// Add puts an item in the cart.
func (c *Cart) Add(item string) {
	c.items = append(c.items, normalize(item))
}
""",
    "normalize.go": """package shop

import "strings"

func normalize(item string) string {
	return strings.TrimSpace(item)
}

func discard(item string) {
	_ = normalize(item)
}
""",
    # Files built under opposite constraints define the same names: each uses its own.
    "limit_big.go": "//go:build !small\n\npackage shop\n\nconst Limit = 100\n",
    "limit_small.go": """//go:build small

package shop

const Limit = 1

func limit() int {
	return Limit
}
""",
    # The blank identifier declares nothing: `_ =` above is no use of this.
    "assert.go": """package shop

import "fmt"

var _ fmt.Stringer = (*Cart)(nil)
""",
    "inventory/inventory.go": """package inventory

import "example.com/shop"

// Count counts a cart's items.
func Count(c *shop.Cart) int {
	c.Add("extra")
	return 0
}
""",
    "cmd/app/main.go": """package main

import (
	"fmt"

	"example.com/shop"
	inv "example.com/shop/inventory"
)

func main() {
	cart := shop.NewCart()
	var other shop.Cart
	other.Add("pear")
	fmt.Println(cart, shop.DefaultSize)
	fmt.Println(inv.Count(&other))
}
""",
}
GO_CASES = {
    # A sibling file's function: same package, no import.
    ("cart_methods.go", 5, "call", "normalize.go", 5, "normalize"),
    # A method by its receiver's type, the type of a parameter of another package.
    ("inventory/inventory.go", 7, "method", "cart_methods.go", 4, "Cart.Add"),
    ("cmd/app/main.go", 11, "call", "shop.go", 12, "NewCart"),  # the module's root package
    ("cmd/app/main.go", 13, "method", "cart_methods.go", 4, "Cart.Add"),  # `var other shop.Cart`
    ("cmd/app/main.go", 14, "attribute", "shop.go", 4, "DefaultSize"),
    ("cmd/app/main.go", 15, "call", "inventory/inventory.go", 6, "Count"),  # an aliased import
}

# A TypeScript package whose index.ts is a barrel of `export *` and renaming re-exports.
TS = {
    "package.json": '{"name": "shop", "version": "1.0.0"}\n',
    "src/config.ts": """/** The default page size. */
export const PAGE_SIZE = 20;

export function loadConfig(path: string) {
  return { path, size: PAGE_SIZE };
}
""",
    "src/widget.ts": """export class Widget {
  static LIMIT = 3;
  constructor(public size: number) {}
  resize(by: number): Widget {
    return new Widget(this.size + by);
  }
}
""",
    "src/index.ts": """export * from './config';
export { Widget as Gadget } from './widget';
""",
    "src/app.ts": """import * as lib from './index';
import { Gadget } from './index';
import { loadConfig } from './config.js';

export function main(): number {
  const settings = loadConfig('a.json');
  const gadget = new Gadget(2);
  gadget.resize(1);
  const size = lib.PAGE_SIZE;
  return Gadget.LIMIT + size + settings.size;
}
""",
}
TS_CASES = {
    ("src/app.ts", 6, "call", "src/config.ts", 5 - 1, "loadConfig"),  # `./config.js` is config.ts
    ("src/app.ts", 7, "call", "src/widget.ts", 1, "Widget"),  # renamed by the barrel
    ("src/app.ts", 8, "method", "src/widget.ts", 4, "Widget.resize"),  # `= new Gadget(...)`
    ("src/app.ts", 9, "attribute", "src/config.ts", 2, "PAGE_SIZE"),  # through `export *`
    ("src/app.ts", 10, "attribute", "src/widget.ts", 2, "Widget.LIMIT"),
}

# A Rust crate: a `mod.rs` folder, `pub use` re-exports, `crate::`, `super::`, an
# integration test that reaches the library by its name; a derive line above a struct; a
# module a `#[path]` places.
RUST = {
    "Cargo.toml": '[package]\nname = "shapes"\nversion = "0.1.0"\n',
    "src/lib.rs": """pub mod geometry;
mod util;

pub use geometry::Point;

pub fn origin() -> Point {
    Point::new(0, 0)
}

mod os;
mod effects;
mod segment;
""",
    # A field of `self` holds its declared type: `self.start.shifted()` is Point's; a
    # `Vec` field's `len` is the standard library's.
    "src/segment.rs": """use crate::geometry::Point;

pub struct Segment {
    start: Point,
    pub(crate) stops: Vec<Point>,
}

impl Segment {
    pub fn moved(&self) -> Point {
        let _n = self.stops.len();
        self.start.shifted()
    }
}
""",
    # A trait's `shifted` for Point: `p.shifted()` still calls Point's own.
    "src/effects.rs": """use crate::geometry::Point;

pub trait Shift {
    fn shifted(&self) -> Self;
}

impl Shift for Point {
    fn shifted(&self) -> Self {
        Point::new(self.x, self.y)
    }
}
""",
    "src/os.rs": """#[cfg(unix)]
#[path = "platform/unix.rs"]
mod imp;

pub fn page() -> usize {
    imp::page_size()
}
""",
    "src/platform/unix.rs": """pub fn page_size() -> usize {
    4096
}
""",
    "src/geometry/mod.rs": """mod point;

pub use self::point::Point;

pub const UNIT: i32 = 1;
""",
    "src/geometry/point.rs": """use crate::util;

#[derive(Clone, Debug)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

impl Point {
    pub fn new(x: i32, y: i32) -> Self {
        Point { x, y }
    }

    pub fn shifted(&self) -> Self {
        Point::new(util::double(self.x), self.y + super::UNIT)
    }
}
""",
    "src/util.rs": """/// Twice the value.
pub fn double(v: i32) -> i32 {
    v * 2
}
""",
    "tests/shapes.rs": """use shapes::geometry::{Point, UNIT};

#[test]
fn moves() {
    let p = Point::new(1, 2);
    let unit = UNIT;
    let q = p.shifted();
    assert_eq!(q.x, 2 + unit);
}
""",
}
RUST_CASES = {
    ("src/lib.rs", 7, "method", "src/geometry/point.rs", 10, "Point.new"),  # via two `pub use`
    # `Point::new` of the same file is no case; `super::UNIT` comes after `util::double`.
    ("src/geometry/point.rs", 15, "call", "src/util.rs", 2, "double"),
    ("src/os.rs", 6, "call", "src/platform/unix.rs", 1, "page_size"),
    ("src/effects.rs", 9, "method", "src/geometry/point.rs", 10, "Point.new"),
    ("tests/shapes.rs", 5, "method", "src/geometry/point.rs", 10, "Point.new"),
    ("tests/shapes.rs", 6, "attribute", "src/geometry/mod.rs", 5, "UNIT"),
    ("tests/shapes.rs", 7, "method", "src/geometry/point.rs", 14, "Point.shifted"),  # `let p`
    ("src/segment.rs", 11, "method", "src/geometry/point.rs", 14, "Point.shifted"),
}

# A Java package and a subpackage: siblings need no import; a static import; an annotation
# line above a method.
JAVA = {
    "src/main/java/com/shop/Config.java": """package com.shop;

public final class Config {
    public static final int PAGE_SIZE = 20;

    @Deprecated
    public static Config load(String path) {
        return new Config();
    }

    public int size() {
        return PAGE_SIZE;
    }
}
""",
    "src/main/java/com/shop/Cart.java": """package com.shop;

public class Cart {
    private final Config config = Config.load("cart.json");

    public int capacity() {
        return config.size() * Config.PAGE_SIZE;
    }
}
""",
    "src/main/java/com/shop/app/App.java": """package com.shop.app;

import com.shop.Cart;
import static com.shop.Config.PAGE_SIZE;

public class App {
    public static void main(String[] args) {
        Cart cart = new Cart();
        int limit = PAGE_SIZE;
        System.out.println(cart.capacity() + limit);
    }
}
""",
}
_SHOP = "src/main/java/com/shop/"
JAVA_CASES = {
    (_SHOP + "Cart.java", 4, "method", _SHOP + "Config.java", 7, "Config.load"),  # a sibling
    (_SHOP + "Cart.java", 7, "method", _SHOP + "Config.java", 11, "Config.size"),  # a field's
    (_SHOP + "app/App.java", 8, "call", _SHOP + "Cart.java", 3, "Cart"),
    (_SHOP + "app/App.java", 9, "attribute", _SHOP + "Config.java", 4, "Config.PAGE_SIZE"),
    (_SHOP + "app/App.java", 10, "method", _SHOP + "Cart.java", 6, "Cart.capacity"),
}

# CommonJS, as express is written: `exports.f = function`, a constructor with prototype
# methods as `module.exports`, and the three shapes of `require`.
COMMONJS = {
    "utils.js": """'use strict';

/**
 * Compile a value into an ETag function.
 */
exports.compileETag = function (val) {
  return val ? String : null;
};

exports.DEFAULT_CHARSET = 'utf-8';

exports.isAbsolute = function (path) {
  return path[0] === '/';
};
""",
    "layer.js": """module.exports = Layer;

function Layer(path) {
  this.path = path;
}

Layer.prototype.match = function match(path) {
  return path === this.path;
};
""",
    "app.js": """var compileETag = require('./utils').compileETag;
var utils = require('./utils');
var Layer = require('./layer');
var { isAbsolute: absolute } = require('./utils');

var etag = compileETag(true);
function route() {
  var layer = new Layer('/');
  layer.match('/a');
}
var type = utils.DEFAULT_CHARSET;
absolute(type, etag, route);
""",
}
COMMONJS_CASES = {
    ("app.js", 6, "call", "utils.js", 6, "compileETag"),
    ("app.js", 8, "call", "layer.js", 3, "Layer"),
    ("app.js", 9, "method", "layer.js", 7, "Layer.match"),
    ("app.js", 11, "attribute", "utils.js", 10, "DEFAULT_CHARSET"),
    ("app.js", 12, "call", "utils.js", 12, "isAbsolute"),
}

REPOSITORIES = {"go": (GO, GO_CASES), "typescript": (TS, TS_CASES),
                "javascript (CommonJS)": (COMMONJS, COMMONJS_CASES),
                "rust": (RUST, RUST_CASES), "java": (JAVA, JAVA_CASES)}


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def key(case: CompletionCase) -> tuple[str, int, str, str, int, str]:
    return (case.path, case.line, case.kind, case.target_path, case.target_line, case.target_name)


@pytest.mark.parametrize("language", list(REPOSITORIES))
def test_cases_are_the_uses_of_other_files_definitions(tmp_path: Path, language: str) -> None:
    files, expected = REPOSITORIES[language]
    root = write(tmp_path / "shop", files)
    cases = build_cases(root, seed=0, max_cases=None)
    assert {key(c) for c in cases} == expected
    assert len(cases) == len(expected)
    for case in cases:
        lines = files[case.path].splitlines(keepends=True)
        assert case.code == "".join(lines[: case.line - 1])
        assert case.code_after == "".join(lines[case.line :])
        used = lines[case.line - 1]
        assert case.target_name.rpartition(".")[2] in used or case.kind == "call"
        # An editor's cursor as the name is typed: the line up to the used name.
        assert used.startswith(case.typed)
        assert re.match(r"[\w$]", used[len(case.typed):])
        if case.kind != "call":  # a call's name may be an alias
            assert used[len(case.typed):].startswith(case.target_name.rpartition(".")[2])
        answer = files[case.target_path].splitlines()[case.target_line - 1]
        assert case.target_name.rpartition(".")[2] in answer


# A workspace: `app` imports the package `@acme/core` by name, and `core` imports itself,
# through `exports` (conditions, a pattern, a `null` exclusion); `legacy` has only `main`.
WORKSPACE = {
    "package.json": '{"name": "acme", "private": true, "workspaces": ["packages/*"]}\n',
    "packages/core/package.json": """{"name": "@acme/core",
 "exports": {".": {"types": "./dist/index.d.ts", "import": "./dist/esm/index.js"},
             "./utils/*": "./dist/utils/*.js", "./internal/*": null},
 "imports": {"#internal/*": "./src/internal/*.ts",
             "#strings": {"types": "./dist/utils/strings.d.ts",
                          "default": "./dist/utils/strings.js"}}}
""",
    "packages/core/src/index.ts": """export function connect(url: string) {
  return url;
}
""",
    "packages/core/src/utils/strings.ts": """export function slug(text: string) {
  return text.toLowerCase();
}
""",
    "packages/core/src/internal/secret.ts": """export function hidden() {
  return 1;
}
""",
    "packages/core/src/extra.ts": """import { slug } from '@acme/core/utils/strings';
import { hidden } from '#internal/secret';

export const name = slug('A');
export const secret = hidden();
""",
    "packages/core/src/more.ts": """import * as strings from '#strings';

export const other = strings.slug('B');
""",
    "packages/legacy/package.json": '{"name": "legacy", "main": "lib/index.js"}\n',
    "packages/legacy/src/index.ts": """export function old() {
  return 0;
}
""",
    "packages/app/src/main.ts": """import * as core from '@acme/core';
import { hidden } from '@acme/core/internal/secret';
import { old } from 'legacy';
import { other } from 'not-in-the-repository';
import { slug } from '#strings';

core.connect('x');
hidden();
old();
other();
slug('c');
""",
}


def test_packages_of_the_repository_resolve_by_name_to_their_sources(tmp_path: Path) -> None:
    root = write(tmp_path / "acme", WORKSPACE)
    cases = {key(c) for c in build_cases(root, seed=0, max_cases=None)}
    strings = "packages/core/src/utils/strings.ts"
    assert cases == {
        # The package imports itself, through the pattern `./utils/*`; through its own
        # `imports`, a pattern and conditions.
        ("packages/core/src/extra.ts", 4, "call", strings, 1, "slug"),
        ("packages/core/src/extra.ts", 5, "call", "packages/core/src/internal/secret.ts", 1,
         "hidden"),
        ("packages/core/src/more.ts", 3, "call", strings, 1, "slug"),
        ("packages/app/src/main.ts", 7, "call", "packages/core/src/index.ts", 1, "connect"),
        ("packages/app/src/main.ts", 9, "call", "packages/legacy/src/index.ts", 1, "old"),
    }  # `./internal/*` is excluded by `null`; `not-in-the-repository` is not a package here,
    # and app's own package.json has no `#strings`


def test_cli_completion_on_a_go_module_with_the_default_model(tmp_path: Path) -> None:
    root = write(tmp_path / "shop", GO)
    result = runner.invoke(app, [
        "eval", "--task", "completion", str(root), "--budget", "4096",
        "--row", "no retrieval", "--row", "imported definitions", "--row", "code-at-cursor",
    ])
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("6 cursors (3 call, 2 method, 1 attribute), shop; ")
    rows = {line.split(" | ")[0].lstrip("| "): line.split(" | ")[1] for line in lines[4:7]}
    assert list(rows) == ["no retrieval", "imported definitions", "code-at-cursor"]
    assert rows["no retrieval"] == "0.0 [0.0, 0.0]"
    # The whole module is a few hundred tokens: a retriever that reads its imports and
    # siblings finds most answers in 4096.
    assert float(rows["code-at-cursor"].split()[0]) >= 50.0


def test_imported_definitions_are_signatures_in_import_order_within_the_budget(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    root = write(tmp_path / "shop", JAVA)
    store = Store(tmp_path / "store")
    index_folder(store, root, IndexOptions(name="shop", encoder=FAKE_SPEC))
    collection = store.open("shop")
    case = next(c for c in build_cases(root, 0, None) if c.target_name == "Cart.capacity")
    row = ROWS["imported definitions"]

    def words(texts: list[str]) -> list[int]:
        return [len(t.split()) for t in texts]

    answer = row(collection, case, 4096, words)
    assert is_hit(answer, case)
    # `import com.shop.Cart` comes first, then `import static com.shop.Config.PAGE_SIZE`
    # (its class's signatures); signatures only, an annotation line included, no bodies.
    # A plain list: every field of the class too, private ones included.
    assert [(b.path, sorted(b.lines)) for b in answer.blocks] == [
        (_SHOP + "Cart.java", [3, 4, 6]), (_SHOP + "Config.java", [3, 4, 6, 7, 11]),
    ]
    assert answer.tokens == words([answer.text])[0]
    small = row(collection, case, 20, words)
    assert 0 < small.tokens <= 20 and [b.path for b in small.blocks] == [_SHOP + "Cart.java"]
    above_the_imports = row(collection, CompletionCase(
        case.repo, case.path, 2, "package com.shop.app;\n", "", case.kind, case.target_path,
        case.target_line, case.target_name), 4096, words)
    assert above_the_imports.blocks == []
