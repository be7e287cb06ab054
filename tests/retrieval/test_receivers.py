"""Which class a name holds, per language (receivers.py), and what code-at-cursor does with it."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from embedstore.retrieval import code_context, held_members
from embedstore.retrieval.receivers import Receiver, field_types, receivers, returned_type
from tests.chunking.test_symbols_pathological import PATHOLOGICAL as EXTRACTOR_PROBES
from tests.fakes import FakeEncoder
from tests.retrieval.test_code_context import indexed
from tests.retrieval.test_code_context_languages import context, go_helpers, rust_crate


def bound(code: str, language: str) -> dict[str, tuple[str, bool]]:
    """Each bound name -> (source, called)."""
    return {name: (r.source, r.called) for name, r in receivers(code, language).items()}


# --- Java -------------------------------------------------------------------------------------

JAVA = """public class App {
    private final Client client;
    private List<Item> items;
    Cache<String, Item> cache;
    public Result run(Request req, final Other other, int n) {
        Session s = new Session(1);
        var conn = new pool.Conn<>(n);
        var resp = s.get(url);
        this.store = new Store();
        Base d = new Derived();
        for (Item it : items) {}
        int[] counts;
        Item[] all;
        String name;
        return x;
        if (a) b;
    }
}"""


def test_java_declarations_parameters_and_new_bind_names() -> None:
    found = bound(JAVA, "java")
    assert found["client"] == ("Client", False)  # modifiers before the type
    assert found["cache"] == ("Cache", False)  # a generic names its own class
    assert found["req"] == ("Request", False) and found["other"] == ("Other", False)
    assert found["conn"] == ("pool.Conn", True)
    assert found["resp"] == ("s.get", True)  # what get returns: the caller reads its signature
    assert found["store"] == ("Store", True)
    assert found["d"] == ("Base", False)  # the declared type: x reaches Base's members only
    assert found["it"] == ("Item", False)
    assert found["name"] == ("String", False)
    # Containers, arrays and primitives name no class of the code; keywords bind nothing.
    assert not {"items", "n", "counts", "all", "x", "b", "return", "if"} & found.keys()


def test_java_fields_are_reached_with_and_without_this() -> None:
    found = bound(JAVA, "java")
    assert found["this.client"] == found["client"]
    assert found["this.store"] == found["store"] == ("Store", True)
    assert receivers(JAVA, "java")["store"].line == 9


def test_a_later_java_binding_overrides_an_earlier_one() -> None:
    code = "Reader r = new Reader();\nr = new BufferedReader(r);\n"
    assert bound(code, "java")["r"] == ("BufferedReader", True)


@pytest.mark.parametrize(("signature", "expected"), [
    ("@Override\n    public static Foo bar(int x) throws IOException {", "Foo"),
    ("public Foo<Bar> one() {", "Foo"),
    ("public com.acme.Foo one() {", "com.acme.Foo"),
    ("@Nullable Foo find(String key) {", "Foo"),
    ("public void run() {", None),
    ("public int size() {", None),
    ("public List<Foo> all() {", None),
    ("public Foo[] all() {", None),
    ("public Foo(int x) {", None),  # a constructor: no return type
])
def test_java_return_types(signature: str, expected: str | None) -> None:
    assert returned_type(signature, "java") == expected


# --- TypeScript and JavaScript ----------------------------------------------------------------

TS = """export class Service {
  private client: Client;
  readonly cache?: Cache | undefined;
  items: Item[];
  constructor(private readonly repo: Repo, logger: Logger, n: number, @Inject(T) cfg: Config) {
    this.conn = new Conn();
  }
  async run(a: Request, b?: Other | null) {
    const s = new Session(1);
    let x: Foo = make();
    const resp = await s.get(url);
    const y = parse<Bar>(text);
    const p = new Promise((done) => done());
    const t = cond ? a : B;
    send({ key: Value });
    return x;
  }
}"""


@pytest.mark.parametrize("language", ["typescript", "tsx", "javascript"])
def test_typescript_annotations_parameters_fields_and_calls_bind_names(language: str) -> None:
    found = bound(TS, language)
    assert found["this.client"] == ("Client", False)  # a field: `this.` reaches it
    assert found["this.cache"] == ("Cache", False)
    assert found["repo"] == found["this.repo"] == ("Repo", False)  # a parameter property
    assert found["logger"] == ("Logger", False) and found["cfg"] == ("Config", False)
    assert found["this.conn"] == ("Conn", True)
    assert found["a"] == ("Request", False) and found["b"] == ("Other", False)
    assert found["s"] == ("Session", True)
    assert found["x"] == ("Foo", False)  # the annotation, not make's result
    assert found["resp"] == ("s.get", True) and found["y"] == ("parse", True)
    # Arrays, primitives and promises hold no class of the code; nor does a ternary or an
    # object literal bind a name.
    assert not {"this.items", "items", "n", "p", "t", "key", "cond", "this.logger"} & found.keys()


@pytest.mark.parametrize(("signature", "expected"), [
    ("export function make(a: A): Cls {", "Cls"),
    ("async get(url: string): Promise<Response> {", "Response"),  # what `await` gives
    ("find(id: string): Promise<User | undefined> {", "User"),
    ("@Get(':id')\nasync find(@Param() id: string): Promise<User> {", "User"),
    ("const build = (a: A): api.Client => {", "api.Client"),
    ("run(): void {", None),
    ("name(): string {", None),
    ("all(): Foo[] {", None),
    ("index(): Map<string, Foo> {", None),
    ("done(): Promise<void> {", None),
])
def test_typescript_return_types(signature: str, expected: str | None) -> None:
    assert returned_type(signature, "typescript") == expected


# --- Go ---------------------------------------------------------------------------------------

GO = """package server

