"""The member access an editor's cursor is in: `cmd.|`, `crate::rt::cle|`, `Command::|`.

An editor asks for a completion mid-line, often just after a `.` or `::`. The next name is
then a member of what the access names: of the module it binds or its path reaches, of the
class it names, or of the class a name of the code holds. Those members come first, in the
order the evidence gave them; of them, those whose name starts as the typed text does first.
Their class leads them: its outline lists them all compactly, even those code-at-cursor
keeps out as candidates of their own (a method the edited file overrides, whose header the
prompt holds: `logging.Handler.handleError(` in a handler's own `handleError`). A name begun
with no access before it (`x = lo|`) puts the definitions it may be the start of first.
"""

from __future__ import annotations

import re
from collections.abc import Set

from embedstore.chunking.symbols import access_at_end
from embedstore.languages import is_comment_line
from embedstore.retrieval.candidate_ranker import Candidate
from embedstore.retrieval.receivers import self_type


def accessed_first(
    ranked: list[Candidate], code: str, language: str, own: Set[str]
) -> list[Candidate]:
    """``ranked`` with the members of the access ``code`` ends in first, or the definitions
    the name it ends in may start (as is when it ends in neither). ``own``: the names the
    edited file defines (no candidates: the prompt holds them) and its package's."""
    access = access_at_end(code)
    if access is None:
        return ranked
    chain, typed = access
    if not chain:
        return _begun_first(ranked, code[:len(code) - len(typed)], typed, language, own)
    parts = chain.split(".")
    if parts[0] == "Self" and (named := self_type(code)) is not None:
        parts[0] = named  # `Self::new(` in an `impl Command` block is `Command::new(`
    # `crate::net::UnixStream::` reaches UnixStream's members as `UnixStream::` does: the
    # longest tail of the chain that candidates are reached through decides.
    for start in range(len(parts)):
        name = ".".join(parts[start:])
        members = [c for c in ranked if name in c.through]
        if members:
            break
    else:
        return ranked
    members.sort(key=lambda c: not c.row.name.startswith(typed))  # stable: evidence order
    # The classes whose outlines list them (none for a module's definitions).
    keys = {(c.row.path, c.row.start_line) for c in members}
    owners = [c for c in ranked if any((m.path, m.start_line) in keys for m in c.members)]
    chosen = {id(c) for c in members + owners}
    return owners + members + [c for c in ranked if id(c) not in chosen]


def _begun_first(
    ranked: list[Candidate], before: str, typed: str, language: str, own: Set[str]
) -> list[Candidate]:
    """A name begun alone (`x = lo`): the definitions it may be the start of first, unless it
    may as well start a name of the code's own (`se` of `self`, a local), which is likelier."""
    known = {c.row.name for c in ranked} | own
    starting = re.compile(rf"(?<![\w$]){re.escape(typed)}[\w$]*")
    # Does the code ``before`` the name begun write a name so begun that is no definition?
    # Comments' words are no names (`// is it` for `is_blank`).
    code = "\n".join(line for line in before.split("\n") if not is_comment_line(line, language))
    if any(m.group() not in known for m in starting.finditer(code)):
        return ranked
    begun = [c for c in ranked if c.row.name.startswith(typed)]
    return begun + [c for c in ranked if not c.row.name.startswith(typed)]
