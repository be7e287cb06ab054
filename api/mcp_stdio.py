"""The stdio transport's streams, with the end of stdin held back until every request read
has its answer written.

The SDK ends a stdio session as soon as stdin ends, and cancels the calls still running:
`printf '<initialize>\\n<tools/call>\\n' | embedstore mcp` answered the first and never the
second. A script that writes its requests and closes stdin is a fair client, so the end
of input waits for the answers (at most ``DRAIN_SECONDS``), as a shell waits for a pipe.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

import anyio
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCRequest, JSONRPCResponse

if TYPE_CHECKING:  # the SDK's stream protocols, which it exports nowhere public
    from mcp.shared._stream_protocols import ReadStream, WriteStream

# The longest a call may still run once stdin has ended; its answer is lost past it.
DRAIN_SECONDS = 600.0


class _Answers:
    """The ids of the requests read and not yet answered."""

    def __init__(self) -> None:
        self.pending: set[str | int] = set()
        self.changed = anyio.Event()

    def read(self, item: SessionMessage | Exception) -> None:
        if isinstance(item, SessionMessage) and isinstance(item.message, JSONRPCRequest):
            self.pending.add(item.message.id)

    def written(self, item: SessionMessage) -> None:
        if isinstance(item.message, JSONRPCResponse | JSONRPCError):
            self.pending.discard(item.message.id)
            self.changed.set()

    async def all_written(self) -> None:
        with anyio.move_on_after(DRAIN_SECONDS):
            while self.pending:
                await self.changed.wait()
                self.changed = anyio.Event()


class _Closing:
    """A stream wrapped around another: closing it closes that one (``close``)."""

    def __init__(self, close: Callable[[], Awaitable[None]]) -> None:
        self._close = close

    async def aclose(self) -> None:
        await self._close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()


class _Reading(_Closing):
    """stdin's messages; its end comes once every request read is answered."""

    def __init__(self, inner: ReadStream[SessionMessage | Exception], answers: _Answers) -> None:
        super().__init__(inner.aclose)
        self._inner, self._answers = inner, answers

    @property
    def last_context(self) -> Any:  # the SDK reads a context-aware stream's sender context
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        try:
            item = await self._inner.receive()
        except anyio.EndOfStream:
            await self._answers.all_written()
            raise
        self._answers.read(item)
        return item

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


class _Writing(_Closing):
    """stdout's messages; each answer written is one less to wait for."""

    def __init__(self, inner: WriteStream[SessionMessage], answers: _Answers) -> None:
        super().__init__(inner.aclose)
        self._inner, self._answers = inner, answers

    async def send(self, item: SessionMessage, /) -> None:
        await self._inner.send(item)
        self._answers.written(item)


def answered_before_end(
    read_stream: ReadStream[SessionMessage | Exception], write_stream: WriteStream[SessionMessage]
) -> tuple[_Reading, _Writing]:
    """``read_stream`` and ``write_stream``, the first ending only once the second has
    carried the answer to every request it gave."""
    answers = _Answers()
    return _Reading(read_stream, answers), _Writing(write_stream, answers)
