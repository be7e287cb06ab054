"""Code-at-cursor's evidence from classes: the members of a class the code names, and of
the classes its values hold (``receivers.py``: `x = Cls()`, `x: &Cls`, a Go receiver).

Which member the next `x.` calls is what this ranks: those the code already calls through
that name first, then those the collection calls most, then the rest in source order,
each after the first weighing less, so that one class of two hundred members cannot crowd
out the other candidates.
"""

from __future__ import annotations

import math
from collections.abc import Container, Iterable, Mapping, Set

from embedstore.languages import callable_through, is_private_member
from embedstore.retrieval.candidate_ranker import Candidate
from embedstore.retrieval.collection_view import (
    definitions_in,
    file_lines,
    header_text,
    method_calls,
)
from embedstore.retrieval.evidence_weights import (
    MEMBER_SHARE,
    NEIGHBOUR_HALF_LIFE,
    RECEIVER,
    REPO_USES,
    USED_NEAR,
)
from embedstore.retrieval.module_bindings import HAS_MEMBERS, member_files
from embedstore.retrieval.receivers import Receiver, field_types, returned_type
from embedstore.store import symbol_table
from embedstore.store.collection import Collection
from embedstore.store.symbol_table import DefinitionRow


def add_members(
    collection: Collection, candidates: dict[tuple[str, int], Candidate],
    attribute_near: Mapping[str, float],
) -> None:
    """A class candidate's outline lists its members' signatures, which score on their own;
    ``attribute_near`` are the code's uses of attributes of values of no known class."""
    classes = [c for c in candidates.values() if c.row.kind in HAS_MEMBERS]
    if not classes:
        return
    scopes = {id(c): member_files(collection, c.row) for c in classes}
    # Members by (file, class): a class of the same name in another scope has its own.
    members_of: dict[tuple[str, str], list[DefinitionRow]] = {}
    for row in definitions_in(collection, {p for files in scopes.values() for p in files}):
        owner, dot, _ = row.qualname.rpartition(".")
        if dot and not _private(collection, row):
            members_of.setdefault((row.path, owner), []).append(row)
    for cls in classes:
        members = [m for path in scopes[id(cls)]
                   for m in members_of.get((path, cls.row.qualname), [])]
        # What the collection reaches through the class's name (`Error::new`, `Bridge.TAG`),
        # as it does a module's members.
        uses = symbol_table.member_uses(collection.conn, [cls.row.name])
        most = math.log1p(max(uses.values(), default=0))
        popular = {m.name: math.log1p(uses.get(m.name, 0)) / most if most else 0.0
                   for m in members}
        # An outline cut short keeps what a caller needs first: the members used near the
        # cursor, those the collection uses most, the constructor, the public ones, then
        # the rest, each in source order.
        cls.members = sorted(members, key=lambda m: (
            -attribute_near.get(m.name, 0.0), -popular[m.name], m.name != "__init__",
            m.name.startswith("_")))
        for member in cls.members:
            used = attribute_near.get(member.name, 0.0)
            score = cls.score * MEMBER_SHARE + USED_NEAR * used + REPO_USES * popular[member.name]
            found = candidates.setdefault((member.path, member.start_line), Candidate(member))
            found.score = max(found.score, score)
            found.through.add(cls.row.name)


def _private(collection: Collection, member: DefinitionRow) -> bool:
    """A member only its own class reaches (`private x: Foo`): code elsewhere never uses it."""
    return is_private_member(member.name, header_text(collection, member), member.language)


def attributes_near(near: dict[str, float], holders: Mapping[str, Receiver]) -> dict[str, float]:
    """`obj.method` near the cursor: the nearest use of each attribute name, except those
    through a name whose class the code shows (``holders``)."""
    found: dict[str, float] = {}
    for name, weight in near.items():
        if "." in name:
            receiver, _, last = name.rpartition(".")
            if receiver not in holders:
                found[last] = max(found.get(last, 0.0), weight)
    return found


