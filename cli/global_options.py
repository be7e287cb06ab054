"""Global options written after the command (`embedstore search Q --color never`), as git
and rg users write them: moved before it, where Click looks for them."""

from __future__ import annotations

from collections.abc import Sequence

# The group's options that take a value, and may therefore follow the command too.
GLOBAL_VALUE_OPTIONS = ("--color",)


def hoist_global_options(args: Sequence[str]) -> list[str]:
    """``args`` with each global option found after the command moved just before it,
    so that the last one written still wins.

    Nothing after ``--`` moves: there an option-like word is an argument
    (`embedstore search -- --color`).
    """
    before: list[str] = []  # up to the command: the group's own options
    hoisted: list[str] = []
    after: list[str] = []  # the command and its arguments
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            after.extend(args[i:])
            break
        if word.partition("=")[0] in GLOBAL_VALUE_OPTIONS:
            if "=" not in word and i + 1 == len(args):
                return [word]  # its value is missing, which is all Click need say
            moved = list(args[i : i + (1 if "=" in word else 2)])
            (hoisted if after else before).extend(moved)
            i += len(moved)
            continue
        (after if after or not word.startswith("-") else before).append(word)
        i += 1
    return before + hoisted + after
