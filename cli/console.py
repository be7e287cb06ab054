"""stdout and stderr consoles that write whole lines when they are not a terminal."""

from __future__ import annotations

import os
from typing import Literal

from rich.color import ColorSystem
from rich.console import Console, ConsoleDimensions

# `--color`: auto (a terminal, unless NO_COLOR is set), always (pipes too), never.
ColorMode = Literal["auto", "always", "never"]

# Off a terminal the width only sizes tables and code blocks: it must never bind.
_UNBOUNDED = 1_000_000


class WholeLineConsole(Console):
    """Rich's layout on a terminal; anywhere else each line as long as its content.

    Rich assumes 80 columns when its file is a pipe or a file, and wraps, crops
    and pads every line to them, so `embedstore search ... | grep` would see cut
    and padded lines. Whether the file is a terminal is asked at each print, so
    a test runner that swaps sys.stdout gets the pipe behaviour too.
    """

    @property
    def size(self) -> ConsoleDimensions:
        size = super().size
        return size if self.is_terminal else ConsoleDimensions(_UNBOUNDED, size.height)

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        Console.size.fset(self, new_size)  # type: ignore[attr-defined]

    @property
    def soft_wrap(self) -> bool:
        # Soft wrapping: text is neither wrapped nor padded; the terminal wraps it, if anything.
        return self._soft_wrap or not self.is_terminal

    @soft_wrap.setter
    def soft_wrap(self, value: bool) -> None:
        self._soft_wrap = value

    def use_color(self, mode: ColorMode) -> None:
        """Colour as `--color` says; Rich alone would decide once, at import, from the stream.

        auto follows https://no-color.org: a non-empty NO_COLOR turns colour off, and
        `--color always` overrides it. Off means no escape code at all, bold included, so
        that nothing reaches a log or a pipe but text.
        """
        # Rich reads NO_COLOR at construction and would strip colours from `always` too.
        self.no_color = False
        if mode == "never" or (mode == "auto" and os.environ.get("NO_COLOR")):
            self._color_system = None
        elif mode == "always":
            # Off a terminal (`| less -R`) Rich detects nothing: the 16 standard colours, what
            # every pager and terminal shows, and all that the ANSI syntax theme of `search` uses.
            self._color_system = self._detect_color_system() or ColorSystem.STANDARD
        else:
            self._color_system = self._detect_color_system()

    def on_broken_pipe(self) -> None:
        # Rich exits 1 here; the commands stop quietly with 0 instead, as grep does when its
        # reader has gone (`embedstore search ... | head -1`): see common.cli_errors.
        raise BrokenPipeError


out = WholeLineConsole(highlight=False)
err = WholeLineConsole(stderr=True, highlight=False)


def use_color(mode: ColorMode) -> None:
    """Set `--color` on both consoles."""
    out.use_color(mode)
    err.use_color(mode)
