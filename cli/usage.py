"""Usage errors (a bad option value, a missing argument) as one line on stderr, exit code 2.

Click prints a usage block, a hint and the error over four lines, and Typer words bad
values as pydantic does ("Value error, ..."); a script reading stderr wants one line.
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Sequence
from typing import Any

import typer
from pydantic import ValidationError

# Typer raises its own copy of Click's exceptions, not click's.
from typer._click import exceptions as click_errors
from typer.core import TyperGroup

from embedstore.cli.common import print_error
from embedstore.cli.global_options import hoist_global_options


class OneLineUsageErrors(TyperGroup):
    """The `embedstore` group, whose usage errors are each one plain line."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        args = hoist_global_options(sys.argv[1:] if args is None else args)
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        try:
            code = super().main(args, prog_name, complete_var, False, windows_expand_args,
                                **extra)
        except click_errors.NoArgsIsHelpError as exc:
            exc.show()  # `embedstore` alone: the help is the answer
            sys.exit(exc.exit_code)
        except click_errors.UsageError as exc:
            print_error(_usage_message(exc))
            sys.exit(exc.exit_code)
        except click_errors.ClickException as exc:
            print_error(exc.format_message())
            sys.exit(exc.exit_code)
        except typer.Abort:
            print_error("aborted")
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


def _usage_message(exc: click_errors.UsageError) -> str:
    """Click's message in plain words, with the closest choice to a mistyped one, and where
    help is."""
    if isinstance(exc, click_errors.BadParameter) and isinstance(exc.__cause__, ValidationError):
        exc.message = _plain(exc.__cause__, option_choices(exc.param))
    where = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
    return exc.format_message().rstrip(".") + where


def _plain(error: ValidationError, choices: Sequence[str]) -> str:
    """What Typer's pydantic conversion found wrong, without pydantic's "Value error, "."""
    first = error.errors()[0]
    reason = first.get("ctx", {}).get("error") if first["type"] == "value_error" else None
    message = str(reason or first["msg"]).rstrip(".")
    near = difflib.get_close_matches(str(first.get("input", "")), choices, n=1)
    return f"{message}; did you mean {near[0]!r}?" if near else message


def option_choices(param: object) -> list[str]:
    """The values a Literal or Enum option takes (Typer keeps them on its parameter)."""
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is None or not getattr(descriptor, "is_choice", False):
        return []
    return [str(getattr(choice, "value", choice)) for choice in descriptor.choices or ()]
