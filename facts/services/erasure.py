"""Erasing facts for good: every fact about one user or one subject, or one subject of one
user (forget), or the facts learned only from memories being deleted (a slot whose current
value goes that way falls back on the value it superseded). Nothing erased can be read back;
a forget leaves a receipt of what it erased, by kind, and nothing of the facts themselves."""

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import Count, Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from dewee.errors import InvalidInput
from facts.models import KEY_MAX_CHARS, USER_SUBJECT, Change, Fact, FactQuerySet, FactSource, Status
from facts.services.transitions import lock_slot, make_current
from memory.quotas import lock_quotas, release_quota_usage
from tenancy.audit import record_event
from tenancy.models import Agent, AuditAction, AuditEvent, ErasureReceipt
from tenancy.receipts import hashed_scope
from tenancy.validation import clean_text, nfc_user, user_forms


@dataclass(frozen=True)
class ForgetScope:
    """Which facts a forget erases: every fact about one user (``user``), every fact about
    one subject whoever it concerns (``subject``), or one subject of one user only (both).
    At least one is set (:func:`forget_scope`)."""

    user: str | None = None
    subject: str | None = None

    @property
    def kind(self) -> str:
        """As the forget's audit event records it: "user", "subject" or "user_subject"."""
        return "_".join(key for key, value in self._keys() if value is not None)

    def _keys(self) -> tuple[tuple[str, str | None], ...]:
        return (("user", self.user), ("subject", self.subject))

    def as_dict(self) -> dict[str, str]:
        """As the receipt records it: ``{"user": ...}``, ``{"subject": ...}`` or both."""
        return {key: value for key, value in self._keys() if value is not None}

    def describe(self) -> str:
        """ "user 'u1'", "subject 'acme'", "subject 'user' of user 'u1'"."""
        if self.subject is None:
            return f"user {self.user!r}"
        if self.user is None:
            return f"subject {self.subject!r}"
        return f"subject {self.subject!r} of user {self.user!r}"

    def facts(self, agent: Agent) -> FactQuerySet:
        # Each key in both of its stored forms (tenancy.validation.user_forms): a user id
        # stored before ids were normalised to NFC may be in NFD.
        facts = Fact.objects.filter(agent=agent)
        if self.user is not None:
            facts = facts.filter(user_ref__in=user_forms(self.user))
        if self.subject is not None:
            facts = facts.filter(subject__in=user_forms(self.subject))
        return facts

    def events(self, agent: Agent) -> QuerySet[AuditEvent]:
        """The audit events about these facts (their details hold ``forget_keys``)."""
        events = AuditEvent.objects.filter(agent=agent, target_type="fact")
        for key, value in self.as_dict().items():
            match = Q()
            for form in user_forms(value):
                match |= Q(**{f"details__{key}": form})
            events = events.filter(match)
        return events


def forget_keys(fact: Fact) -> dict[str, str]:
    """What an audit event about ``fact`` records of it, so that forgetting the fact's user
    or subject erases the event too."""
    return {"user": fact.user_ref, "subject": fact.subject}


def forget_scope(*, user: str | None = None, subject: str | None = None) -> ForgetScope:
    """The scope of a forget, whichever interface asks: a ``user``, a ``subject``, or both
    (that subject of that user only)."""
    if user is None and subject is None:
        raise InvalidInput("scope", "give a user, a subject, or both")
    return ForgetScope(
        user=None
        if user is None
        else nfc_user(clean_text(user, field="user", max_chars=KEY_MAX_CHARS)),
        subject=None
        if subject is None
        else clean_text(subject, field="subject", max_chars=KEY_MAX_CHARS),
    )


def subject_scope_of(fact: Fact) -> ForgetScope | None:
    """What forgetting ``fact``'s subject erases. A named subject ("acme-corp"): its facts
    about every user. The placeholder USER_SUBJECT stands for each fact's own user, so
    "every fact with subject user" would be every user's facts about themselves: it is
    limited to ``fact``'s user, and a fact without a user offers nothing."""
    if fact.subject != USER_SUBJECT:
        return ForgetScope(subject=fact.subject)
    if not fact.user_ref:
        return None
    return ForgetScope(user=fact.user_ref, subject=fact.subject)


# How many of the users a forget covers are named when it is offered or previewed.
USERS_NAMED = 10


