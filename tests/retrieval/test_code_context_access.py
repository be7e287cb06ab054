"""Code-at-cursor with the cursor mid-line, just after a member access (`cmd.|`, `units::to_d|`),
as an editor asks while a name is typed: the next name is a member of what the access names."""

from __future__ import annotations

from pathlib import Path

import pytest

from embedstore.chunking.symbols import access_at_end
from embedstore.retrieval.code_context import context_for_code
from embedstore.store.collection import Collection
from tests.fakes import FakeEncoder
from tests.retrieval.test_code_context import indexed
from tests.retrieval.test_code_context_languages import rust_helpers


def context(collection: Collection, code: str, path: str, max_tokens: int) -> str:
    return context_for_code(collection, code, path=path, max_tokens=max_tokens,
                            similar=False).text


@pytest.mark.parametrize(("code", "expected"), [
    ("fn f(cmd: &Command) {\n    let n = cmd.", ("cmd", "")),
    ("    let t = crate::units::to_d", ("crate.units", "to_d")),
    ("    self.store.", ("self.store", "")),
    ("    Command::", ("Command", "")),
    ("    let g = Graph::<N, Vec<E>>::with", ("Graph", "with")),  # past a turbofish
    ("    let x = f(y).", None),  # through a call's result, which no name holds
    ("    let x = ", None),
    ("    let x = to_d", ("", "to_d")),  # a name begun with no access before it
    ("    let x = cmd.name\n", None),  # the line is finished: the cursor is on the next
    ("    let r = 1.5", None),
])
def test_the_access_the_code_ends_in(code: str, expected: tuple[str, str] | None) -> None:
    assert access_at_end(code) == expected


# A builder type of thirty getters alike (clap's `Command`) and a module of helpers that the
# code calls just above the cursor.
BUILDER_CRATE = {
    "Cargo.toml": '[package]\nname = "cli"\nversion = "0.1.0"\n',
    "src/lib.rs": "pub mod command;\npub mod util;\nmod run;\n",
    "src/command.rs": "pub struct Command {\n    name: String,\n}\n\nimpl Command {\n"
                      + "".join(f"    pub fn get_setting{i}(&self) -> u32 {{\n        {i}\n"
                                "    }\n\n" for i in range(30))
                      + "    pub fn get_name(&self) -> &str {\n        &self.name\n    }\n}\n",
    "src/util.rs": rust_helpers(),
}
BUILDER_CODE = ("use crate::command::Command;\nuse crate::util;\n\n"
                "pub fn run(cmd: &Command) -> u32 {\n    let a = util::helper3(1);\n"
                "    let b = util::helper7(2);\n    let n = ")


