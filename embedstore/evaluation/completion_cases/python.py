"""Python cases, from Python's own ``ast``: calls, methods of a class the code shows, constants.

Names are bound as the code before each line shows them: imports (relative ones
and re-exports through ``__init__.py`` followed), assignments from a class's
call, annotated parameters and variables.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from embedstore.evaluation.completion_cases.common import Definition, FileUses, Use

if TYPE_CHECKING:
    from embedstore.ingest.sources import SourceFile


@dataclass(frozen=True)
class _ModuleRef:
    name: str  # dotted


@dataclass(frozen=True)
class _Instance:
    cls: Definition
    line: int  # the last line of what shows the type: visible to cursors below it


# What a name means at a point of a file; None: something this analysis does not follow
# (a local that hides an import, a module outside the repository...).
_Binding = Definition | _ModuleRef | _Instance | None


@dataclass
class _Module:
    name: str
    source: str  # the file's text
    path: str
    tree: ast.Module
    definitions: dict[str, Definition]
    reexports: dict[str, tuple[str, str]]  # name -> (module, name) it is imported from


class _Repository:
    def __init__(self, modules: Sequence[_Module]) -> None:
        self.modules = {m.name: m for m in reversed(modules)}  # a clash: the first file wins

    def member(
        self, module: str, name: str, seen: frozenset[tuple[str, str]] = frozenset()
    ) -> Definition | _ModuleRef | None:
        """What ``from module import name`` binds, re-exports followed to their definition.

        A name the module defines or imports comes first, then a submodule of that
        name, as Python's import system resolves it.
        """
        found = self.modules.get(module)
        if found is not None:
            if name in found.definitions:
                return found.definitions[name]
            origin = found.reexports.get(name)
            if origin is not None and (module, name) not in seen:
                resolved = self.member(*origin, seen | {(module, name)})
                if resolved is not None:
                    return resolved
        submodule = f"{module}.{name}"
        return _ModuleRef(submodule) if submodule in self.modules else None


def find(root: Path, sources: Sequence[SourceFile]) -> list[FileUses]:
    modules = _parse(root, [s for s in sources if s.rel_path.endswith(".py")])  # no stubs
    repository = _Repository(modules)
    return [FileUses(m.path, m.source, _uses(repository, m)) for m in modules]


def _parse(root: Path, sources: Sequence[SourceFile]) -> list[_Module]:
    names = _module_names([s.rel_path for s in sources], root.name)
    modules = []
    for source in sources:
        try:
            tree = ast.parse(source.text)
        except (SyntaxError, ValueError):  # not Python 3, or a NUL byte
            continue
        module = _Module(names[source.rel_path], source.text, source.rel_path, tree, {}, {})
        for stmt in _top_level(tree.body):
            for name, definition in _defined(source.rel_path, stmt, None):
                # The first: a fallback further down is not the one a reader finds first.
                module.definitions.setdefault(name, definition)
            if isinstance(stmt, ast.ImportFrom) and (base := _absolute(module, stmt)):
                for alias in stmt.names:
                    if alias.name != "*":
                        module.reexports.setdefault(alias.asname or alias.name, (base, alias.name))
        modules.append(module)
    return modules


def _module_names(rel_paths: Sequence[str], root_name: str) -> dict[str, str]:
    """Dotted module names as Python imports them with the topmost package's parent on the path.

    A folder is a package when it has an ``__init__.py``; the repository folder
    itself, when it is one, takes its own name.
    """
    paths = [PurePosixPath(p) for p in rel_paths]
    packages = {p.parent for p in paths if p.name == "__init__.py"}
    names = {}
    for rel, path in zip(rel_paths, paths, strict=True):
        parts = [] if path.name == "__init__.py" else [path.stem]
        folder = path.parent
        while folder in packages:
            parts.insert(0, folder.name or root_name)
            if folder == folder.parent:
                break
            folder = folder.parent
        names[rel] = ".".join(parts)
    return names


def _top_level(body: Sequence[ast.stmt]) -> Iterator[ast.stmt]:
    """Module-level statements, through ``if``/``try``/``with`` (version and import fallbacks)."""
    for stmt in body:
        if isinstance(stmt, ast.If):
            yield from _top_level([*stmt.body, *stmt.orelse])
        elif isinstance(stmt, ast.Try):
            handlers = [s for h in stmt.handlers for s in h.body]
            yield from _top_level([*stmt.body, *handlers, *stmt.orelse, *stmt.finalbody])
        elif isinstance(stmt, ast.With):
            yield from _top_level(stmt.body)
        else:
            yield stmt


def _defined(path: str, stmt: ast.stmt, owner: str | None) -> list[tuple[str, Definition]]:
    """The names ``stmt`` defines in its module (``owner`` None) or in class ``owner``."""
    prefix = f"{owner}." if owner else ""
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
        if is_overload_stub(stmt):
            return []  # a declaration for type checkers: the implementation below is the def
        kind = "method" if owner else "function"
        return [(stmt.name, Definition(path, stmt.lineno, prefix + stmt.name, kind))]
    if isinstance(stmt, ast.ClassDef):
        members: dict[str, Definition] = {}
        for inner in stmt.body:
            for name, definition in _defined(path, inner, prefix + stmt.name):
                members.setdefault(name, definition)
        return [(stmt.name, Definition(path, stmt.lineno, prefix + stmt.name, "class", members))]
    if isinstance(stmt, ast.Assign):
        targets = [
            n for t in stmt.targets for n in ast.walk(t)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)  # not `a` of `a.b = 1`
        ]
    elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        targets = [stmt.target]
    else:
        return []
    return [(t.id, Definition(path, stmt.lineno, prefix + t.id, "constant")) for t in targets]


def is_overload_stub(stmt: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the function is an `@overload` (`@typing.overload`) stub: a declaration."""
    return any(_named(d, "overload") for d in stmt.decorator_list)


