"""Progress that outlives its reader: `embedstore index ... 2>&1 | head -1` still indexes.

The reader of a progress line going away is no reason to drop an index run half done: a
closed pipe silences the progress, and the run goes on to commit. (A search's reader going
away ends the search, see common.cli_errors: there the output is the whole point.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import IO

from embedstore.cli.common import silence
from embedstore.progress import Progress


class PipeSafeProgress:
    """``inner``, until writing to ``stream`` fails for a closed pipe; nothing after."""

    def __init__(self, inner: Progress, stream: IO[str]) -> None:
        self._inner = inner
        self._stream = stream
        self._closed = False

    def start(self, stage: str, total: int | None = None) -> None:
        self._guarded(lambda: self._inner.start(stage, total))

    def advance(self, stage: str, n: int = 1) -> None:
        self._guarded(lambda: self._inner.advance(stage, n))

    def add_total(self, stage: str, n: int) -> None:
        self._guarded(lambda: self._inner.add_total(stage, n))

    def finish(self, stage: str) -> None:
        self._guarded(lambda: self._inner.finish(stage))

    def _guarded(self, report: Callable[[], None]) -> None:
        if self._closed:
            return
        try:
            report()
        except BrokenPipeError:
            self._closed = True
            silence(self._stream)  # later lines (the final report's) go nowhere, quietly
