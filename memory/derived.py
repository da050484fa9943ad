"""Memories made from other memories (summaries, merges), and reading ids in chunks: what
an erasure of memories needs to follow, whether it is a session's, a person's or a few
memories'."""

from collections.abc import Iterable, Iterator

from django.db.models import Q, TextField
from django.db.models.functions import Cast

from memory.models import Memory
from tenancy.models import Agent

# Ids per query: SQLite binds at most 32,766 parameters, and long IN lists plan badly.
CHUNK = 500


def chunks(ids: Iterable[int], size: int = CHUNK) -> Iterator[list[int]]:
    ordered = sorted(ids)
    for start in range(0, len(ordered), size):
        yield ordered[start : start + size]


def derived_memories(agent: Agent, ids: set[int], session_ids: set[int]) -> set[int]:
    """``ids`` and every memory made from them (summaries, merges), transitively."""
    cited = (
        Memory.objects.filter(agent=agent)
        .annotate(refs=Cast("source_refs", output_field=TextField()))
        .filter(Q(refs__contains='"memory:') | Q(refs__contains='"session:'))
    )
    refs = dict(cited.values_list("pk", "source_refs"))
    found = set(ids)
    wanted = {f"memory:{pk}" for pk in found} | {f"session:{pk}" for pk in session_ids}
    while True:
        new = {
            pk
            for pk, source_refs in refs.items()
            if pk not in found
            and isinstance(source_refs, list)
            and wanted.intersection(source_refs)
        }
        if not new:
            return found
        found |= new
        wanted |= {f"memory:{pk}" for pk in new}
