"""What other apps learned from a memory, shown beside it (on its page, and in the answer to
a store that learned in the request).

Memory does not know those apps: each registers a reader when it is ready (the facts app
registers the facts that cite a memory as a source, facts.apps), and ``learned_from`` asks
every reader. With none registered a memory has learned nothing.
"""

from collections.abc import Callable
from typing import Any

from memory.models import Memory

LearnedReader = Callable[[Memory], list[dict[str, Any]]]

_readers: dict[str, LearnedReader] = {}


def read_learned_with(name: str, reader: LearnedReader) -> None:
    """Register ``reader`` under ``name`` (registering a name again replaces its reader)."""
    _readers[name] = reader


def learned_from(memory: Memory) -> list[dict[str, Any]]:
    """What every registered reader learned from ``memory``, in registration order."""
    return [item for reader in _readers.values() for item in reader(memory)]
