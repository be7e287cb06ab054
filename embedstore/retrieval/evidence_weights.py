"""The weight code-at-cursor gives each piece of evidence a candidate has.

A candidate's score is the sum of what it earned: being imported, used near the cursor,
reached through a module or a held value, named like the function at the cursor... Each
weight was chosen on the tuning sets (docs/evaluation.md says how, pass by pass); the
modules that gather the evidence (``code_context.py``, ``held_members.py``) share them
here.
"""

from __future__ import annotations

# Score parts of a definition the code imports by name (code_context._structural).
IMPORTED = 1.0
USED_NEAR = 2.0
NOT_YET_USED = 1.5
# A definition of a module the code imports whole weighs this share of an imported name.
MODULE_SHARE = 0.5
# A module's definition weighs up to this much more the more the collection's files reach
# it through the module (log of its uses over log of the most used member's).
REPO_USES = 1.0
# A name the collection defines once, used in the code but not imported (any language).
UNIQUE_NAME = 0.5
# A top-level definition of another file of the edited file's package (Go), not yet used.
SIBLING = 0.25
# ... of the file a test file is named after.
TESTED = 1.0
# A sibling's definition weighs up to this much more the more the package's files use its
# name (log of its uses over log of the most used one's): of a package's hundreds of
# functions, those its files call most are the likely next call, as REPO_USES has it for
# a module's members.
SIBLING_USES = 0.5
# Members of a class the code refers to: what the next `obj.method(` may call.
MEMBER_SHARE = 0.5
# The first member of a class a name used near the cursor holds (`x = Cls()`, `x: Cls`).
RECEIVER = 2.0
# A function that returns what the function at the cursor returns, all its type names.
EXPECTED = 0.5
# A function named as the function at the cursor, all the words of its name.
NAMESAKE = 0.5
# A member defined beside one the code calls through a name holding its class: a class
# keeps related members together (clap's `is_*_set` getters, a builder's setters), and
# code that calls one goes on to its neighbours. It weighs as that call's nearness would
# (USED_NEAR), halving every NEIGHBOUR_HALF_LIFE members away in source order.
NEIGHBOUR_HALF_LIFE = 2.0
# Similar code (RepoCoder): a hit's score by its rank.
SIMILAR = 1.0
# A candidate that the similar code uses: what code like this calls.
CO_USED = 1.0
