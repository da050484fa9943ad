"""The review queue: the disputed facts waiting for a person, oldest first, each beside
the current value of its slot, with the sources of both."""

from datetime import datetime
from typing import Any

from django.db.models import Prefetch, Subquery
from django.utils import timezone

from facts.models import Fact, FactQuerySet, FactSource
from facts.queries.shapes import fact_to_dict, source_to_dict
from tenancy.access import Access

REVIEW_QUEUE_LIMIT = 50


def _with_sources(facts: FactQuerySet) -> FactQuerySet:
    return facts.prefetch_related(Prefetch("sources", queryset=FactSource.objects.order_by("id")))


def review_queue(access: Access, *, limit: int = REVIEW_QUEUE_LIMIT) -> list[dict[str, Any]]:
    """The oldest ``limit`` disputed facts of every agent ``access`` sees, each with the
    current value of its slot (or None) and both sets of sources. Four queries whatever the
    length: the disputed facts (the current fact's id found by a subquery), their sources,
    the current facts, theirs."""
    current_of_slot = Fact.objects.current().in_outer_slot()
    disputed = list(
        _with_sources(Fact.objects.disputed().filter(agent__in=access.agents()))
        .select_related("agent__workspace")
        .annotate(current_id=Subquery(current_of_slot.values("id")[:1]))
        .order_by("recorded_at", "id")[:limit]
    )
    current_ids = [f.current_id for f in disputed if f.current_id is not None]
    currents = {f.pk: f for f in _with_sources(Fact.objects.filter(pk__in=current_ids))}
    now = timezone.now()
    return [review_item(fact, currents.get(fact.current_id), now=now) for fact in disputed]


def review_item(fact: Fact, current: Fact | None, *, now: datetime) -> dict[str, Any]:
    """One entry of the review queue; ``current`` shares ``fact``'s agent."""
    if current is not None:
        current.agent = fact.agent
    return {
        **fact_to_dict(fact, now=now),
        # Agent ids repeat across workspaces: staff see whose agent it is.
        "workspace": fact.agent.workspace.slug,
        "sources": [source_to_dict(s) for s in fact.sources.all()],
        "current": None
        if current is None
        else {
            **fact_to_dict(current, now=now),
            "sources": [source_to_dict(s) for s in current.sources.all()],
        },
    }
