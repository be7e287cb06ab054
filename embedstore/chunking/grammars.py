"""Which tree-sitter nodes are definitions, per language.

Each grammar is a PyPI wheel (``tree-sitter-python``...) that works offline;
this table is the only language-specific knowledge the walker needs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

# Values that make `const f = ...` (JS/TS) or `local f = function` (Lua) a function definition.
FUNCTION_VALUES = frozenset(
    {
        "arrow_function",
        "function_expression",
        "function",
        "generator_function",
        "function_definition",
    }
)

# Kinds whose member functions are methods (a namespace's are plain functions).
CLASS_KINDS = frozenset({"class", "interface", "impl"})


@dataclass(frozen=True)
class Grammar:
    module: str  # import name of the grammar wheel
    entry: str  # its function returning the language pointer
    kinds: Mapping[str, str]  # definition node type -> chunk kind
    # Definitions whose member definitions are chunked on their own when over budget.
    containers: frozenset[str] = frozenset()
    # Nodes around one definition (decorators, `export`, `template <...>`).
    wrappers: frozenset[str] = frozenset()
    # Declarations that are definitions when they bind a function (`const f = () => {}`).
    bindings: frozenset[str] = frozenset()
    # Definitions only with a body: `struct s *p;` mentions a struct, defines nothing.
    needs_body: frozenset[str] = frozenset()
    # Nodes directly above a definition that belong to it.
    leading: frozenset[str] = frozenset({"comment"})
    # Field holding a method's receiver (Go), used to qualify the method's symbol.
    receiver: str | None = None
    # Body nodes, for grammars that give them no `body` field (Kotlin).
    bodies: frozenset[str] = frozenset()
    # Definitions that have no name node, and the keyword they go by (Swift's `init`).
    names: Mapping[str, str] = field(default_factory=dict)
    # Bodiless declarations that fold into the definition of the same name after
    # them (TypeScript's overload signatures); alone they are no definition.
    signatures: frozenset[str] = frozenset()
    # Declarations of named values, and their kind: a definition named by every name it
    # declares (`export const prepend = NEA.prepend`, Go's `const (...)` block), since
    # people look these up by name as they do functions.
    values: Mapping[str, str] = field(default_factory=dict)
    # Whether such a value may be a function that a call built (`export const map =
    # dual(2, ...)`): then a query about what code does may be asking for it.
    callable_values: bool = False
    # The name that declares nothing (Go's and Rust's blank identifier `_`): no definition.
    blank: str = ""
    # Definitions made by assignment at the top level (JavaScript's `exports.f = function
    # () {}`, `C.prototype.m = ...`; chunking/assigned_members.py).
    assigned_members: bool = False


_JS_KINDS = {
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "method_definition": "function",
    "class_declaration": "class",
    "class": "class",
}
_TS_KINDS = {
    **_JS_KINDS,
    "abstract_class_declaration": "class",
    "interface_declaration": "interface",
    "type_alias_declaration": "type",
    "enum_declaration": "type",
    "internal_module": "namespace",
    "module": "namespace",
}
# `const` and `let` are both lexical declarations; `var` is the older variable one.
_JS_VALUES = {"lexical_declaration": "constant", "variable_declaration": "variable"}
_JS = Grammar(
    "tree_sitter_javascript",
    "language",
    _JS_KINDS,
    containers=frozenset({"class_declaration", "class"}),
    wrappers=frozenset({"export_statement"}),
    bindings=frozenset({"lexical_declaration", "variable_declaration"}),
    values=_JS_VALUES,
    callable_values=True,
    assigned_members=True,
)
_TS_CONTAINERS = frozenset(
    {"class_declaration", "class", "abstract_class_declaration", "internal_module", "module"}
)
# `namespace N {}` parses as an expression statement, `declare module` as an ambient one.
_TS_WRAPPERS = frozenset({"export_statement", "ambient_declaration", "expression_statement"})
# `function f(a: string): void;` above `function f(a: any) {...}`, and the same in a class.
_TS_SIGNATURES = frozenset({"function_signature", "method_signature"})
_C_SPECIFIERS = frozenset({"struct_specifier", "union_specifier", "enum_specifier"})

GRAMMARS: Mapping[str, Grammar] = {
    "python": Grammar(
        "tree_sitter_python",
        "language",
        {"function_definition": "function", "class_definition": "class"},
        containers=frozenset({"class_definition"}),
        wrappers=frozenset({"decorated_definition"}),
    ),
    "javascript": _JS,
    "typescript": Grammar(
        "tree_sitter_typescript",
        "language_typescript",
        _TS_KINDS,
        containers=_TS_CONTAINERS,
        wrappers=_TS_WRAPPERS,
        bindings=_JS.bindings,
        signatures=_TS_SIGNATURES,
        values=_JS_VALUES,
        callable_values=True,
    ),
    "tsx": Grammar(
        "tree_sitter_typescript",
        "language_tsx",
        _TS_KINDS,
        containers=_TS_CONTAINERS,
        wrappers=_TS_WRAPPERS,
        bindings=_JS.bindings,
        signatures=_TS_SIGNATURES,
        values=_JS_VALUES,
        callable_values=True,
    ),
    "go": Grammar(
        "tree_sitter_go",
        "language",
        {
            "function_declaration": "function",
            "method_declaration": "method",
            "type_declaration": "type",
        },
        receiver="receiver",
        values={"const_declaration": "constant", "var_declaration": "variable"},
        blank="_",
    ),
    "rust": Grammar(
        "tree_sitter_rust",
        "language",
        {
            "function_item": "function",
            "impl_item": "impl",
            "trait_item": "interface",
            "mod_item": "namespace",
            "struct_item": "type",
            "enum_item": "type",
            "union_item": "type",
            "type_item": "type",
            "macro_definition": "macro",
        },
        containers=frozenset({"impl_item", "trait_item", "mod_item"}),
        leading=frozenset({"line_comment", "block_comment", "attribute_item"}),
        values={"const_item": "constant", "static_item": "variable"},
        blank="_",
    ),
    "java": Grammar(
        "tree_sitter_java",
        "language",
        {
            "class_declaration": "class",
            "enum_declaration": "class",
            "record_declaration": "class",
            "interface_declaration": "interface",
            "annotation_type_declaration": "interface",
            "method_declaration": "function",
            "constructor_declaration": "function",
            "compact_constructor_declaration": "function",
        },
        containers=frozenset(
            {"class_declaration", "enum_declaration", "record_declaration", "interface_declaration"}
        ),
        leading=frozenset({"line_comment", "block_comment"}),
    ),
    "c": Grammar(
        "tree_sitter_c",
        "language",
        {
            "function_definition": "function",
            "type_definition": "type",
            **dict.fromkeys(_C_SPECIFIERS, "type"),
        },
        needs_body=_C_SPECIFIERS,
    ),
    "cpp": Grammar(
        "tree_sitter_cpp",
        "language",
        {
            "function_definition": "function",
            "class_specifier": "class",
            "struct_specifier": "class",
            "union_specifier": "class",
            "enum_specifier": "type",
            "type_definition": "type",
            "alias_declaration": "type",
            "namespace_definition": "namespace",
        },
        containers=frozenset(
            {"class_specifier", "struct_specifier", "union_specifier", "namespace_definition"}
        ),
        wrappers=frozenset({"template_declaration"}),
        needs_body=_C_SPECIFIERS | {"class_specifier"},
    ),
    "ruby": Grammar(
        "tree_sitter_ruby",
        "language",
        {
            "class": "class",
            "module": "namespace",
            "method": "function",
            "singleton_method": "function",
        },
        containers=frozenset({"class", "module"}),
    ),
    "php": Grammar(
        "tree_sitter_php",
        "language_php",  # PHP inside HTML; `language_php_only` would reject the HTML
        {
            "class_declaration": "class",
            "enum_declaration": "class",
            "interface_declaration": "interface",
            "trait_declaration": "interface",
            "namespace_definition": "namespace",
            "method_declaration": "function",
            "function_definition": "function",
        },
        containers=frozenset(
            {
                "class_declaration",
                "enum_declaration",
                "interface_declaration",
                "trait_declaration",
                "namespace_definition",
            }
        ),
        # `namespace App;` only names the file's namespace; `namespace App { }` holds code.
        needs_body=frozenset({"namespace_definition"}),
    ),
    "csharp": Grammar(
        "tree_sitter_c_sharp",
        "language",
        {
            "class_declaration": "class",
            "struct_declaration": "class",
            "record_declaration": "class",
            "interface_declaration": "interface",
            "enum_declaration": "type",
            "delegate_declaration": "type",
            "namespace_declaration": "namespace",
            "method_declaration": "function",
            "constructor_declaration": "function",
            "destructor_declaration": "function",
            "operator_declaration": "function",
            "conversion_operator_declaration": "function",
        },
        containers=frozenset(
            {
                "class_declaration",
                "struct_declaration",
                "record_declaration",
                "interface_declaration",
                "namespace_declaration",
            }
        ),
        names={"operator_declaration": "operator", "conversion_operator_declaration": "operator"},
    ),
    "kotlin": Grammar(
        "tree_sitter_kotlin",
        "language",
        {
            # Interfaces and enums are class declarations too; `companion object`
            # is not a definition, so its members belong to the class.
            "class_declaration": "class",
            "object_declaration": "class",
            "function_declaration": "function",
            "secondary_constructor": "function",
            "type_alias": "type",
        },
        containers=frozenset({"class_declaration", "object_declaration"}),
        leading=frozenset({"line_comment", "block_comment"}),
        bodies=frozenset({"class_body", "enum_class_body", "function_body"}),
        names={"secondary_constructor": "constructor"},
    ),
    "swift": Grammar(
        "tree_sitter_swift",
        "language",
        {
            # Classes, structs, enums, actors and extensions.
            "class_declaration": "class",
            "protocol_declaration": "interface",
            "function_declaration": "function",
            "protocol_function_declaration": "function",
            "init_declaration": "function",
            "deinit_declaration": "function",
            "subscript_declaration": "function",
            "typealias_declaration": "type",
        },
        containers=frozenset({"class_declaration", "protocol_declaration"}),
        leading=frozenset({"comment", "multiline_comment"}),
        names={
            "init_declaration": "init",
            "deinit_declaration": "deinit",
            "subscript_declaration": "subscript",
        },
    ),
    "scala": Grammar(
        "tree_sitter_scala",
        "language",
        {
            "class_definition": "class",
            "object_definition": "class",
            "enum_definition": "class",
            "trait_definition": "interface",
            "function_definition": "function",
            "function_declaration": "function",
            "type_definition": "type",
        },
        containers=frozenset(
            {"class_definition", "object_definition", "enum_definition", "trait_definition"}
        ),
        leading=frozenset({"comment", "block_comment"}),
    ),
    "lua": Grammar(
        "tree_sitter_lua",
        "language",
        {"function_declaration": "function"},
        wrappers=frozenset({"variable_declaration"}),  # `local f = function() ... end`
        bindings=frozenset({"assignment_statement"}),
    ),
    # Bash's grammar also reads the sh and zsh files that share the name.
    "shell": Grammar("tree_sitter_bash", "language", {"function_definition": "function"}),
}
