"""What the memory app tells other apps, without knowing them.

``memories_stored`` is sent once a batch of memories is stored and committed, with the
agent, the memories and how facts should be learned from them (``learning``). The facts app
listens (facts.learning): memory never imports the apps that build on it.
"""

from enum import StrEnum

from django.dispatch import Signal


class Learning(StrEnum):
    """How facts are learned from newly stored memories."""

    SYNC = "sync"  # in the request, before it answers
    ASYNC = "async"  # by the worker, after the request
    OFF = "off"  # not at all (imports, merges)


# Sent with sender=Agent and the keyword arguments agent, memories and learning.
memories_stored = Signal()