def test_a_held_values_members_come_first_after_its_dot(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    collection = indexed(tmp_path, BUILDER_CRATE)
    # At the start of the right-hand side the helpers just used lead; after `cmd.` the
    # answer is a getter of Command.
    before = context(collection, BUILDER_CODE, "src/run.rs", max_tokens=60)
    after = context(collection, BUILDER_CODE + "cmd.", "src/run.rs", max_tokens=60)
    assert "pub fn get_setting" not in before
    assert "pub(crate) fn helper" not in after
    assert after.count("pub fn get_setting") >= 2


def test_the_typed_start_of_a_name_picks_the_member(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    collection = indexed(tmp_path, BUILDER_CRATE)
    wanted = "pub fn get_name(&self) -> &str {"
    # Thirty-one getters fit no small budget; `get_n` says which one comes.
    assert wanted not in context(collection, BUILDER_CODE + "cmd.", "src/run.rs", 60)
    assert wanted in context(collection, BUILDER_CODE + "cmd.get_n", "src/run.rs", 60)


def test_a_class_imported_under_another_name_is_reached_through_that_name(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    collection = indexed(tmp_path, BUILDER_CRATE)
    code = BUILDER_CODE.replace("command::Command;", "command::Command as Cmd;").replace(
        "cmd: &Command", "cmd: &Cmd")
    # `Cmd::` names Command's members as `Command::` would; without it the helpers lead.
    answer = context(collection, code + "Cmd::get_n", "src/run.rs", 60)
    assert "pub fn get_name(&self) -> &str {" in answer
    assert "pub(crate) fn helper" not in answer


@pytest.mark.parametrize("typed", ["cmd.get_n", "Command::<u8>::get_n"])
def test_a_turbofish_is_no_break_in_a_path(
    tmp_path: Path, fake_encoder: FakeEncoder, typed: str
) -> None:
    generic = BUILDER_CRATE["src/command.rs"].replace(
        "pub struct Command {", "pub struct Command<T> {\n    tag: T,").replace(
        "impl Command {", "impl<T> Command<T> {")
    collection = indexed(tmp_path, {**BUILDER_CRATE, "src/command.rs": generic})
    # `cmd` holds what `Command::<u8>::new()` makes; `Command::<u8>::` reaches its members.
    code = BUILDER_CODE.replace("cmd: &Command", "").replace(
        "    let n = ", "    let cmd = Command::<u8>::new();\n    let n = ")
    answer = context(collection, code + typed, "src/run.rs", 60)
    assert "pub fn get_name(&self) -> &str {" in answer
    assert "pub(crate) fn helper" not in answer


# petgraph's shape: lib.rs binds a module by `pub use` and the prelude reaches through it.
PRELUDE_CRATE = {
    "Cargo.toml": '[package]\nname = "graphs"\nversion = "0.1.0"\n',
    "src/lib.rs": "mod graph_impl;\npub mod prelude;\npub use crate::graph_impl::stable_graph;\n",
    "src/graph_impl/mod.rs": "pub mod stable_graph;\n",
    "src/graph_impl/stable_graph.rs": "pub struct StableGraph {\n    nodes: usize,\n}\n\n"
                                      "impl StableGraph {\n    pub fn new() -> Self {\n"
                                      "        StableGraph { nodes: 0 }\n    }\n}\n",
    "src/prelude.rs": "pub use crate::stable_graph::StableGraph;\n",
}


def test_a_module_a_use_binds_is_reached_through_that_binding(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    collection = indexed(tmp_path, PRELUDE_CRATE)
    code = "use graphs::prelude::*;\n\n#[test]\nfn grows() {\n    let g = StableGraph::"
    assert "pub fn new() -> Self {" in context(collection, code, "tests/grow.rs", 60)


def test_a_class_known_only_by_what_a_name_holds_is_reached_through_its_own_name(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    collection = indexed(tmp_path, BUILDER_CRATE)
    # An import that resolves nowhere (a prelude's chain): Command comes only as what `cmd`
    # holds, and `Command::` still reaches its members.
    code = BUILDER_CODE.replace("command::Command;", "prelude::Command;")
    answer = context(collection, code + "Command::get_n", "src/run.rs", 60)
    assert "pub fn get_name(&self) -> &str {" in answer


def test_a_trait_impl_with_its_header_over_lines_is_callable_from_other_modules(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # `fn default` has no `pub`: the `for` on the header's second line makes it public.
    default = ("\nimpl Default\n    for Command\n{\n    fn default() -> Self {\n"
               "        Command { name: String::new() }\n    }\n}\n")
    collection = indexed(tmp_path, {**BUILDER_CRATE,
                                    "src/command.rs": BUILDER_CRATE["src/command.rs"] + default})
    answer = context(collection, BUILDER_CODE + "Command::def", "src/run.rs", 60)
    assert "fn default() -> Self {" in answer


def test_self_names_the_type_of_the_impl_block_open_at_the_cursor(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    collection = indexed(tmp_path, {**BUILDER_CRATE,
                                    "src/lib.rs": "pub mod command;\npub mod util;\nmod ext;\n"})
    # A trait's impl for Command in another file; an associated function, so no `self`.
    code = ("use crate::command::Command;\nuse crate::util;\n\ntrait Make {\n"
            "    fn make() -> u32;\n}\n\nimpl Make for Command {\n    fn make() -> u32 {\n"
            "        let a = util::helper3(1);\n        let b = util::helper7(2);\n"
            "        let n = Self::get_n")
    answer = context(collection, code, "src/ext.rs", 60)
    assert "pub fn get_name(&self) -> &str {" in answer
    assert "pub(crate) fn helper" not in answer


# A module of thirteen functions reached by its path in Rust and by its alias in Python, and
# a function of another module that the code calls just above the cursor.
UNIT_FILES = {
    "rust": {
        "Cargo.toml": '[package]\nname = "dates"\nversion = "0.1.0"\n',
        "src/lib.rs": "mod units;\nmod other;\nmod span;\n",
        "src/units.rs": rust_helpers()
                        + "pub(crate) fn to_days(seconds: i64) -> i64 {\n    seconds / 86400\n}\n",
        "src/other.rs": "pub(crate) fn other_days(n: i64) -> i64 {\n    n\n}\n",
    },
    "python": {
        "pkg/__init__.py": "",
        "pkg/units.py": "".join(f"def helper{i}(n: int) -> int:\n    return n\n\n\n"
                                for i in range(12))
                        + "def to_days(seconds: int) -> int:\n    return seconds\n",
        "pkg/other.py": "def other_days(n: int) -> int:\n    return n\n",
    },
}
# the code before the cursor, the access typed, the edited file
UNIT_CURSORS = {
    "rust": ("use crate::other::other_days;\n\npub fn length(seconds: i64) -> i64 {\n"
             "    let base = other_days(seconds);\n    let days = ", "crate::units::",
             "src/span.rs"),
    "python": ("from pkg import units\nfrom pkg.other import other_days\n\n\n"
               "def length(seconds: int) -> int:\n    base = other_days(seconds)\n    days = ",
               "units.", "pkg/span.py"),
}


@pytest.mark.parametrize("language", sorted(UNIT_CURSORS))
def test_a_modules_members_come_first_after_its_path(
    tmp_path: Path, fake_encoder: FakeEncoder, language: str
) -> None:
    collection = indexed(tmp_path, UNIT_FILES[language])
    code, typed, path = UNIT_CURSORS[language]
    # The function used just above leads at the start of the right-hand side; after the
    # module's path or alias, the module's functions do (blocks come best first).
    before = context(collection, code, path, max_tokens=30)
    after = context(collection, code + typed, path, max_tokens=30)
    assert before.startswith(("src/other.rs", "pkg/other.py"))
    assert after.startswith(("src/units.rs", "pkg/units.py"))


LOCAL_LINE = {"rust": "    let total = base;\n", "python": "    total = base\n"}


@pytest.mark.parametrize("language", sorted(UNIT_CURSORS))
def test_a_name_begun_alone_puts_what_it_may_start_first(
    tmp_path: Path, fake_encoder: FakeEncoder, language: str
) -> None:
    collection = indexed(tmp_path, UNIT_FILES[language])
    code, _, path = UNIT_CURSORS[language]
    glob = {"rust": "use crate::units::*;\n", "python": "from pkg.units import *\n"}[language]
    code = glob + code
    # `to_d` can only start `to_days` (helper0..11 and other_days cannot) ...
    assert context(collection, code + "to_d", path, max_tokens=30).startswith(
        ("src/units.rs", "pkg/units.py"))
    # ... but `to` may start a local name of the code's own as well (`total`), which is
    # likelier: the function used just above leads, as with nothing typed.
    head, _, last = code.rpartition("\n")
    local = f"{head}\n{LOCAL_LINE[language]}{last}"
    assert context(collection, local + "to", path, max_tokens=30).startswith(
        ("src/other.rs", "pkg/other.py"))


# A Go package in libyaml's manner: helpers named `is_*` and `yaml_*` in sibling files, and
# the edited file's own `yaml_scan`.
YAML_PACKAGE = {
    "go.mod": "module example.com/yaml\n\ngo 1.21\n",
    "chars.go": "package yaml\n\nfunc is_blank(b byte) bool {\n\treturn b == ' '\n}\n",
    "emit.go": "package yaml\n\nfunc yaml_emit(n int) int {\n\treturn n\n}\n",
    "other.go": "package yaml\n\nfunc other_days(n int) int {\n\treturn n\n}\n",
    "scan.go": "package yaml\n\nfunc yaml_scan(buf []byte) int {\n\treturn len(buf)\n}\n",
}
YAML_CODE = ("package yaml\n\n// It is what the scanner reads.\nfunc yaml_scan(buf []byte) int {\n"
             "\tn := other_days(len(buf))\n\tif ")


@pytest.mark.parametrize(("typed", "leader"), [
    ("is", "chars.go"),  # `is` of the comment is no name of the code's
    ("ya", "emit.go"),  # nor are `yaml` of the package clause and the file's own `yaml_scan`
    ("", "other.go"),  # nothing typed: the function used just above leads
])
def test_a_begun_name_defers_only_to_names_the_code_writes_and_defines_nowhere(
    tmp_path: Path, fake_encoder: FakeEncoder, typed: str, leader: str
) -> None:
    collection = indexed(tmp_path, YAML_PACKAGE)
    assert context(collection, YAML_CODE + typed, "scan.go", max_tokens=20).startswith(leader)