func (s *Server) Serve(l net.Listener, a, b *Conn, n int, opts ...Option) error {
	c := NewConn(l)
	srv, err := server.New(":8080")
	p := &Point{X: 1}
	q := geo.Point{}
	buf := new(bytes.Buffer)
	var h *http.Handler
	var count int
	m := make(map[string]int)
	for i, v := range items {
	}
	handle := func(w http.ResponseWriter, r *http.Request) {}
	return nil
}"""


def test_go_assignments_vars_parameters_and_receivers_bind_names() -> None:
    found = bound(GO, "go")
    assert found["s"] == ("Server", False)  # the method's receiver
    assert found["l"] == ("net.Listener", False)
    assert found["a"] == found["b"] == ("Conn", False)  # `a, b *Conn` share the type
    assert found["c"] == ("NewConn", True) and found["srv"] == ("server.New", True)
    assert found["p"] == ("Point", False) and found["q"] == ("geo.Point", False)
    assert found["buf"] == ("bytes.Buffer", False)
    assert found["h"] == ("http.Handler", False)
    assert found["w"] == ("http.ResponseWriter", False) and found["r"] == ("http.Request", False)
    # Builtins, variadics, `make`, `range` and function literals hold no type of the code.
    assert not {"n", "opts", "count", "m", "i", "v", "handle", "err"} & found.keys()


@pytest.mark.parametrize(("signature", "expected"), [
    ("func NewT() *T {", "T"),
    ("func New(addr string) (*Server, error) {", "Server"),
    ("func Open() (db *store.DB, err error) {", "store.DB"),  # the caller takes its last name
    ("func (s *Server) Handler() http.Handler {", "http.Handler"),
    ("func Close() error {", None),
    ("func Run() {", None),
    ("func All() []T {", None),
    ("func Index() map[string]T {", None),
    ("func Events() chan T {", None),
])
def test_go_return_types(signature: str, expected: str | None) -> None:
    assert returned_type(signature, "go") == expected


# --- Rust -------------------------------------------------------------------------------------

RUST = """fn run(p: &Point, q: &mut Shape, r: Square, s: &'a Circle, t: &dyn Shape, n: u32,
       b: Box<Point>, v: Vec<Point>, mut w: Wheel, &self) {
    let a = Point::new(1, 2);
    let mut g = geo::Point::with(3);
    let c: Square = make();
    let d = Square { side: 1.0 };
    let e = make_point(1);
    let f = shapes::make(2);
    let k = Shape::Circle(1.0);
    let l = geo::Square { side: 1.0 };
    let h = loop { break 1; };
    let i = Vec::new();
    let j = Self::new();
    let m: Vec<Point> = vec![];
    return a;
}"""


def test_rust_lets_and_parameters_bind_names() -> None:
    found = bound(RUST, "rust")
    assert found["p"] == ("Point", False) and found["q"] == ("Shape", False)
    assert found["r"] == ("Square", False) and found["s"] == ("Circle", False)
    assert found["t"] == ("Shape", False) and found["w"] == ("Wheel", False)
    # `Type::f(..)` (and an enum's variant) names the type; a path of modules the function.
    assert found["a"] == ("Point", True) and found["g"] == ("geo.Point", True)
    assert found["k"] == ("Shape", True)
    assert found["e"] == ("make_point", True) and found["f"] == ("shapes.make", True)
    assert found["c"] == ("Square", False)
    assert found["d"] == ("Square", False) and found["l"] == ("geo.Square", False)
    # Primitives, containers, `Self` and a `loop { }` name no type.
    assert not {"n", "b", "v", "h", "i", "j", "m", "self"} & found.keys()


def test_rust_closure_parameters_bind_names() -> None:
    # chrono's `let verify_ymd = |date: NaiveDate| {`; `a || b` and `x | y` bind nothing.
    code = ("let verify = |date: NaiveDate, n| date.year() > n;\n"
            "let each = move |arg: &Arg| arg.id();\nlet ok = a || b;\nlet bits = x | y | z;\n")
    found = receivers(code, "rust")
    assert {name: (r.source, r.borrow) for name, r in found.items()} == {
        "date": ("NaiveDate", ""), "arg": ("Arg", "&")}


def test_rust_bindings_keep_how_they_borrow() -> None:
    code = ("fn f(cmd: &Command, p: &'a mut Parsed, o: Arg, d: &'a dyn Shape) {\n"
            "    let x: &mut Point = y;\n    let z = Point::new(1, 2);\n")
    borrows = {name: r.borrow for name, r in receivers(code, "rust").items()}
    assert borrows == {"cmd": "&", "p": "&mut", "o": "", "d": "&", "x": "&mut", "z": ""}


def test_rust_self_holds_the_type_of_the_impl_block_open_at_the_cursor() -> None:
    impl = ("use core::alloc::Allocator;\n\nimpl<T, A: Allocator> Extend<T> for Vec<T, A> {\n"
            "    fn size(&self) -> usize {\n        0\n    }\n\n")
    method = impl + "    fn extend_from(&mut self, other: &[T]) {\n        "
    found = receivers(method, "rust")["self"]
    assert (found.source, found.called, found.borrow) == ("Vec", False, "&mut")
    # An associated function has no `self`; past the block, nor does the code.
    assert "self" not in receivers(impl + "    fn new() -> Self {\n        ", "rust")
    assert "self" not in receivers(method + "}\n    }\n}\n\nfn free() {\n    ", "rust")


def test_rust_struct_fields_hold_the_types_they_declare() -> None:
    struct = ("/// A set.\n#[derive(Clone)]\npub struct IndexSet<T, S = RandomState>\nwhere\n"
              "    T: Clone,\n{\n    pub(crate) map: IndexMap<T, (), S>,\n"
              "    entries: Vec<Bucket<T>>,\n    shared: Arc<Inner>,\n    hasher: &'a mut S,\n"
              "    pub len: usize,\n    /// doc: Comment\n    pub(super) core: core::Core,\n}")
    # A `Vec` or an `Arc` holds the standard library's; a `where` bound is no field.
    assert field_types(struct, "rust") == {
        "map": ("IndexMap", ""), "hasher": ("S", "&mut"), "core": ("core.Core", "")}
    assert field_types(struct, "python") == {}


@pytest.mark.parametrize(("signature", "expected"), [
    ("fn origin() -> Point {", "Point"),
    ("#[inline]\npub fn at(&self) -> geo::Point {", "geo.Point"),
    ("fn parse(s: &str) -> Result<Point, Error> {", "Point"),
    ("fn parse(s: &str) -> io::Result<Point> {", "Point"),
    ("fn find<'a>(&'a self) -> Option<&'a Point> {", "Point"),
    ("pub fn new(x: i32) -> Self {", None),
    ("fn try_new() -> Result<Self, Error> {", None),
    ("fn all() -> Vec<Point> {", None),
    ("fn boxed() -> Box<dyn Shape> {", None),
    ("fn len(&self) -> usize {", None),
    ("fn run() {", None),
])
def test_rust_return_types(signature: str, expected: str | None) -> None:
    assert returned_type(signature, "rust") == expected


def test_a_language_without_rules_binds_nothing() -> None:
    assert receivers("x = new Foo();", "c") == {} and returned_type("Foo f() {", "c") is None


# --- Bounded work -----------------------------------------------------------------------------

PATHOLOGICAL = [
    ("python", "with a("), ("python", "x = A()\n"),
    ("java", "("), ("java", "Foo<Bar<"), ("java", "x = new A<"), ("java", "Foo a, "),
    ("java", "a."), ("typescript", "(a: "), ("typescript", "private\n"),
    ("typescript", "a: Foo | "), ("typescript", "const x = await "), ("go", "a, "),
    ("go", "func (a) (a) "), ("go", "x := &"), ("go", "var x "), ("rust", "let x: &'a "),
    ("rust", "fn f("), ("rust", "Foo::"), ("rust", "(a: A<"), ("rust", "impl A {\n"),
    ("rust", "impl A {\n    fn f(&self) {\n"), ("rust", "impl<"),
]


@pytest.mark.parametrize(("language", "unit"), PATHOLOGICAL)
def test_a_pathological_text_takes_linear_time(language: str, unit: str) -> None:
    # Each of these reads about a million characters; 5 s is generous for a loaded machine,
    # and a quadratic pattern would take minutes.
    code = unit * (1_000_000 // len(unit))
    start = time.process_time()
    receivers(code, language)
    returned_type(code, language)
    assert time.process_time() - start < 5


@pytest.mark.parametrize("language", ["python", "java", "typescript", "go", "rust"])
def test_the_symbol_extractors_probes_take_linear_time(language: str) -> None:
    start = time.process_time()
    for text in EXTRACTOR_PROBES.values():
        receivers(text, language)
        returned_type(text, language)
    assert time.process_time() - start < 5


# --- Code-at-cursor ---------------------------------------------------------------------------

JAVA_MAIN = "src/main/java/com/acme"


def test_a_java_name_a_method_returns_into_shows_its_class_members(
    tmp_path: Path, fake_encoder: FakeEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`var resp = session.get(..)`: get's signature says Response, which the code never
    names; Response's methods come only through the receiver."""
    collection = indexed(tmp_path, {
        **{f"{JAVA_MAIN}/util/Helper{i}.java": f"package com.acme.util;\n\npublic class "
           f"Helper{i} {{\n    public int run{i}() {{\n        return {i};\n    }}\n}}\n"
           for i in range(8)},
        f"{JAVA_MAIN}/http/Session.java": "package com.acme.http;\n\npublic class Session {\n"
        "    public Response get(String url) {\n        return new Response(url);\n    }\n}\n",
        f"{JAVA_MAIN}/http/Response.java": "package com.acme.http;\n\npublic class Response {\n"
        "    public String json() {\n        return body;\n    }\n\n"
        "    public int status() {\n        return 200;\n    }\n}\n",
    })
    code = ("package com.acme.app;\n\nimport com.acme.http.Session;\n\npublic class App {\n"
            "    void run(Session session) {\n        var resp = session.get(\"/\");\n"
            "        resp.")
    path = f"{JAVA_MAIN}/app/App.java"
    text = context(collection, code, path, max_tokens=200)
    assert "public String json() {" in text and "public int status() {" in text
    monkeypatch.setattr(code_context, "receivers", lambda code, language: {})
    assert "public String json() {" not in context(collection, code, path, max_tokens=200)


