"""Progress of the library's long calls on stderr: live bars, or plain lines for a log."""

from __future__ import annotations

import time
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
# How often a log (stderr not a terminal) gets a line about a running stage.
LOG_EVERY_S = 10.0


class RateColumn(ProgressColumn):
    """Items per second, the number that says whether encoding is healthy."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.1f}/s" if speed else "", style="cyan")


class RichProgress:
    """Context manager: one bar per stage, kept on screen when it ends.

    When stderr is not a terminal (CI, nohup, `2> log`) a live bar would draw
    nothing until the end, so the stages are reported as plain lines instead:
    one every ``log_every`` seconds while a stage runs, and one when it ends.
    """

    def __init__(
        self, console: Console, *, enabled: bool = True, log_every: float = LOG_EVERY_S
    ) -> None:
        # Rich keeps counting (and measuring speed) with the live display off.
        self._progress = Progress(
            TextColumn("{task.description:<16}"),
            BarColumn(),
            MofNCompleteColumn(),
            RateColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console,
            disable=not (enabled and console.is_terminal),
        )
        self._tasks: dict[str, TaskID] = {}
        self._console = console
        self._log_every = log_every if enabled and not console.is_terminal else None
        self._last_line = 0.0

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
        self._last_line = time.monotonic()

    def advance(self, stage: str, n: int = 1) -> None:
        self._progress.advance(self._tasks[stage], n)
        if self._log_every is not None and time.monotonic() - self._last_line >= self._log_every:
            self._log(stage)

    def add_total(self, stage: str, n: int) -> None:
        task = self._task(stage)
        # Set on the task, not through update(total=...), which forgets the rate measured
        # so far: a total that grows with each chunked file would never show an ETA.
        task.total = (task.total or 0) + n

    def finish(self, stage: str) -> None:
        if self._log_every is not None:
            self._log(stage, final=True)
        done = self._task(stage).completed
        self._progress.update(self._tasks[stage], total=max(done, 1), completed=max(done, 1))

    def _task(self, stage: str) -> Task:
        return next(t for t in self._progress.tasks if t.id == self._tasks[stage])

    def _log(self, stage: str, *, final: bool = False) -> None:
        """`Encoding chunks: 1,200/27,000 (4%), 35.1/s, 34.2s, ETA 12m 35s`; the last one ends
        in `, done`."""
        task = self._task(stage)
        elapsed = task.elapsed or 0.0
        parts = []
        if task.total:
            parts.append(f"{task.completed:,.0f}/{task.total:,.0f} ({task.percentage:.0f}%)")
        elif task.completed:  # stages that count nothing (writing, building): only their time
            parts.append(f"{task.completed:,.0f}")
        # While running, Rich's recent rate; at the end, the stage's average.
        speed = task.completed / elapsed if final and elapsed else task.speed
        if speed:
            parts.append(f"{speed:,.1f}/s")
        parts.append(f"{elapsed:.1f}s")
        if final:
            parts.append("done")
        elif speed and task.total:
            parts.append(f"ETA {_duration((task.total - task.completed) / speed)}")
        self._console.print(
            f"{task.description}: {', '.join(parts)}", markup=False, highlight=False,
            soft_wrap=True,
        )
        self._last_line = time.monotonic()


def _duration(seconds: float) -> str:
    """``1h 02m``, ``12m 35s`` or ``40s``: as precise as a guess deserves."""
    whole = round(seconds)
    if whole >= 3600:
        return f"{whole // 3600}h {whole % 3600 // 60:02d}m"
    if whole >= 60:
        return f"{whole // 60}m {whole % 60:02d}s"
    return f"{whole}s"


# The stages `embedstore plt train` adds to indexing's; "chunk" has its label already.
_TRAIN_STAGE_LABELS = {"teacher": "Teacher vectors", "train": "Training"}


class TrainingProgress(RichProgress):
    """RichProgress whose training bar also shows the running loss."""

    def start(self, stage: str, total: int | None = None) -> None:
        super().start(stage, total)
        if stage in _TRAIN_STAGE_LABELS:
            self._progress.update(self._tasks[stage], description=_TRAIN_STAGE_LABELS[stage])

    def show_loss(self, loss: float) -> None:
        self._progress.update(self._tasks["train"], description=f"Training (loss {loss:.4f})")
