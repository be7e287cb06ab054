"""Code-at-cursor in Rust, Go and TypeScript: small repositories shaped like real ones."""

from __future__ import annotations

from pathlib import Path

from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.retrieval import code_context
from embedstore.retrieval.code_context import context_for_code
from embedstore.store.collection import Collection
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder


def indexed(tmp_path: Path, files: dict[str, str]) -> Collection:
    """A collection of ``files`` (path -> text), with the fake encoder."""
    root = tmp_path / "repo"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    store = Store(tmp_path / "store")
    index_folder(store, root, IndexOptions(name="repo", encoder=FAKE_SPEC))
    return store.open("repo")


def context(collection: Collection, code: str, path: str, max_tokens: int = 2000) -> str:
    return context_for_code(collection, code, path=path, max_tokens=max_tokens,
                            similar=False).text


# --- Rust -------------------------------------------------------------------------------------

RUST_POINT = """//! Points on a plane.

/// A point.
#[derive(Clone, Debug)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

impl Point {
    /// The point at (x, y).
    #[inline]
    pub fn new(x: i32, y: i32) -> Self {
        Point { x, y }
    }

    pub fn shifted(&self, dx: i32) -> Point {
        Point { x: self.x + dx, y: self.y }
    }
}

impl std::fmt::Display for Point {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}
"""
RUST_SHAPE = """/// Something with an area.
pub trait Shape {
    fn area(&self) -> f64;
    fn name(&self) -> &str;
}

#[derive(Clone, Debug)]
pub struct Square {
    pub side: f64,
}

impl Square {
    pub fn new(side: f64) -> Self {
        Square { side }
    }
}
"""
RUST_LIB = "pub mod point;\npub mod shape;\n"


def rust_crate(tmp_path: Path) -> Collection:
    return indexed(tmp_path, {
        "Cargo.toml": '[package]\nname = "plane"\nversion = "0.1.0"\n',
        "src/lib.rs": RUST_LIB,
        "src/point.rs": RUST_POINT,
        "src/shape.rs": RUST_SHAPE,
    })


def test_a_derive_line_in_the_edited_file_does_not_hide_a_struct(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # The edited file has a derive line of its own, as most Rust files do: the first line of
    # Point's definition (`#[derive(Clone, Debug)]`) is in the prompt, Point is not.
    code = ("use crate::point::Point;\n\n#[derive(Clone, Debug)]\npub struct Segment {\n"
            "    pub start: Point,\n}\n\nfn origin() -> Point {\n    ")
    text = context(rust_crate(tmp_path), code, "src/segment.rs")
    assert "pub struct Point {" in text


def test_a_rust_types_methods_come_with_it(tmp_path: Path, fake_encoder: FakeEncoder) -> None:
    # Two types have a `new`: the name alone is not unique, the import of Point decides.
    code = "use crate::point::Point;\n\nfn origin() -> Point {\n    let p = Point::new("
    text = context(rust_crate(tmp_path), code, "src/segment.rs", max_tokens=400)
    assert "pub fn new(x: i32, y: i32) -> Self {" in text
    assert "pub fn shifted(&self, dx: i32) -> Point {" in text
    assert "pub fn new(side: f64)" not in text


def test_a_traits_methods_are_its_members(tmp_path: Path, fake_encoder: FakeEncoder) -> None:
    code = "use crate::shape::Shape;\n\nfn describe(s: &dyn Shape) -> f64 {\n    s."
    candidates = code_context._structural(rust_crate(tmp_path), code, "", "src/report.rs", "rust")
    members = {c.row.name: [m.name for m in c.members] for c in candidates.values()}
    assert members["Shape"] == ["area", "name"]


# --- Go ---------------------------------------------------------------------------------------

GO_SERVER = """package server

// Server answers requests.
type Server struct {
	addr string
}

// New makes a server listening on addr.
func New(addr string) *Server {
	return &Server{addr: addr}
}
"""
GO_HANDLERS = """package server

import "net/http"

// Handle answers one request.
func (s *Server) Handle(w http.ResponseWriter, r *http.Request) error {
	return nil
}

func (s *Server) Close() error {
	return nil
}
"""
GO_CLIENT = """package client

// Handle is a client's own, not the server's.
func (c *Client) Handle() error {
	return nil
}

type Client struct{}
"""


def test_a_go_types_methods_come_with_it_from_any_file_of_its_package(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    collection = indexed(tmp_path, {
        "go.mod": "module example.com/app\n\ngo 1.21\n",
        "server/server.go": GO_SERVER,
        "server/handlers.go": GO_HANDLERS,
        "client/client.go": GO_CLIENT,
    })
    code = ('package main\n\nimport "example.com/app/server"\n\nfunc main() {\n'
            '\ts := server.New(":8080")\n\ts.')
    text = context(collection, code, "cmd/main.go")
    assert "func (s *Server) Handle(w http.ResponseWriter, r *http.Request) error {" in text
    assert "func (s *Server) Close() error {" in text
    assert "func (c *Client) Handle()" not in text
