"""stdout and stderr consoles that write whole lines when they are not a terminal."""

from __future__ import annotations

from rich.console import Console, ConsoleDimensions

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

    def on_broken_pipe(self) -> None:
        # Rich exits 1 here; the commands stop quietly with 0 instead, as grep does when its
        # reader has gone (`embedstore search ... | head -1`): see common.cli_errors.
        raise BrokenPipeError


out = WholeLineConsole(highlight=False)
err = WholeLineConsole(stderr=True, highlight=False)