@dataclass(frozen=True)
class ForgetCoverage:
    """Whom a forget's facts are about, to name before anything is erased: ``user_count``
    distinct users (the first USERS_NAMED of them, in order, in ``users``) and
    ``without_user`` facts about no particular user. Never stored: a receipt keeps counts
    only."""

    facts: int
    users: list[str]
    user_count: int
    without_user: int


def forget_coverage(*, agent: Agent, scope: ForgetScope) -> ForgetCoverage:
    by_user = dict(
        scope.facts(agent).values_list("user_ref").annotate(n=Count("id")).order_by("user_ref")
    )
    without_user = by_user.pop("", 0)
    return ForgetCoverage(
        facts=sum(by_user.values()) + without_user,
        users=list(by_user)[:USERS_NAMED],
        user_count=len(by_user),
        without_user=without_user,
    )


def count_forgettable(*, agent: Agent, scope: ForgetScope) -> dict:
    """What ``forget_facts`` would erase, by kind, without erasing anything."""
    facts = scope.facts(agent)
    by_status = dict(facts.values_list("status").annotate(n=Count("id")).order_by())
    counts = {status: by_status.get(status, 0) for status in Status.values}
    return {
        "facts": sum(counts.values()),
        **counts,
        "sources": FactSource.objects.filter(fact__in=facts).count(),
        "audit_events": scope.events(agent).count(),
    }


def erase_facts_in_scope(*, agent: Agent, scope: ForgetScope) -> dict:
    """Erase every fact of ``agent`` in ``scope`` (every status) with its sources and the
    audit events about it; the counts of what went (count_forgettable). No receipt: the
    caller records one (forget_facts, or a person's erasure for all its parts). Runs in the
    caller's transaction."""
    counts = count_forgettable(agent=agent, scope=scope)
    facts = scope.facts(agent)
    pks = list(facts.values_list("pk", flat=True))
    fact_ids = [str(pk) for pk in pks]
    FactSource.objects.filter(fact__in=facts).delete()
    release_quota_usage(agent=agent, model=Fact, ids=pks)
    facts.delete()
    scope.events(agent).delete()
    # Events that name a fact by id only (older ones, without forget_keys in their details).
    AuditEvent.objects.filter(agent=agent, target_type="fact", target_id__in=fact_ids).delete()
    return counts


@transaction.atomic
def forget_facts(*, agent: Agent, scope: ForgetScope, actor: str) -> ErasureReceipt:
    """Erase for good every fact of ``agent`` in ``scope``: current, history, disputed,
    rejected and deleted, with their sources and the audit events about them. Only the
    receipt (scope, counts, who, when) remains; it names the user by an HMAC of their id
    (tenancy.receipts), never the id itself."""
    lock_quotas(agent)  # first, as a store takes it: the facts it counts go
    counts = erase_facts_in_scope(agent=agent, scope=scope)
    receipt = ErasureReceipt.objects.create(
        workspace_id=agent.workspace_id,
        agent=agent,
        agent_ref=agent.agent_id,
        scope=hashed_scope(scope.as_dict()),
        counts=counts,
        actor=actor,
    )
    record_event(
        workspace_id=agent.workspace_id,
        agent=agent,
        actor=actor,
        action=AuditAction.FACTS_FORGET,
        target_type="erasure",
        target_id=str(receipt.pk),
        details={"scope_kind": scope.kind, "counts": counts},
    )
    return receipt


