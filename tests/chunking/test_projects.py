"""Project files (go.mod, tsconfig.json) as the import resolvers read them."""

from __future__ import annotations

import time

from embedstore.chunking.projects import (
    GoModule,
    JsPackage,
    RustCrate,
    TsConfig,
    read_cargo_toml,
    read_go_mod,
    read_package_json,
    read_project,
    read_tsconfig,
)
from embedstore.chunking.symbols import ImportRef, resolve_import


def test_go_mod_module_and_local_replacements() -> None:
    text = """module github.com/acme/app // the app

go 1.21

replace github.com/acme/one => ./one

replace (
	github.com/acme/two v1.2.0 => ../two
	github.com/other/lib => github.com/fork/lib v1.0.0
)
"""
    replaced = {"github.com/acme/one": "svc/one", "github.com/acme/two": "two"}
    assert read_go_mod("svc", text) == GoModule("svc", "github.com/acme/app", replaced)
    assert read_go_mod("", "go 1.21\n") is None


def test_tsconfig_with_comments_and_trailing_commas() -> None:
    text = """{
  // "baseUrl": "nowhere",
  "compilerOptions": {
    "baseUrl": "./src", /* where imports start */
    "paths": {"@app/*": ["app/*", "legacy/*"], "cfg": ["config/index.ts",],},
    "outDir": "http://not/a/comment",
  },
}"""
    assert read_tsconfig("web", text) == TsConfig(
        "web", "web/src",
        {"@app/*": ("web/src/app/*", "web/src/legacy/*"), "cfg": ("web/src/config/index.ts",)},
    )
    assert read_tsconfig("", "{ not json") is None
    assert read_tsconfig("", '{"compilerOptions": {"strict": true}}') is None


def test_cargo_toml_names_the_library_crate() -> None:
    assert read_cargo_toml("", '[package]\nname = "regex-syntax"\n') == RustCrate(
        "regex_syntax", "src")
    lib = '[package]\nname = "x"\n[lib]\nname = "y"\npath = "lib/y.rs"\n'
    assert read_cargo_toml("crates/x", lib) == RustCrate("y", "crates/x/lib")
    assert read_cargo_toml("", '[workspace]\nmembers = ["a"]\n') is None
    assert read_cargo_toml("", "not = [toml") is None


def test_an_example_or_binary_table_does_not_rename_the_crate() -> None:
    # clap's published Cargo.toml: `[lib]` then `[[example]]` tables, each with a name and
    # a path; the crate that examples/ `use` is still clap's, rooted at src/.
    text = ('[package]\nname = "clap"\n\n[lib]\nbench = false\n\n'
            '[[example]]\nname = "demo"\npath = "examples/demo.rs"\n\n'
            '[[bin]]\nname = "stdio-fixture"\n')
    assert read_cargo_toml("", text) == RustCrate("clap", "src")


def test_package_json_names_a_package_and_its_entry_points() -> None:
    text = """{"name": "@acme/core", "main": "dist/index.js", "types": "dist/index.d.ts",
      "exports": {".": {"types": "./dist/index.d.ts", "import": ["./dist/esm/index.mjs"]},
                  "./utils": "./dist/utils.js"}}"""
    assert read_package_json("packages/core", text) == JsPackage("@acme/core", "packages/core", {
        ".": ("packages/core/dist/index.d.ts", "packages/core/dist/esm/index.mjs",
              "packages/core/dist/index.js"),
        "./utils": ("packages/core/dist/utils.js",),
    })
    # `exports` as the package's one entry, with conditions.
    assert read_package_json("", '{"name": "zod", "exports": {"import": "./lib/index.mjs"}}') \
        == JsPackage("zod", "", {".": ("lib/index.mjs",)})
    assert read_package_json("", '{"private": true}') is None  # a workspace's root, unnamed
    assert read_package_json("", "{ not json") is None


def test_a_workspace_package_resolves_to_its_sources() -> None:
    project = read_project("acme", {"packages/core/package.json": (
        '{"name": "@acme/core", "exports": {".": "./dist/esm/index.mjs", '
        '"./plugins/*": "./dist/impl/*.mjs"}}')})
    paths = frozenset({"packages/core/src/index.ts", "packages/core/src/utils.ts",
                       "packages/core/src/impl/cart.ts", "packages/app/main.ts"})

    def resolved(specifier: str) -> list[str]:
        ref = ImportRef(specifier, "x", "x", 0, 1)
        return resolve_import(ref, "packages/app/main.ts", "typescript", paths, project)

    assert resolved("@acme/core") == ["packages/core/src/index.ts"]  # the built entry's source
    assert resolved("@acme/core/utils") == ["packages/core/src/utils.ts"]  # a subpath
    assert resolved("@acme/core/plugins/cart") == ["packages/core/src/impl/cart.ts"]  # a pattern
    assert resolved("@acme/core-extra") == []  # another package, whose name only starts alike
    assert resolved("react") == []