def _named(node: ast.expr, name: str) -> bool:
    """``node`` is ``name`` or an attribute of that name (``typing.overload``, ``t.overload``)."""
    return (isinstance(node, ast.Name) and node.id == name) or (
        isinstance(node, ast.Attribute) and node.attr == name)


def _absolute(module: _Module, node: ast.ImportFrom) -> str | None:
    """The module a ``from ... import`` reads, relative levels resolved; None above the top."""
    if not node.level:
        return node.module
    package = module.name if module.path.endswith("__init__.py") else module.name.rpartition(".")[0]
    parts = package.split(".") if package else []
    if node.level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base) or None


class _Uses(ast.NodeVisitor):
    """Walks one file in source order, binding names as the code before each line shows them.

    Scopes are per function and class; control flow is not followed (a name
    bound in one branch is bound from there on), which is what a reader of the
    code before the cursor sees too.
    """

    def __init__(self, repository: _Repository, module: _Module) -> None:
        self.repository = repository
        self.module = module
        self.scopes: list[dict[str, _Binding]] = [{}]
        self.found: list[Use] = []

    def bind(self, name: str, binding: _Binding) -> None:
        self.scopes[-1][name] = binding

    def lookup(self, name: str) -> _Binding:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def resolve(self, node: ast.expr) -> _Binding:
        if isinstance(node, ast.Name):
            return self.lookup(node.id)
        if not isinstance(node, ast.Attribute):
            return None
        base = self.resolve(node.value)
        if isinstance(base, _ModuleRef):
            return self.repository.member(base.name, node.attr)
        if isinstance(base, _Instance) and base.line < _line(node):
            base = base.cls
        if isinstance(base, Definition) and base.kind == "class":
            return base.members.get(node.attr)
        return None

    def class_of(self, annotation: ast.expr | None) -> Definition | None:
        """The class an annotation names: ``Cls``, ``mod.Cls``, ``"Cls"`` or ``Cls | None``."""
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            try:
                annotation = ast.parse(annotation.value, mode="eval").body
            except (SyntaxError, ValueError):
                return None
        if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
            sides = [self.class_of(annotation.left), self.class_of(annotation.right)]
            classes = [c for c in sides if c is not None]
            return classes[0] if len(classes) == 1 else None
        if annotation is None:
            return None
        found = self.resolve(annotation)
        return found if isinstance(found, Definition) and found.kind == "class" else None

    def record(self, node: ast.expr, kind: str, target: Definition) -> None:
        self.found.append(Use(_line(node), node.end_col_offset or 0, kind, target))

    # -- bindings

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname:
                self.bind(alias.asname, _ModuleRef(alias.name))
            else:  # `import a.b.c` binds `a`
                top = alias.name.partition(".")[0]
                self.bind(top, _ModuleRef(top))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = _absolute(self.module, node)
        for alias in node.names:
            if alias.name != "*":
                found = self.repository.member(base, alias.name) if base else None
                self.bind(alias.asname or alias.name, found)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        # Decorators, defaults and annotations run in the enclosing scope.
        args = node.args
        outside = [*node.decorator_list, *args.defaults, *(d for d in args.kw_defaults if d)]
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        every += [a for a in (args.vararg, args.kwarg) if a is not None]
        for expr in [*outside, *(a.annotation for a in every if a.annotation), node.returns]:
            if expr is not None:
                self.visit(expr)
        self.bind(node.name, None)
        scope: dict[str, _Binding] = {}
        for arg in every:
            cls = self.class_of(arg.annotation)
            scope[arg.arg] = _Instance(cls, _end_line(arg)) if cls else None
        self.scopes.append(scope)
        for stmt in node.body:
            self.visit(stmt)
        self.scopes.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for expr in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]:
            self.visit(expr)
        self.bind(node.name, None)
        self.scopes.append({})
        for stmt in node.body:
            self.visit(stmt)
        self.scopes.pop()

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        for target in node.targets:
            self.visit(target)  # binds every name it stores to None
        made = node.value.func if isinstance(node.value, ast.Call) else None
        cls = self.resolve(made) if made is not None else None
        if isinstance(cls, Definition) and cls.kind == "class":
            for target in node.targets:
                if isinstance(target, ast.Name):
                    self.bind(target.id, _Instance(cls, _end_line(node)))

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.visit(node.annotation)
        if node.value is not None:
            self.visit(node.value)
        self.visit(node.target)
        cls = self.class_of(node.annotation)
        if cls is not None and isinstance(node.target, ast.Name):
            self.bind(node.target.id, _Instance(cls, _end_line(node)))

    # -- uses

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Store):
            self.bind(node.id, None)
        elif isinstance(node.ctx, ast.Load):
            self.read(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.ctx, ast.Load):
            self.read(node)
        self.visit(node.value)

    def read(self, node: ast.Name | ast.Attribute) -> None:
        target = self.resolve(node)
        if isinstance(target, Definition) and target.kind == "constant":
            self.record(node, "attribute", target)

    def visit_Call(self, node: ast.Call) -> None:
        target = self.resolve(node.func)
        if isinstance(target, Definition) and target.kind in ("function", "class", "method"):
            self.record(node.func, "method" if target.kind == "method" else "call", target)
        # The callee's own name is no read of a constant; what it is reached through may be.
        if isinstance(node.func, ast.Attribute):
            self.visit(node.func.value)
        elif not isinstance(node.func, ast.Name):
            self.visit(node.func)
        for expr in [*node.args, *(k.value for k in node.keywords)]:
            self.visit(expr)


def _line(node: ast.expr) -> int:
    """The line of an expression's last token: where ``obj.meth``'s ``meth`` is written."""
    return node.end_lineno or node.lineno


def _end_line(node: ast.stmt | ast.arg) -> int:
    return node.end_lineno or node.lineno


def _uses(repository: _Repository, module: _Module) -> list[Use]:
    visitor = _Uses(repository, module)
    try:
        visitor.visit(module.tree)
    except RecursionError:  # a generated expression nested deeper than the stack
        return []
    return visitor.found
