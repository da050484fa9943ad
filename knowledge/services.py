"""Erasing a person: everything a workspace holds about one user id, across its agents
(what knowledge.people finds), in one transaction, leaving a receipt with counts and an HMAC
of the id (tenancy.receipts), never the id itself."""

from dataclasses import dataclass

from django.contrib.admin.models import LogEntry
from django.db import transaction

from facts.models import USER_SUBJECT
from facts.services import erase_facts_in_scope, forget_scope
from knowledge.people import PersonData, find_person
from memory.derived import chunks
from memory.models import Session
from memory.quotas import lock_quotas, release_quota_usage
from memory.services.erasure import erase_memories
from memory.services.graph import lock_agent_graph
from tenancy.audit import record_event
from tenancy.models import Agent, AuditAction, AuditEvent, ErasureReceipt, Workspace
from tenancy.receipts import USER_DIGEST_KEY, user_digest

# Why the memories went, as their deletion's audit event records it (never the person).
ERASURE_REASON = "person erased"


@dataclass(frozen=True)
class PersonErased:
    receipt: ErasureReceipt
    data: PersonData


@transaction.atomic
def erase_person(*, workspace: Workspace, user: str, actor: str) -> PersonErased:
    """Erase for good everything ``workspace`` holds about ``user`` (knowledge.people), in
    every agent of it: their facts with sources, their sessions with summaries and
    metadata, their memories (through erase_memories, so facts learned only from them,
    entity tags, feedback and graph edges go too, and entities nobody else mentions), the
    memories made from those, the summary of any other session made from their memories and
    the metadata of any that quotes them, the audit events about or quoting them and the
    admin's log entries about their facts, memories and sessions. Another
    workspace's same user id is untouched.

    One transaction: on any failure nothing is erased. What remains is a receipt (counts,
    who, when, and ``user_hmac``: HMAC-SHA256 of the id with a key derived from the server
    secret) and an audit event pointing at it."""
    data = find_person(workspace=workspace, user=user)
    user = data.user
    # Collected first: deleting memories records events of its own, which quote no one.
    for ids in chunks(data.event_ids):
        AuditEvent.objects.filter(pk__in=ids).delete()
    for ids in chunks(data.admin_log_ids):
        LogEntry.objects.filter(pk__in=ids).delete()
    for part in data.parts:
        if part.is_empty():
            continue
        agent = part.agent
        # The lock every delete of memories takes before their rows (erase_memories takes it
        # again), here before the facts' rows too: a merge of the agent holds it while it
        # moves its memories' fact sources, which could be among these. The quotas' lock
        # before it, as a store and a merge take it.
        lock_quotas(agent)
        lock_agent_graph(agent, shared=True)
        erase_facts_about_person(agent=agent, user=user)
        for ids in chunks(part.memory_ids):
            erase_memories(agent=agent, memory_ids=ids, actor=actor, reason=ERASURE_REASON)
        for ids in chunks(part.session_ids):
            release_quota_usage(agent=agent, model=Session, ids=ids)
            Session.objects.filter(pk__in=ids).delete()
        Session.objects.filter(pk__in=list(part.summary_session_ids)).update(summary="")
        Session.objects.filter(pk__in=list(part.metadata_session_ids)).update(metadata={})
    counts = data.totals()
    receipt = ErasureReceipt.objects.create(
        workspace=workspace,
        agent=None,
        agent_ref="",
        scope={USER_DIGEST_KEY: user_digest(user)},
        counts=counts,
        actor=actor,
    )
    record_event(
        workspace_id=workspace.pk,
        agent=None,
        actor=actor,
        action=AuditAction.PERSON_FORGET,
        target_type="erasure",
        target_id=str(receipt.pk),
        details={"scope_kind": "person", "counts": counts},
    )
    return PersonErased(receipt=receipt, data=data)


def erase_facts_about_person(*, agent: Agent, user: str) -> None:
    """A person's erasure's share of ``agent``'s facts (knowledge.people.person_facts): those
    of ``user`` and those whose subject is their id, every status, with sources and audit
    events. Runs in the caller's transaction."""
    erase_facts_in_scope(agent=agent, scope=forget_scope(user=user))
    if user != USER_SUBJECT:
        erase_facts_in_scope(agent=agent, scope=forget_scope(subject=user))
