"""Settling many disputes at once and taking such decisions back: the rules a bulk action
keeps whichever interface asks (the review queue's bulk bar and its Undo toast today).

Each fact is settled in its own transaction, through the one-fact service (resolve_fact,
undo_resolution): one that fails (settled by someone else first, not found, past its undo
window) is reported and the others stand. Two values of one slot are never accepted
together, and Undo is offered only while the window of the earliest decision is open.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from django.db.models import Min
from django.utils import timezone

from dewee.errors import Conflict, NotFound
from facts.models import Fact
from facts.queries import get_fact
from facts.services.reopening import undo_resolution, undo_window
from facts.services.resolving import Resolution, resolve_fact
from facts.slots import Slot
from tenancy.access import Access
from tenancy.models import AuditAction, AuditEvent


@dataclass(frozen=True)
class Settled:
    done: list[Fact] = field(default_factory=list)
    # Why each fact left unsettled was, in words for the person who asked.
    failed: list[str] = field(default_factory=list)


def one_accept_per_slot(facts: list[Fact], ids: list[int]) -> tuple[list[int], list[str]]:
    """Of the disputes ``ids`` to accept together (``facts`` are those of them the viewer
    may see), the ids alone in their slot, in their order, and why the others are left:
    two values of one slot cannot both become current, and accepting them one after the
    other would leave whichever came last, so none of them is accepted and the person picks
    one. Ids not among ``facts`` are kept, for the accept itself to report."""
    by_slot: dict[Slot, list[Fact]] = {}
    for fact in facts:
        by_slot.setdefault(fact.slot, []).append(fact)
    shared = {f.pk for group in by_slot.values() if len(group) > 1 for f in group}
    reasons = [
        f"{len(group)} values of {group[0].subject}.{group[0].predicate} were selected "
        f"({', '.join(repr(f.value) for f in group)}): accept one of them."
        for group in by_slot.values()
        if len(group) > 1
    ]
    return [i for i in ids if i not in shared], reasons


def _settle_each(access: Access, ids: list[int], settle: Callable[[Fact], Fact]) -> Settled:
    done, failed = [], []
    for fact_id in ids:
        try:
            done.append(settle(get_fact(access=access, fact_id=fact_id)))
        except (Conflict, NotFound) as exc:
            failed.append(exc.message)
    return Settled(done=done, failed=failed)


def resolve_facts(*, access: Access, fact_ids: list[int], action: str, reason: str = "") -> Settled:
    """Accept or reject the disputes ``fact_ids`` that ``access`` may act on, in order, as
    ``access.actor``; accepting leaves out every pair of values of one slot (see
    one_accept_per_slot)."""
    ids, refused = list(fact_ids), list[str]()
    if action == Resolution.ACCEPT:
        chosen = list(Fact.objects.filter(pk__in=ids, agent__in=access.agents()))
        ids, refused = one_accept_per_slot(chosen, ids)
    settled = _settle_each(
        access,
        ids,
        lambda fact: resolve_fact(fact=fact, action=action, reason=reason, actor=access.actor),
    )
    return Settled(done=settled.done, failed=refused + settled.failed)


def undo_resolutions(*, access: Access, fact_ids: list[int]) -> Settled:
    """Take back ``access.actor``'s own accepts and rejects of ``fact_ids``, the newest
    (last listed) first, each within its undo window."""
    return _settle_each(
        access,
        list(reversed(fact_ids)),
        lambda fact: undo_resolution(fact=fact, actor=access.actor),
    )


def undo_seconds_left(*, actor: str, fact_ids: list[int]) -> int:
    """The whole seconds left to undo ``actor``'s decisions on ``fact_ids``, counted from
    the earliest of them; 0 when none is known or the window has passed. A read: Undo
    itself decides again."""
    if not fact_ids:
        return 0
    first = AuditEvent.objects.filter(
        actor=actor,
        action=AuditAction.FACT_RESOLVE,
        target_type="fact",
        target_id__in=[str(i) for i in fact_ids],
    ).aggregate(at=Min("created_at"))["at"]
    if first is None:
        return 0
    left = (undo_window() - (timezone.now() - first)).total_seconds()
    return int(left) if left >= 1 else 0
