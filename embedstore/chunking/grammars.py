"""Which tree-sitter nodes are definitions, per language.

Each grammar is a PyPI wheel (``tree-sitter-python``...) that works offline;
this table is the only language-specific knowledge the walker needs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

# Values that make `const f = ...` (JS/TS) a function definition.
FUNCTION_VALUES = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function"}
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
_JS = Grammar(
    "tree_sitter_javascript",
    "language",
    _JS_KINDS,
    containers=frozenset({"class_declaration", "class"}),
    wrappers=frozenset({"export_statement"}),
    bindings=frozenset({"lexical_declaration", "variable_declaration"}),
)
_TS_CONTAINERS = frozenset(
    {"class_declaration", "class", "abstract_class_declaration", "internal_module", "module"}
)
# `namespace N {}` parses as an expression statement, `declare module` as an ambient one.
_TS_WRAPPERS = frozenset({"export_statement", "ambient_declaration", "expression_statement"})
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
    ),
    "tsx": Grammar(
        "tree_sitter_typescript",
        "language_tsx",
        _TS_KINDS,
        containers=_TS_CONTAINERS,
        wrappers=_TS_WRAPPERS,
        bindings=_JS.bindings,
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
}