def erase_facts_learned_only_from(*, memory_ids: list[int], actor: str) -> int:
    """For memories about to be deleted: erase the facts whose every source is one of
    them (with their sources and audit events), and drop these memories' sources from
    facts that have other evidence. Returns how many facts were erased. Runs inside the
    caller's transaction.

    A slot whose current value is erased falls back on the value that value superseded
    (:func:`_reinstate_predecessor`): the newest fact of the slot that stopped being
    believed by the time the erased one started, when it is history, still has a source
    and still holds in the world. It is believed again from now (``believed_from`` and
    ``restored_at``), audited as fact.restore with cause ``replacement_erased``; a value
    that was ended, deleted or erased too leaves the slot empty. Nothing changes in a slot
    whose erased facts were not its current value."""
    touched = FactSource.objects.filter(memory_id__in=memory_ids).values("fact_id")
    other_evidence = FactSource.objects.filter(fact_id=OuterRef("pk")).exclude(
        memory_id__in=memory_ids
    )
    only_from = Fact.objects.filter(pk__in=touched).exclude(Exists(other_evidence))
    # The slots losing their current value, locked (in one order, against deadlocks) before
    # they are read again, so a concurrent assert is seen or waits.
    slots = {fact.slot for fact in only_from.current()}
    for slot in sorted(slots, key=lambda s: s.lock_key()):
        lock_slot(slot)
    erased = list(only_from)
    erased_ids = [fact.pk for fact in erased]
    fallbacks = [
        (fact, _predecessor(fact, erased_ids)) for fact in erased if fact.status == Status.CURRENT
    ]
    if erased_ids:
        AuditEvent.objects.filter(
            target_type="fact", target_id__in=[str(pk) for pk in erased_ids]
        ).delete()
        for agent in Agent.objects.filter(pk__in={fact.agent_id for fact in erased}):
            mine = [fact.pk for fact in erased if fact.agent_id == agent.pk]
            release_quota_usage(agent=agent, model=Fact, ids=mine)
        Fact.objects.filter(pk__in=erased_ids).delete()
    FactSource.objects.filter(memory_id__in=memory_ids).delete()
    now = timezone.now()
    for gone, predecessor in fallbacks:
        if predecessor is not None:
            _reinstate_predecessor(
                predecessor, successor=gone, memory_ids=memory_ids, actor=actor, now=now
            )
    return len(erased_ids)


def _predecessor(fact: Fact, erased_ids: list[int]) -> Fact | None:
    """The value ``fact`` (current, about to be erased) took the place of: the fact of its
    slot, other than those erased with it, that stopped being believed last, no later than
    ``fact`` started. A value erased with it is skipped (the one before it counts), one
    that was ended or deleted since is still the one found (and is not reinstated)."""
    if fact.believed_from is None:
        return None
    return (
        Fact.objects.in_slot(fact.slot)
        .filter(believed_until__lte=fact.believed_from)
        .exclude(pk__in=erased_ids)
        .order_by("-believed_until", "-id")
        .first()
    )


def _reinstate_predecessor(
    fact: Fact, *, successor: Fact, memory_ids: list[int], actor: str, now: datetime
) -> None:
    """``fact`` is current again, its successor erased with ``memory_ids``, unless the
    slot has a current value already, ``fact`` is not history (deleted, disputed again) or
    it no longer holds in the world (ended: its ``valid_to`` has passed). An end that only
    handed it over to the erased value (``valid_to`` = the successor's ``valid_from``,
    facts.services.transitions.retire) goes with it."""
    if fact.status != Status.HISTORY:
        return
    if Fact.objects.in_slot(fact.slot).current().exists():
        return
    handed_over = fact.valid_to is not None and fact.valid_to == successor.valid_from
    if not handed_over and fact.valid_to is not None and fact.valid_to <= now:
        return
    if handed_over:
        fact.valid_to = None
        fact.save(update_fields=["valid_to"])
    make_current(
        fact,
        change=Change.REPLACED_BY_ERASED,
        actor=actor,
        reason="the value that replaced it was erased",
        now=now,
    )
    fact.restored_at = now
    fact.save(update_fields=["restored_at"])
    record_event(
        workspace_id=fact.agent.workspace_id,
        agent=fact.agent,
        actor=actor,
        action=AuditAction.FACT_RESTORE,
        target_type="fact",
        target_id=str(fact.pk),
        details={
            "reason": "the value that replaced it was learned only from deleted memories",
            "outcome": "current",
            "cause": "replacement_erased",
            "memories": sorted(memory_ids),
            **forget_keys(fact),
        },
    )


def move_sources_to_survivor(*, from_ids: list[int], to_id: int) -> None:
    """A merge's absorbed memories are about to go: their facts' provenance points at the
    survivor, so deleting them erases no fact. Runs in the caller's transaction."""
    sources = FactSource.objects.filter(memory_id__in=from_ids)
    # The reference a source was given by default names the memory too.
    sources.filter(reference__in=[f"memory:{pk}" for pk in from_ids]).update(
        reference=f"memory:{to_id}"
    )
    sources.update(memory_id=to_id)
