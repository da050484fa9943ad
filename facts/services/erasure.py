"""Erasing facts for good: every fact about one user or one subject (forget), or the facts
learned only from memories being deleted. Nothing erased can be read back; a forget leaves
a receipt of what it erased, by kind, and nothing of the facts themselves."""

from dataclasses import dataclass
from typing import Literal

from django.db import transaction
from django.db.models import Count, Exists, OuterRef, QuerySet

from dewee.errors import InvalidInput
from facts.models import KEY_MAX_CHARS, Fact, FactQuerySet, FactSource, Status
from tenancy.audit import record_event
from tenancy.models import Agent, AuditAction, AuditEvent, ErasureReceipt
from tenancy.validation import clean_text


@dataclass(frozen=True)
class ForgetScope:
    """Whose facts a forget erases: every fact about one user, or about one subject."""

    kind: Literal["user", "subject"]
    value: str

    def as_dict(self) -> dict[str, str]:
        """As the receipt records it: ``{"user": ...}`` or ``{"subject": ...}``."""
        return {self.kind: self.value}

    def facts(self, agent: Agent) -> FactQuerySet:
        if self.kind == "user":
            return Fact.objects.filter(agent=agent, user_ref=self.value)
        return Fact.objects.filter(agent=agent, subject=self.value)

    def events(self, agent: Agent) -> QuerySet[AuditEvent]:
        """The audit events about these facts (their details hold ``forget_keys``)."""
        lookup = {f"details__{self.kind}": self.value}
        return AuditEvent.objects.filter(agent=agent, target_type="fact", **lookup)


def forget_keys(fact: Fact) -> dict[str, str]:
    """What an audit event about ``fact`` records of it, so that forgetting the fact's user
    or subject erases the event too."""
    return {"user": fact.user_ref, "subject": fact.subject}


def forget_scope(*, user: str | None = None, subject: str | None = None) -> ForgetScope:
    """The scope of a forget: exactly one of ``user`` or ``subject``, whichever interface
    asks."""
    if (user is None) == (subject is None):
        raise InvalidInput("scope", "give exactly one of user or subject")
    if user is not None:
        return ForgetScope("user", clean_text(user, field="user", max_chars=KEY_MAX_CHARS))
    return ForgetScope("subject", clean_text(subject, field="subject", max_chars=KEY_MAX_CHARS))


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


@transaction.atomic
def forget_facts(*, agent: Agent, scope: ForgetScope, actor: str) -> ErasureReceipt:
    """Erase for good every fact of ``agent`` in ``scope``: current, history, disputed,
    rejected and deleted, with their sources and the audit events about them. Only the
    receipt (scope, counts, who, when) remains."""
    counts = count_forgettable(agent=agent, scope=scope)
    facts = scope.facts(agent)
    FactSource.objects.filter(fact__in=facts).delete()
    facts.delete()
    scope.events(agent).delete()
    receipt = ErasureReceipt.objects.create(
        workspace_id=agent.workspace_id,
        agent=agent,
        agent_ref=agent.agent_id,
        scope=scope.as_dict(),
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


def erase_facts_learned_only_from(*, memory_ids: list[int]) -> int:
    """For memories about to be deleted: erase the facts whose every source is one of
    them (with their sources and audit events), and drop these memories' sources from
    facts that have other evidence. Returns how many facts were erased. Runs inside the
    caller's transaction."""
    touched = FactSource.objects.filter(memory_id__in=memory_ids).values("fact_id")
    other_evidence = FactSource.objects.filter(fact_id=OuterRef("pk")).exclude(
        memory_id__in=memory_ids
    )
    only_from = Fact.objects.filter(pk__in=touched).exclude(Exists(other_evidence))
    erased_ids = [str(pk) for pk in only_from.values_list("pk", flat=True)]
    if erased_ids:
        AuditEvent.objects.filter(target_type="fact", target_id__in=erased_ids).delete()
        Fact.objects.filter(pk__in=[int(pk) for pk in erased_ids]).delete()
    FactSource.objects.filter(memory_id__in=memory_ids).delete()
    return len(erased_ids)
