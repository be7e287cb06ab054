"""How long-running library calls report progress without knowing the UI."""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    """Stages are named ("scan", "chunk", "encode", "index"); totals may be unknown."""

    def start(self, stage: str, total: int | None = None) -> None: ...

    def advance(self, stage: str, n: int = 1) -> None: ...

    def add_total(self, stage: str, n: int) -> None:
        """``n`` more to do in ``stage``: a total learnt as the stage runs (encoding learns
        what to encode while files are still being chunked)."""
        ...

    def finish(self, stage: str) -> None: ...


class NullProgress:
    """Reports nothing: the default for library callers."""

    def start(self, stage: str, total: int | None = None) -> None:
        pass

    def advance(self, stage: str, n: int = 1) -> None:
        pass

    def add_total(self, stage: str, n: int) -> None:
        pass

    def finish(self, stage: str) -> None:
        pass
