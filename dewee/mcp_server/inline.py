"""Run the SDK's coroutines in the request's own thread, and the tools' database work there
too, between turns of the event loop.

The SDK is asynchronous; Dewee's services are synchronous and use the thread's database
connection. asgiref's async_to_sync runs the loop on a helper thread and hands each tool
call back to the request thread: about four thread crossings a request, each waiting for a
core on a busy machine. Here the request thread drives a loop of its own (one per thread,
kept) with run_until_complete, and a tool's call (``run_sync``) parks its function until
the loop pauses; the function then runs with no loop running in the thread (so Django's
async-safety check holds, truthfully) and its result goes back into the loop. No other
thread is involved. Outside such a drive (stdio, a plain asyncio program), ``run_sync``
is asgiref's thread-sensitive sync_to_async.
"""

import asyncio
import contextvars
import threading
from collections.abc import Callable, Coroutine
from typing import Any

from asgiref.sync import sync_to_async


class _Parked:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.calls: list[tuple[Callable[[], Any], asyncio.Future[Any]]] = []
        self.arrived = asyncio.Event()

    async def call[R](self, fn: Callable[[], R]) -> R:
        future: asyncio.Future[R] = self.loop.create_future()
        self.calls.append((fn, future))
        self.arrived.set()
        return await future

    def run_parked(self) -> None:
        calls, self.calls = self.calls, []
        self.arrived.clear()
        for fn, future in calls:
            if future.cancelled():
                continue
            try:
                future.set_result(fn())
            except Exception as exc:  # handed to the coroutine that asked, as raised
                future.set_exception(exc)


_parked: contextvars.ContextVar[_Parked | None] = contextvars.ContextVar(
    "dewee_mcp_parked", default=None
)
_local = threading.local()


def _thread_loop() -> asyncio.AbstractEventLoop:
    loop = getattr(_local, "loop", None)
    if loop is None or loop.is_closed():
        loop = _local.loop = asyncio.new_event_loop()
    return loop


def drive[T](coroutine: Coroutine[Any, Any, T]) -> T:
    """The coroutine's result, run to its end in this thread."""
    loop = _thread_loop()
    parked = _Parked(loop)
    context = contextvars.copy_context()
    context.run(_parked.set, parked)
    task = loop.create_task(coroutine, context=context)
    while True:
        arrival = loop.create_task(parked.arrived.wait())
        loop.run_until_complete(asyncio.wait({task, arrival}, return_when=asyncio.FIRST_COMPLETED))
        if not arrival.done():
            arrival.cancel()
            loop.run_until_complete(asyncio.gather(arrival, return_exceptions=True))
        parked.run_parked()
        if task.done() and not parked.calls:
            return task.result()


async def run_sync[T](fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in the thread that owns the database connection."""
    parked = _parked.get()
    if parked is not None:
        return await parked.call(lambda: fn(*args))
    return await sync_to_async(fn, thread_sensitive=True)(*args)
