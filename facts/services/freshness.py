"""Keeping facts fresh: re-confirming a stale fact by hand, and the maintenance pass that
ends expired facts for the agents whose policy asks for it."""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from facts.exceptions import FactNotCurrent
from facts.models import Fact, Status, Verification
from facts.queries import fact_freshness
from facts.rules import END_EXPIRED_POLICY_KEY
from facts.services.ending import end_fact
from facts.services.erasure import forget_keys
from facts.services.transitions import lock_slot
from facts.staleness import reconfirmation_candidates
from tenancy.audit import record_event
from tenancy.models import Agent, AuditAction
from tenancy.validation import REASON_MAX_CHARS, clean_text

FRESHNESS_ACTOR = "system:freshness"
# Facts ended per transaction by the pass: short locks, and progress kept if it is killed.
FRESHNESS_BATCH = 200


@transaction.atomic
def reconfirm_fact(*, fact: Fact, actor: str, reason: str = "") -> Fact:
    """A person confirms that the current value of the slot still holds.

    Invariants: only a current fact (else ``fact_not_current``, nothing written); its
    freshness starts again (``last_confirmed_at`` = now) and its verification becomes
    confirmed; value, sources and history are unchanged. Audited as a ``fact.reconfirm``
    event (details action "reconfirm"), who and why: no decision on a dispute, so an undo
    within the window refuses it rather than taking it for one."""
    reason = clean_text(reason, field="reason", max_chars=REASON_MAX_CHARS, required=False)
    lock_slot(fact.slot)
    fact = Fact.objects.select_for_update().get(pk=fact.pk)
    if fact.status != Status.CURRENT:
        raise FactNotCurrent(f"Fact {fact.pk} is {fact.status}, not current")
    fact.last_confirmed_at = timezone.now()
    fact.verification = Verification.CONFIRMED
    fact.save(update_fields=["last_confirmed_at", "verification"])
    record_event(
        workspace_id=fact.agent.workspace_id,
        agent=fact.agent,
        actor=actor,
        action=AuditAction.FACT_RECONFIRM,
        target_type="fact",
        target_id=str(fact.pk),
        details={"action": "reconfirm", "reason": reason, **forget_keys(fact)},
    )
    return fact


@dataclass
class FreshnessPassResult:
    """What the pass did, in the shape every maintenance run records (that of
    memory.services.passes.PassResult, which the facts app does not import)."""

    touched: int = 0
    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    by_workspace: dict[int, dict[str, int]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(int))
    )

    def add(self, workspace_id: int, ended: int) -> None:
        self.touched += ended
        self.counts["ended"] += ended
        share = self.by_workspace[workspace_id]
        share["touched"] += ended
        share["ended"] += ended


def expired_facts(agent: Agent, *, now: datetime) -> list[Fact]:
    """The agent's current facts whose freshness at ``now`` is below the stale floor."""
    return [
        fact
        for fact in reconfirmation_candidates(agent, now=now)
        if fact_freshness(fact, now=now)["freshness_label"] == "expired"
    ]


def end_expired_facts_pass(
    *,
    agents: QuerySet[Agent] | None = None,
    now: datetime | None = None,
    dry_run: bool = False,
) -> FreshnessPassResult:
    """End every expired fact of the agents whose memory policy sets ``end_expired_facts``
    (off by default), through :func:`end_fact`, audited as FRESHNESS_ACTOR. An agent with
    a larger backlog than the candidates read at once (facts.staleness.CANDIDATES_MAX) has
    the rest ended by the next runs. Counts: ``ended`` facts (= ``touched``); ``dry_run``
    counts them and changes nothing."""
    now = now or timezone.now()
    agents = Agent.objects.all() if agents is None else agents
    result = FreshnessPassResult()
    for agent in agents.filter(**{f"memory_policy__{END_EXPIRED_POLICY_KEY}": True}):
        expired = expired_facts(agent, now=now)
        if dry_run:
            result.add(agent.workspace_id, len(expired))
            continue
        for start in range(0, len(expired), FRESHNESS_BATCH):
            ended = 0
            with transaction.atomic():
                for fact in expired[start : start + FRESHNESS_BATCH]:
                    try:
                        end_fact(fact=fact, actor=FRESHNESS_ACTOR, reason="expired")
                    except FactNotCurrent:
                        continue  # settled by someone else since it was read
                    ended += 1
            result.add(agent.workspace_id, ended)
    return result
