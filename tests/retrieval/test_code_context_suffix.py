"""Code-at-cursor given the text after the cursor too (fill-in-the-middle), as editors send it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedstore.cli.app import app
from embedstore.retrieval.code_context import context_for_code
from embedstore.store.collection import Collection
from tests.fakes import FakeEncoder
from tests.retrieval.test_code_context import indexed
from tests.retrieval.test_code_context_languages import rust_helpers

runner = CliRunner()


def context(collection: Collection, code: str, code_after: str | None, path: str,
            max_tokens: int) -> str:
    return context_for_code(collection, code, code_after=code_after, path=path,
                            max_tokens=max_tokens, similar=False).text


# chrono's shape: a module of a dozen helpers that code reaches by path (`units::to_days(`).
UNIT_CRATE = {
    "Cargo.toml": '[package]\nname = "dates"\nversion = "0.1.0"\n',
    "src/lib.rs": "mod units;\nmod fixtures;\nmod span;\n",
    "src/units.rs": rust_helpers()
                    + "pub(crate) fn to_days(seconds: i64) -> i64 {\n    seconds / 86400\n}\n",
    "src/fixtures.rs": "pub(crate) fn sample_span() -> i64 {\n    86400\n}\n",
}
UNIT_PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/units.py": "".join(f"def helper{i}(n: int) -> int:\n    return n\n\n\n" for i in range(12))
                    + "def to_days(seconds: int) -> int:\n    return seconds\n",
}
# files, the code above the cursor, the code below it, the edited file, the wanted signature
MODULE_CALLED_BELOW = {
    "rust": (UNIT_CRATE, "use crate::units;\n\npub fn length(seconds: i64) -> i64 {\n    ",
             "\n    let days = units::to_days(seconds);\n    days\n}\n", "src/span.rs",
             "pub(crate) fn to_days(seconds: i64) -> i64 {"),
    "python": (UNIT_PACKAGE, "from pkg import units\n\n\ndef length(seconds: int) -> int:\n    ",
               "\n    days = units.to_days(seconds)\n    return days\n", "pkg/span.py",
               "def to_days(seconds: int) -> int:"),
}


@pytest.mark.parametrize("language", sorted(MODULE_CALLED_BELOW))
def test_a_name_the_code_after_the_cursor_uses_is_offered(
    tmp_path: Path, fake_encoder: FakeEncoder, language: str
) -> None:
    files, code, after, path, wanted = MODULE_CALLED_BELOW[language]
    collection = indexed(tmp_path, files)
    # The module's thirteen functions are alike above the cursor; only the suffix tells them
    # apart (and without it, the answer does not hold this one: the check can fail).
    assert wanted not in context(collection, code, None, path, max_tokens=40)
    assert wanted in context(collection, code, after, path, max_tokens=40)


def test_an_import_below_the_cursor_binds_nothing_at_the_cursor(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # A file's test module imports what its tests need (`use crate::fixtures::sample_span;`):
    # the code at a cursor above it cannot use that name.
    collection = indexed(tmp_path, UNIT_CRATE)
    code = "use crate::units::to_days;\n\npub fn length(seconds: i64) -> i64 {\n    "
    body = "".join(f"    let step{i} = seconds + {i};\n" for i in range(40))
    after = (f"\n{body}    to_days(seconds)\n}}\n\n#[cfg(test)]\nmod tests {{\n"
             "    use super::*;\n    use crate::fixtures::sample_span;\n\n"
             "    #[test]\n    fn one_day() {\n        assert_eq!(length(sample_span()), 1);\n"
             "    }\n}\n")
    text = context(collection, code, after, "src/span.rs", max_tokens=2000)
    assert "pub(crate) fn to_days(seconds: i64) -> i64 {" in text
    assert "fn sample_span()" not in text


def test_context_at_a_line_reads_the_code_below_it(tmp_path: Path) -> None:
    # The shell's `--at FILE:LINE` passes the rest of the file as the suffix (the real
    # default model, its tokenizer, similar code and all).
    root = tmp_path / "site"
    root.mkdir()
    helpers = "".join(f"def helper{i}(n: int) -> int:\n    return n\n\n\n" for i in range(12))
    (root / "units.py").write_text(helpers + "def to_days(total: int) -> int:\n"
                                   "    return total // 86400\n")
    store = tmp_path / "store"
    done = runner.invoke(app, ["index", str(root), "--store", str(store)])
    assert done.exit_code == 0, done.stderr
    # A new file, not indexed yet: the collection's copy of it cannot tell what it calls.
    (root / "span.py").write_text("import units\n\n\ndef length(span):\n\n"
                                  "    days = units.to_days(span)\n    return days\n")
    done = runner.invoke(app, ["context", "--at", f"{root / 'span.py'}:5", "--max-tokens", "80",
                               "--store", str(store), "--json"])
    assert done.exit_code == 0, done.stderr
    assert "def to_days(total: int) -> int:" in json.loads(done.stdout)["text"]


def test_an_import_used_neither_above_nor_below_the_cursor_comes_first(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # In a whole file every import is used somewhere: one that the code on both sides of the
    # cursor leaves unused is what the cursor's line uses (tanstack's `createNull()`).
    collection = indexed(tmp_path, {
        "src/equal.ts": "export function deepEqual(a: unknown, b: unknown): boolean {\n"
                        "  return a === b\n}\n",
        "src/utils.ts": "export function createNull(): Record<string, unknown> {\n"
                        "  return Object.create(null)\n}\n",
    })
    code = ("import { deepEqual } from './equal'\nimport { createNull } from './utils'\n\n"
            "export function match(params: Record<string, string>) {\n")
    after = "".join(f"  const step{i} = {i}\n" for i in range(30)) + (
        "  return deepEqual(params, used)\n}\n")
    text = context(collection, code, after, "src/router.ts", max_tokens=2000)
    # Blocks come in the order of their best candidate.
    assert text.startswith("src/utils.ts"), text


# chrono's shape: a type with many `&self` getters, and functions that each take their own `t`.
CLOCK_CRATE = {
    "Cargo.toml": '[package]\nname = "clock"\nversion = "0.1.0"\n',
    "src/lib.rs": "pub mod clock;\npub mod show;\npub mod units;\n",
    "src/clock.rs": "pub struct Clock {\n    secs: u32,\n}\n\nimpl Clock {\n"
                    + "".join(f"    pub fn {name}(&self) -> u32 {{\n        self.secs / {n}\n"
                              "    }\n" for n, name in ((3600, "hour"), (60, "minute"),
                                                      (1, "second")))
                    + "".join(f"    pub fn field{i}(&self) -> u32 {{\n        self.secs + {i}\n"
                              "    }\n" for i in range(20))
                    + "}\n",
    "src/units.rs": "".join(f"pub fn to_unit{i}(n: u32) -> u32 {{\n    n * {i}\n}}\n"
                            for i in range(4)),
}


def test_a_variable_of_a_function_further_up_does_not_hide_what_this_one_calls_below(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # `t.minute()` below the cursor says the line above it likely calls `t.hour()`, its
    # neighbour in `Clock`, before the four imports not used yet. A function far above has
    # a `t` of its own that called `t.minute()` too: that use, far from the cursor, was
    # taken for this `t`'s, and weighed the call below as little as it is near.
    collection = indexed(tmp_path, CLOCK_CRATE)
    filler = "".join(f"pub fn pad{i}(n: u32) -> u32 {{\n    n + {i}\n}}\n\n" for i in range(30))
    code = ("use crate::clock::Clock;\n"
            "use crate::units::{to_unit0, to_unit1, to_unit2, to_unit3};\n\n"
            "pub fn minutes(t: &Clock) -> u32 {\n    t.minute()\n}\n\n"
            f"{filler}pub fn hms(t: &Clock) -> u32 {{\n    ")
    after = "\n    let m = t.minute();\n    h * 60 + m\n}\n"
    hour = "pub fn hour(&self) -> u32 {"
    assert hour in context(collection, code, after, "src/show.rs", max_tokens=50)
    # Without the other `t`, the answer is the same.
    alone = code.replace("t.minute()\n}\n\n", "0\n}\n\n", 1)
    assert hour in context(collection, alone, after, "src/show.rs", max_tokens=50)
