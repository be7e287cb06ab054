"""Options where people put them: `--color` after the command (`embedstore search Q --color
never`) is moved before it, where Click looks for the group's options; `--store` before
the command (`embedstore --store DIR list`) is moved after it, where each command has it."""

from __future__ import annotations

from collections.abc import Sequence

# The group's options that take a value, and may therefore follow the command too.
GLOBAL_VALUE_OPTIONS = ("--color",)
# Options of (nearly) every command, which may therefore come before it too.
COMMAND_VALUE_OPTIONS = ("--store",)


def hoist_global_options(args: Sequence[str]) -> list[str]:
    """``args`` with each global option found after the command moved just before it,
    so that the last one written still wins.

    Nothing after ``--`` moves: there an option-like word is an argument
    (`embedstore search -- --color`).
    """
    before: list[str] = []  # up to the command: the group's own options
    hoisted: list[str] = []
    lowered: list[str] = []
    after: list[str] = []  # the command and its arguments
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            after.extend(args[i:])
            break
        name = word.partition("=")[0]
        if name in GLOBAL_VALUE_OPTIONS or (name in COMMAND_VALUE_OPTIONS and not after):
            if "=" not in word and i + 1 == len(args):
                return [word]  # its value is missing, which is all Click need say
            moved = list(args[i : i + (1 if "=" in word else 2)])
            if name in COMMAND_VALUE_OPTIONS:
                lowered.extend(moved)
            else:
                (hoisted if after else before).extend(moved)
            i += len(moved)
            continue
        (after if after or not word.startswith("-") else before).append(word)
        i += 1
    end = after.index("--") if "--" in after else len(after)
    return before + hoisted + after[:end] + lowered + after[end:]
