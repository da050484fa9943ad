"""django-q2 tasks of the facts app: each takes ids, never objects, and calls one function."""

from facts.learning import learn_from_memories


def learn_facts(memory_ids: list[int]) -> dict[str, int]:
    """Learn facts from memories just stored (see facts.learning)."""
    return learn_from_memories(memory_ids)