def test_a_go_name_a_function_returns_into_shows_its_types_methods(
    tmp_path: Path, fake_encoder: FakeEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`db, err := store.Open(..)`: Open's first result is *engine.DB, a package the code
    does not import; DB's methods come only through the receiver."""
    collection = indexed(tmp_path, {
        "go.mod": "module example.com/kv\n\ngo 1.21\n",
        "store/store.go": 'package store\n\nimport "example.com/kv/engine"\n\n'
                          "func Open(path string) (*engine.DB, error) {\n"
                          "\treturn &engine.DB{}, nil\n}\n",
        "engine/db.go": "package engine\n\ntype DB struct{}\n\n"
                        "func (d *DB) Get(key string) string {\n\treturn key\n}\n\n"
                        "func (d *DB) Put(key, value string) {\n}\n",
        "engine/util.go": "package engine\n\n" + go_helpers("Util"),
    })
    code = ('package main\n\nimport "example.com/kv/store"\n\nfunc main() {\n'
            '\tdb, err := store.Open("kv.db")\n\tdb.')
    text = context(collection, code, "cmd/main.go", max_tokens=200)
    assert "func (d *DB) Get(key string) string {" in text
    assert "func (d *DB) Put(key, value string) {" in text
    monkeypatch.setattr(code_context, "receivers", lambda code, language: {})
    assert "func (d *DB) Get" not in context(collection, code, "cmd/main.go", max_tokens=200)


def test_a_rust_constructor_call_names_its_type_not_the_shared_new(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    collection = rust_crate(tmp_path)  # Point::new and Square::new both return Self
    found = receivers("fn main() {\n    let p = Point::new(1, 2);\n", "rust")["p"]
    assert held_members._classes_made_by(collection, found, "rust") == ["Point"]
    # As `Point.new`, the caller would look up every `new`: each returns Self, which says nothing.
    by_function = Receiver("p", "Point.new", True, 2)
    assert held_members._classes_made_by(collection, by_function, "rust") == []


# clap's shape: a builder whose setters take the value whole and return it, then its getters.
BUILDER = "".join(f"    pub fn {name}(mut self, value: &str) -> Self {{\n"
                  f"        self.parts.push(value.to_string());\n        self\n    }}\n\n"
                  for name in ("about", "author", "version", "alias", "group", "before_help",
                               "after_help", "usage", "template", "display_name"))
COMMAND_CRATE = {
    "Cargo.toml": '[package]\nname = "cli"\nversion = "0.1.0"\n',
    "src/lib.rs": "pub mod command;\npub mod render;\n",
    "src/command.rs": "#[derive(Clone, Debug, Default)]\npub struct Command {\n"
                      "    parts: Vec<String>,\n}\n\nimpl Command {\n"
                      "    pub fn new(name: &str) -> Self {\n        Command::default()\n    }\n\n"
                      + BUILDER
                      + "    pub fn get_about(&self) -> Option<&str> {\n"
                        "        self.parts.first().map(|s| s.as_str())\n    }\n}\n",
}


def test_a_rust_value_held_by_reference_offers_the_methods_it_can_call(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # Through `&Command` only `&self` methods can be called: not the ten setters that take
    # the value whole, nor `new`, which is the type's. Source order puts those first.
    collection = indexed(tmp_path, COMMAND_CRATE)
    code = "use crate::command::Command;\n\npub fn render(cmd: &Command) -> String {\n    "
    text = context(collection, code, "src/render.rs", max_tokens=120)
    assert "pub fn get_about(&self) -> Option<&str> {" in text
    # Owned, the value can call every method: the setters come as before.
    owned = code.replace("&Command", "Command")
    assert "pub fn about(mut self" in context(collection, owned, "src/render.rs", max_tokens=120)
