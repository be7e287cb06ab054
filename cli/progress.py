"""Rich progress bars for the library's Progress protocol, on stderr."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

STAGE_LABELS = {
    "scan": "Scanning files",
    "chunk": "Chunking files",
    "encode": "Encoding chunks",
    "store": "Writing SQLite",
    "index": "Building index",
}


class RateColumn(ProgressColumn):
    """Items per second, the number that says whether encoding is healthy."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.1f}/s" if speed else "", style="cyan")


class RichProgress:
    """Context manager: one bar per stage, kept on screen when it ends."""

    def __init__(self, console: Console, *, enabled: bool = True) -> None:
        self._progress = Progress(
            TextColumn("{task.description:<16}"),
            BarColumn(),
            MofNCompleteColumn(),
            RateColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console,
            disable=not enabled,
        )
        self._tasks: dict[str, TaskID] = {}

    def __enter__(self) -> RichProgress:
        self._progress.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._progress.stop()

    def start(self, stage: str, total: int | None = None) -> None:
        label = STAGE_LABELS.get(stage, stage)
        self._tasks[stage] = self._progress.add_task(label, total=total)

    def advance(self, stage: str, n: int = 1) -> None:
        self._progress.advance(self._tasks[stage], n)

    def finish(self, stage: str) -> None:
        task = self._tasks[stage]
        done = next(t.completed for t in self._progress.tasks if t.id == task)
        self._progress.update(task, total=max(done, 1), completed=max(done, 1))
