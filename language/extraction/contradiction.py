"""Whether two texts contradict each other: what the AutoPilot dedup asks before it merges
two memories that read almost alike ("The cache should not be restarted" and "The cache
should be restarted" embed close together, yet say opposite things)."""

from datetime import datetime

from language.extraction import traps
from language.extraction.extractor import extract
from language.text import normalise_value


def _negations(text: str) -> int:
    return len(traps.NEGATION.findall(text))


def _slots(text: str, now: datetime | None) -> dict[tuple[str, str], str | None]:
    return {
        (s.predicate, s.qualifier): (normalise_value(s.value) if s.value is not None else None)
        for s in extract(text, now=now)
    }


def contradicts(first: str, second: str, *, now: datetime | None = None) -> bool:
    """True when one text negates what the other affirms (an odd number of negations
    between them), or when both speak of one slot and disagree on its value (or one ends
    it). Meant for texts already known to be near duplicates: on unrelated texts a
    difference in negations says nothing."""
    if _negations(first) % 2 != _negations(second) % 2:
        return True
    first_slots, second_slots = _slots(first, now), _slots(second, now)
    return any(
        first_slots[slot] != second_slots[slot] for slot in first_slots.keys() & second_slots
    )
