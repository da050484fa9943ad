"""What the memory app tells other apps, without knowing them.

``memories_stored`` is sent once a batch of memories is stored and committed, with the
agent, the memories and how facts should be learned from them (``learning``).
``memories_erasing`` is sent inside the transaction that deletes memories, before the rows
go, with their ids and the actor; each receiver returns how many of its own records went
with them (the facts learned only from them), which the erasure's counts report.
``memories_absorbed`` is sent inside a merge's transaction before the absorbed memories go,
with their ids and the survivor's: what cites them is to cite the survivor instead.
The facts app listens to all three (facts.apps): memory never imports the apps that build
on it.
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
# Sent with sender=Agent and the keyword arguments memory_ids and actor; receivers return the
# number of records erased with them (summed under "facts" in the erasure's counts).
memories_erasing = Signal()
# Sent with sender=Agent and the keyword arguments from_ids and to_id.
memories_absorbed = Signal()