def add_receivers(
    collection: Collection, holders: Mapping[str, Receiver], path: str | None, language: str,
    candidates: dict[tuple[str, int], Candidate], near: Mapping[str, float],
    earlier: set[str], attribute_near: Mapping[str, float],
) -> None:
    """The members of the classes the names used near the cursor hold (receivers.py): what
    the next `x.` calls, those the code calls through that name or through a name of no
    known class (`self.environment.parse`) first, then public ones in source order,
    each after the first weighing less, so that one class cannot crowd out the rest; and
    those beside the members the code calls through that name (neighbours). A call of
    ``earlier``, through another variable of the same name, orders its member as a call
    does, but leaves it its neighbours' share. Only those the value can call as its name
    holds it (a Rust `&T`: `&self` methods; callable_through)."""
    held: dict[str, float] = {}  # class name -> how near its holder is used
    holding: dict[str, set[str]] = {}  # class name -> the names holding it
    borrows: dict[str, str] = {}  # class name -> how its holders hold it, the freest
    chains = chains_by_head(near, holders)
    called: dict[str, dict[str, float]] = {}  # class name -> member -> nearest call through it
    # ... through this very variable: ``earlier`` chains are another's of the same name.
    called_here: dict[str, set[str]] = {}
    for name, found in holders.items():
        use, through = reached_through(chains.get(name, []), name)
        _, here = reached_through(
            [(chain, w) for chain, w in chains.get(name, []) if chain not in earlier], name)
        for made in _classes_made_by(collection, found, language):
            held[made] = max(held.get(made, 0.0), use)
            holding.setdefault(made, set()).add(name)
            borrows[made] = min(borrows.get(made, found.borrow), found.borrow, key=_FREEDOM.index)
            merged = called.setdefault(made, {})
            for attribute, weight in through.items():
                merged[attribute] = max(merged.get(attribute, 0.0), weight)
            called_here.setdefault(made, set()).update(here)
    if not held:
        return
    rows = [r for r in symbol_table.definitions_named(collection.conn, sorted(held))
            if r.kind in HAS_MEMBERS]
    calls = method_calls(collection)
    for name in held:
        of_name = [r for r in rows if r.name == name]
        # A class name several files define: the one the code imports, else the edited
        # file's own (Rust's `self`), else none.
        if len(of_name) > 1:
            of_name = sorted((r for r in of_name
                              if (r.path, r.start_line) in candidates or r.path == path),
                             key=lambda r: r.path == path)[:1]
        for row in of_name:
            cls = candidates.setdefault((row.path, row.start_line), Candidate(row))
            used = called[name]
            if not cls.members:
                add_members(collection, {(row.path, row.start_line): cls}, used)
            # The edited file's members are in the prompt already: they take no place.
            reachable = [m for m in cls.members if m.path != path]
            if (can_call := callable_through(row.language)) is not None:
                owner = header_text(collection, row)
                reachable = [m for m in reachable
                             if can_call(header_text(collection, m), borrows[name], owner)]
            ordered = sorted(reachable, key=lambda m: (
                -max(used.get(m.name, 0.0), attribute_near.get(m.name, 0.0)),
                -calls.get(m.name, 0), m.name.startswith("_")))
            beside = neighbours(cls.members, used, called_here[name])
            for order, member in enumerate(ordered):
                it = candidates.setdefault((member.path, member.start_line), Candidate(member))
                it.score = max(it.score, RECEIVER * held[name] / math.sqrt(order + 1)
                               + USED_NEAR * used.get(member.name, 0.0),
                               it.score + USED_NEAR * beside[id(member)])
                it.held = True
                # Reached through its holders, and through its class as add_members' are
                # (`StableGraph::` after `let g: StableGraph<N, E> = `).
                it.through.update(holding[name] | {row.name})


