"""The sentence encoder this process reads text with, for the readers here that need one
(the clause classifier). The local embedding model belongs to memory, which hands it over in
its ``ready()``; this package imports none of the apps, so it only ever asks for it here.
Until one is provided, or when the provider has none to give, the readers that need an
encoder stay off and the rules read alone."""

import threading
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np


class Encoder(Protocol):
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised float32 row per text, in the order given."""
        ...


_provider: Callable[[], Encoder | None] | None = None
_lock = threading.Lock()


def provide(provider: Callable[[], Encoder | None]) -> None:
    """Use ``provider`` to get the encoder: called at each use (the model behind it may be
    swapped by settings), it returns None when no model can be loaded."""
    global _provider
    with _lock:
        _provider = provider


def current() -> Encoder | None:
    """The encoder to read with now, or None when there is none."""
    provider = _provider
    return provider() if provider is not None else None