def test_a_tsconfig_inherits_base_url_and_paths_from_the_configs_it_extends() -> None:
    # An Nx-style workspace: the paths live in the root's tsconfig.base.json, which is not a
    # tsconfig.json of its own; a package's tsconfig extends it, or a shared config package.
    base = '{"compilerOptions": {"baseUrl": ".", "paths": {"@acme/ui": ["libs/ui/src/index.ts"]}}}'
    others = {
        "tsconfig.base.json": base,
        "tools/tsconfig/strict.json": '{"compilerOptions": {"paths": {"~/*": ["./*"]}}}',
        "loop/tsconfig.json": '{"extends": "./tsconfig.json"}',
    }
    project = read_project("acme", {
        "apps/web/tsconfig.json": '{"extends": "../../tsconfig.base.json", '
                                  '"compilerOptions": {"strict": true}}',
        "apps/api/tsconfig.json": '{"extends": ["../../tsconfig.base.json", '
                                  '"@acme/tsconfig/strict"]}',
        "apps/own/tsconfig.json": '{"extends": "../../tsconfig.base", '
                                  '"compilerOptions": {"paths": {"@own/*": ["src/*"]}}}',
        "apps/cli/tsconfig.json": '{"extends": "@tsconfig/node20/tsconfig.json"}',
        "apps/tool/tsconfig.json": '{"extends": "@acme/tsconfig/strict.json"}',
        "tools/tsconfig/package.json": '{"name": "@acme/tsconfig"}',
        "loop/tsconfig.json": others["loop/tsconfig.json"],
    }, others.get)
    configs = {c.folder: c for c in project.ts_configs}
    ui = ("libs/ui/src/index.ts",)
    assert configs["apps/web"] == TsConfig("apps/web", "", {"@acme/ui": ui})
    # A later base in the list wins; paths lead from the baseUrl in force (the root's).
    assert configs["apps/api"] == TsConfig("apps/api", "", {"~/*": ("*",)})
    # Its own paths over the inherited ones, from the inherited baseUrl; `.json` left out.
    assert configs["apps/own"] == TsConfig("apps/own", "", {"@own/*": ("src/*",)})
    # With no baseUrl in force, paths lead from the folder of the config that set them.
    assert configs["apps/tool"] == TsConfig("apps/tool", None, {"~/*": ("tools/tsconfig/*",)})
    assert "apps/cli" not in configs  # extends an installed package: sets nothing here
    assert "loop" not in configs  # extends itself: followed a few times, then given up


def test_a_packages_subpath_imports_resolve_for_its_own_files() -> None:
    # msw's shape: `import { ... } from '#core/utils/x'` through package.json `imports`.
    text = """{"name": "mock", "imports": {"#core/*": "./src/core/*.ts",
      "#env": {"node": "./dist/env.node.js", "default": "./dist/env.browser.js"},
      "not-a-hash": "./x.ts"}}"""
    package = read_package_json("lib", text)
    assert package is not None and package.imports == {
        "#core/*": ("lib/src/core/*.ts",),
        "#env": ("lib/dist/env.node.js", "lib/dist/env.browser.js"),
    }
    assert read_package_json("", '{"private": true, "imports": {"#a": "./a.js"}}') is not None
    project = read_project("mock", {"lib/package.json": text})
    paths = frozenset({"lib/src/core/utils/x.ts", "lib/src/env.node.ts", "lib/src/main.ts",
                       "other/main.ts"})

    def resolved(specifier: str, importing: str = "lib/src/main.ts") -> list[str]:
        ref = ImportRef(specifier, "x", "x", 0, 1)
        return resolve_import(ref, importing, "typescript", paths, project)

    assert resolved("#core/utils/x") == ["lib/src/core/utils/x.ts"]
    assert resolved("#env") == ["lib/src/env.node.ts"]  # the built file's source
    assert resolved("#core/missing") == []
    assert resolved("#core/utils/x", "other/main.ts") == []  # outside the package


def test_resolution_with_a_project() -> None:
    project = read_project("app", {
        "go.mod": "module example.com/m\n",
        "web/tsconfig.json": '{"compilerOptions": {"paths": {"@ui/*": ["ui/*"]}}}',
    })
    paths = frozenset({"m.go", "sub/s.go", "sub/s_test.go", "web/ui/button.tsx", "web/main.ts"})
    go = ImportRef("example.com/m/sub", None, "sub", 0, 1)
    assert resolve_import(go, "m.go", "go", paths, project) == ["sub/s.go"]
    root = ImportRef("example.com/m", None, "m", 0, 1)
    assert resolve_import(root, "sub/s.go", "go", paths, project) == ["m.go"]
    assert resolve_import(root, "sub/s.go", "go", paths) == []  # without the go.mod
    ts = ImportRef("@ui/button", "Button", "Button", 0, 1)
    assert resolve_import(ts, "web/main.ts", "typescript", paths, project) == ["web/ui/button.tsx"]
    assert resolve_import(ts, "main.ts", "typescript", paths, project) == []  # out of its tree


def test_reading_project_files_is_linear() -> None:
    started = time.process_time()
    read_tsconfig("", '{"a": "' + "\\" * 200_000 + '"' + " " * 200_000 + ",/" * 100_000)
    read_go_mod("", "\n" * 200_000 + "module " + "a" * 200_000 + "\nreplace " + "x " * 100_000)
    assert time.process_time() - started < 1.0
