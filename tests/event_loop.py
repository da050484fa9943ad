"""Async code run from a test, in a thread of its own.

Once a browser test has run in a test worker, Playwright's sync API keeps an event loop
running in that worker's main thread for the rest of the session, and ``asyncio.run`` and
``anyio.run`` refuse to start a second loop in a thread that has one. A fresh thread has none,
so tests that drive the async client, the adapters or the MCP SDK run their loop there,
whatever ran before them in the same worker."""

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any


def in_own_thread[T](function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` called in a new thread; its result, or its exception raised here."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="test-event-loop") as pool:
        return pool.submit(function, *args).result()
