"""The review shared by a team: a dispute assigned to a person who may settle it, a dispute
snoozed until a date, and a comment thread on any fact."""

from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from dewee.errors import InvalidInput
from facts.exceptions import FactNotDisputed
from facts.models import COMMENT_MAX_CHARS, DisputeTriage, Fact, FactComment, Status
from facts.services.erasure import forget_keys
from tenancy.audit import record_event
from tenancy.models import AuditAction, MemberRole, Workspace
from tenancy.validation import clean_text

# A snooze puts a dispute aside for at most this long: beyond, it is a decision to make.
SNOOZE_MAX = timedelta(days=365)


def reviewers(workspace: Workspace) -> QuerySet[User]:
    """Who may be given a dispute of ``workspace``: the people who may settle it (active
    staff operators and the workspace's managers), by name."""
    users = User.objects.filter(is_active=True)
    return (
        users.filter(
            Q(is_staff=True)
            | Q(
                workspace_memberships__workspace=workspace,
                workspace_memberships__role=MemberRole.MANAGER,
            )
        )
        .distinct()
        .order_by("username")
    )


def _disputed(fact: Fact) -> Fact:
    fact = Fact.objects.select_for_update().select_related("agent").get(pk=fact.pk)
    if fact.status != Status.DISPUTED:
        raise FactNotDisputed(f"Fact {fact.pk} is {fact.status}: only a dispute waits for review")
    return fact


def _triage(fact: Fact) -> DisputeTriage:
    triage, _created = DisputeTriage.objects.select_for_update().get_or_create(
        fact=fact, agent=fact.agent, defaults={"updated_at": timezone.now()}
    )
    return triage


def _audit(fact: Fact, actor: str, action: AuditAction, details: dict[str, str]) -> None:
    record_event(
        workspace_id=fact.agent.workspace_id,
        agent=fact.agent,
        actor=actor,
        action=action,
        target_type="fact",
        target_id=str(fact.pk),
        details={**details, **forget_keys(fact)},
    )


@transaction.atomic
def assign_dispute(*, fact: Fact, assignee_id: int | None, actor: str) -> DisputeTriage:
    """Give the dispute ``fact`` to the person ``assignee_id`` (None: to nobody).

    Invariants: only a disputed fact (else ``conflict``); only someone who may settle it
    (a reviewer of its workspace, else ``invalid_input`` on ``assignee``); audited as
    ``fact.assign`` with the assignee's name."""
    fact = _disputed(fact)
    assignee = None
    if assignee_id is not None:
        assignee = reviewers(fact.agent.workspace).filter(pk=assignee_id).first()
        if assignee is None:
            raise InvalidInput("assignee", "is not a person who may settle this dispute")
    triage = _triage(fact)
    triage.assignee = assignee
    triage.updated_at, triage.updated_by = timezone.now(), actor
    triage.save(update_fields=["assignee", "updated_at", "updated_by"])
    name = assignee.get_username() if assignee is not None else ""
    _audit(fact, actor, AuditAction.FACT_ASSIGN, {"assignee": name})
    return triage


@transaction.atomic
def snooze_dispute(
    *, fact: Fact, until: datetime | None, actor: str, now: datetime | None = None
) -> DisputeTriage:
    """Put the dispute ``fact`` aside until ``until`` (None: back in the queue now). The
    queue hides a snoozed dispute until then; it is not settled, and it still counts.

    Invariants: only a disputed fact; ``until`` later than now and within SNOOZE_MAX
    (``invalid_input`` on ``until``); audited as ``fact.snooze``."""
    now = now or timezone.now()
    if until is not None and not now < until <= now + SNOOZE_MAX:
        raise InvalidInput("until", f"must be later than now and within {SNOOZE_MAX.days} days")
    fact = _disputed(fact)
    triage = _triage(fact)
    triage.snoozed_until = until
    triage.updated_at, triage.updated_by = now, actor
    triage.save(update_fields=["snoozed_until", "updated_at", "updated_by"])
    details = {"until": until.isoformat() if until is not None else ""}
    _audit(fact, actor, AuditAction.FACT_SNOOZE, details)
    return triage


def add_comment(*, fact: Fact, author: User, body: str) -> FactComment:
    """A comment by ``author`` at the end of ``fact``'s thread: its text trimmed, not empty,
    at most COMMENT_MAX_CHARS (else ``invalid_input`` on ``body``)."""
    body = clean_text(body, field="body", max_chars=COMMENT_MAX_CHARS)
    return FactComment.objects.create(
        fact=fact,
        agent=fact.agent,
        author=author,
        author_name=author.get_username(),
        body=body,
        created_at=timezone.now(),
    )