def field_holders(
    collection: Collection, holders: Mapping[str, Receiver], own: Mapping[str, str],
    path: str | None, language: str,
) -> dict[str, Receiver]:
    """`self.map` holds what the definition of the method's own receiver's class declares
    its field to be (`map: IndexMap<K, V>`): a wrapper's methods call the wrapped value's
    (IndexSet's `self.map.insert_full(`). The definition is the one the code shows (``own``:
    class name -> its definitions' text), else the collection's copy of the edited file's,
    else the collection's only one of that name; `#[cfg]` alternatives all count."""
    found: dict[str, Receiver] = {}
    for name, holder in holders.items():
        if not holder.own:
            continue
        definition = own.get(holder.source)
        if definition is None:
            rows = [r for r in symbol_table.definitions_named(collection.conn, [holder.source])
                    if r.kind in HAS_MEMBERS and r.language == language]
            mine = [r for r in rows if r.path == path]
            rows = mine or (rows if len(rows) == 1 else [])
            definition = "\n".join(file_lines(collection, r.path).get(n, "") for r in rows
                                   for n in range(r.start_line, r.end_line + 1))
        for field, (cls, borrow) in field_types(definition, language).items():
            # As the receiver holds it: a field of `&self` is borrowed as `&self` is.
            found[f"{name}.{field}"] = Receiver(f"{name}.{field}", cls, False, holder.line,
                                                 borrow or holder.borrow, own=True)
    return found


# How a name may hold a value, freest first (Rust: owned, `&mut`, `&`).
_FREEDOM = ("", "&mut", "&")


def chains_by_head(
    near: Mapping[str, float], heads: Container[str] | None = None
) -> dict[str, list[tuple[str, float]]]:
    """The code's chains (``near``'s names) by each of their heads (`a`, `a.b` for `a.b.c`),
    of ``heads`` alone if given: one pass over the code's names, not one per head (a suffix
    of 2,000 lines has thousands of names)."""
    chains: dict[str, list[tuple[str, float]]] = {}
    for chain, weight in near.items():
        head = ""
        for part in chain.split("."):
            head = f"{head}.{part}" if head else part
            if heads is None or head in heads:
                chains.setdefault(head, []).append((chain, weight))
    return chains


def reached_through(
    chains: Iterable[tuple[str, float]], name: str
) -> tuple[float, dict[str, float]]:
    """How near the cursor ``name`` is used, and each attribute the code reaches through
    it (`cmd.get_name()`: get_name) with its nearest use, of the code's ``chains`` that
    start with ``name``."""
    use = 0.0
    through: dict[str, float] = {}
    prefix = name + "."
    for chain, weight in chains:
        use = max(use, weight)
        if chain != name:
            attribute = chain[len(prefix):].split(".", 1)[0]
            through[attribute] = max(through.get(attribute, 0.0), weight)
    return use, through


def neighbours(members: list[DefinitionRow], used: Mapping[str, float],
               counted: Set[str] | None = None) -> dict[int, float]:
    """id(member) -> the nearness of the uses of the members beside it in its class's source
    order, halving every NEIGHBOUR_HALF_LIFE members away (a used member, of those
    ``counted``, default all, counts by its own use, not here)."""
    counted = used.keys() if counted is None else counted
    in_source = sorted(members, key=lambda m: (m.path, m.start_line))
    uses = [(place, used[m.name]) for place, m in enumerate(in_source) if m.name in used]
    return {id(member): 0.0 if member.name in counted else max(
        (weight * 0.5 ** ((abs(place - at) - 1) / NEIGHBOUR_HALF_LIFE)
         for at, weight in uses if at != place), default=0.0)
        for place, member in enumerate(in_source)}


def _classes_made_by(collection: Collection, found: Receiver, language: str) -> list[str]:
    """The class ``found``'s source names, or that a function of that name returns."""
    name = found.source.rsplit(".", 1)[-1]
    if not found.called:
        return [name]
    rows = symbol_table.definitions_named(collection.conn, [name])
    if any(r.kind in HAS_MEMBERS for r in rows):
        return [name]
    made = [returned_type(header_text(collection, r), language)
            for r in rows if r.kind in ("function", "method")]
    return list(dict.fromkeys(m.rsplit(".", 1)[-1] for m in made if m))
