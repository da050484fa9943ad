"""Reads for a person's page: what the agents a viewer may see hold about one user id, at a
glance. (knowledge.people finds *everything* about a person, for the erasure and the export;
this page shows the recent and the current, quickly, and links to the rest.)

A person is a user id as clients give it (``user`` of facts, memories and sessions). The
page shows, per workspace the viewer sees (staff: every one; members: theirs):

- current facts whose user is them, by agent, each with its freshness;
- their disputed facts waiting for a person, each with the current value of its slot;
- their newest memories (``Memory.user_ref``), live ones only, and their newest sessions;
- the newest audit events about their facts (in any status) and about the memories and
  sessions shown.

Every part is bounded and read in one query whatever the person holds (audit events in
two, the agents of what was found in one more), so the page costs the same for a person of
ten rows or of a million. Every read goes by the person's id first: the indexes
fact_user_status_idx, memory_user_idx and session_user_idx lead with it (migrations named
"person"); audit events are found by their target. Nothing here writes: not even the
access counters that serving a fact to an agent raises.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypedDict

from django.db.models import CharField, Count, Q, QuerySet, Subquery
from django.db.models.functions import Cast
from django.utils import timezone

from dewee.sorting import Sort, Sorting, SortKey
from facts.models import Fact
from facts.queries import fact_to_dict
from knowledge.people import clean_person
from memory.models import Memory, Session
from tenancy.access import Access
from tenancy.models import Agent, AuditEvent, Workspace
from tenancy.validation import user_forms

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

    class _CurrentValue(TypedDict):
        # A disputed fact's annotation: the value in force in its slot (None: none is).
        current_value: str | None


# How much of each part the page shows; each has a link to the whole list.
FACTS_MAX = 100
DISPUTES_MAX = 25
MEMORIES_MAX = 10
SESSIONS_MAX = 10
EVENTS_MAX = 15
MEMORY_EXCERPT_CHARS = 200


@dataclass
class AgentFacts:
    """One agent's current facts about the person, slot by slot."""

    agent: Agent
    facts: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class WorkspacePart:
    """What one workspace holds about the person (of what the page shows)."""

    workspace: Workspace
    # Agents in order of their id, each with the person's current facts (maybe none).
    agents: dict[int, AgentFacts] = field(default_factory=dict)
    disputes: list[dict[str, Any]] = field(default_factory=list)
    memories: list[dict[str, Any]] = field(default_factory=list)
    sessions: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)

    @property
    def agent_facts(self) -> list[AgentFacts]:
        return sorted(self.agents.values(), key=lambda part: part.agent.agent_id)

    @property
    def first_agent(self) -> Agent | None:
        """An agent of the workspace: the export and the erasure cover every agent of its
        workspace, and are reached through one of them (None: only audit events were found,
        about facts since deleted or forgotten, of agents since removed)."""
        agents = self.agent_facts
        return agents[0].agent if agents else None


@dataclass
class PersonOverview:
    user: str
    workspaces: list[WorkspacePart]
    # Whether a bounded part was cut: the page says so and links to the whole list.
    more_facts: bool = False
    more_disputes: bool = False
    more_memories: bool = False
    more_sessions: bool = False
    more_events: bool = False

    @property
    def found(self) -> bool:
        return bool(self.workspaces)


# The orders of a person's current facts, within each agent: the facts are read whole
# (FACTS_MAX at most), so they are sorted in Python, freshness included.
PERSON_FACT_SORTING = Sorting(
    keys=(
        SortKey("slot", field="slot", kind=str, indexed=True),
        SortKey("value", field="value", kind=str, indexed=True),
        SortKey("freshness", field="freshness", kind=float, indexed=True, descending_first=True),
        SortKey(
            "confirmed",
            field="last_confirmed_at",
            kind=datetime,
            indexed=True,
            descending_first=True,
            label="last confirmed",
        ),
    ),
    default="slot",
)


def sort_person_facts(overview: "PersonOverview", sort: Sort) -> None:
    """Each agent's current facts in ``overview`` in ``sort``, one of PERSON_FACT_SORTING's
    (read by slot; the page shows them so unless asked)."""

    def value(fact: dict[str, Any]) -> Any:
        if sort.key.name == "slot":
            return (fact["subject"], fact["predicate"], fact["qualifier"] or "", fact["id"])
        if sort.key.name == "value":
            return (fact["value"].casefold(), fact["id"])
        return fact[sort.key.field]

    for part in overview.workspaces:
        for group in part.agents.values():
            group.facts = sort.sorted(group.facts, value)


def _visible[M: (Fact, Memory, Session)](rows: QuerySet[M], access: Access) -> QuerySet[M]:
    """Rows of the agents ``access`` sees. Staff see every agent: no condition at all, so
    that the person's id alone leads the plan."""
    if access.workspace is None and access.agent_ids is None:
        return rows
    return rows.filter(agent__in=access.agents())


def _bounded[T](rows: Iterable[T], limit: int) -> tuple[list[T], bool]:
    found = list(rows)
    return found[:limit], len(found) > limit


def person_overview(*, access: Access, user: str, now: datetime | None = None) -> PersonOverview:
    """What the agents ``access`` sees hold about ``user`` (see the module's docstring),
    grouped by workspace (by slug), newest first within each part. Eight queries however
    much the person holds; reads only. A user nobody visible holds anything about gives an
    empty overview, whether another workspace knows them or not."""
    user = clean_person(user)
    now = now or timezone.now()
    facts, more_facts = _bounded(
        # In force now: a value handed over to one from a later date until then.
        _visible(Fact.objects.holding_at(now), access)
        .filter(user_ref__in=user_forms(user))
        .order_by("agent_id", "subject", "predicate", "qualifier", "id")[: FACTS_MAX + 1],
        FACTS_MAX,
    )
    current_value = Fact.objects.holding_at(now).in_outer_slot().values("value")[:1]
    disputes, more_disputes = _bounded(
        _visible(Fact.objects.disputed(), access)
        .filter(user_ref__in=user_forms(user))
        .annotate(current_value=Subquery(current_value))
        .order_by("recorded_at", "id")[: DISPUTES_MAX + 1],
        DISPUTES_MAX,
    )
    memories, more_memories = _bounded(
        _visible(Memory.objects.live(now), access)
        .filter(user_ref__in=user_forms(user))
        .only("id", "agent_id", "session_id", "content", "memory_type", "importance", "created_at")
        .order_by("-id")[: MEMORIES_MAX + 1],
        MEMORIES_MAX,
    )
    sessions, more_sessions = _bounded(
        _visible(Session.objects.all(), access)
        .filter(user_ref__in=user_forms(user))
        .defer("metadata")
        .order_by("-id")[: SESSIONS_MAX + 1],
        SESSIONS_MAX,
    )
    turns = _turn_counts([s.pk for s in sessions])
    events, more_events = _events(access, user, memories, sessions)
    return PersonOverview(
        user=user,
        workspaces=_by_workspace(
            facts=facts,
            disputes=disputes,
            memories=memories,
            sessions=sessions,
            events=events,
            turns=turns,
            now=now,
        ),
        more_facts=more_facts,
        more_disputes=more_disputes,
        more_memories=more_memories,
        more_sessions=more_sessions,
        more_events=more_events,
    )


def _by_workspace(
    *,
    facts: list[Fact],
    disputes: list["WithAnnotations[Fact, _CurrentValue]"],
    memories: list[Memory],
    sessions: list[Session],
    events: list[AuditEvent],
    turns: dict[int, int],
    now: datetime,
) -> list[WorkspacePart]:
    """What was found, by workspace (by slug), with the agents it was found in (one query)."""
    agents = _agents(
        {f.agent_id for f in [*facts, *disputes]}
        | {m.agent_id for m in memories}
        | {s.agent_id for s in sessions}
    )
    parts: dict[int, WorkspacePart] = {}

    def part_of(agent: Agent) -> WorkspacePart:
        part = parts.setdefault(agent.workspace_id, WorkspacePart(workspace=agent.workspace))
        part.agents.setdefault(agent.pk, AgentFacts(agent=agent))
        return part

    for fact in facts:
        fact.agent = agents[fact.agent_id]
        part_of(fact.agent).agents[fact.agent_id].facts.append(fact_to_dict(fact, now=now))
    for fact in disputes:
        fact.agent = agents[fact.agent_id]
        item = {**fact_to_dict(fact, now=now), "current_value": fact.current_value}
        part_of(fact.agent).disputes.append(item)
    for memory in memories:
        agent = agents[memory.agent_id]
        part_of(agent).memories.append(_memory_row(memory, agent))
    for session in sessions:
        agent = agents[session.agent_id]
        part_of(agent).sessions.append(_session_row(session, agent, turns.get(session.pk, 0)))
    for event in events:
        # A workspace may hold only events about them (their facts deleted since).
        part = parts.setdefault(event.workspace_id, WorkspacePart(workspace=event.workspace))
        part.events.append(_event_row(event))
    return sorted(parts.values(), key=lambda part: part.workspace.slug)


def _agents(pks: set[int]) -> dict[int, Agent]:
    if not pks:
        return {}
    return {a.pk: a for a in Agent.objects.select_related("workspace").filter(pk__in=pks)}


def _turn_counts(session_pks: list[int]) -> dict[int, int]:
    if not session_pks:
        return {}
    counts = (
        Memory.objects.filter(session_id__in=session_pks)
        .values_list("session_id")
        .annotate(n=Count("id"))
        .order_by()
    )
    return dict(counts)


def _events(
    access: Access, user: str, memories: list[Memory], sessions: list[Session]
) -> tuple[list[AuditEvent], bool]:
    """The newest audit events about the person's facts (in any status: a deleted fact's
    deletion is about them too), and about the memories and sessions the page shows.

    Two queries, each by the events' target (audit_target_idx). The facts' events are a
    plain ``IN (their fact ids)``, which PostgreSQL joins from the person's facts (found by
    their user); in an OR with the other targets it could only filter row by row, walking
    the whole log backwards in time for a person with few events."""
    events = AuditEvent.objects.select_related("workspace").order_by("-created_at", "-id")
    if access.workspace is not None:
        events = events.filter(workspace=access.workspace)
    facts = _visible(Fact.objects.filter(user_ref__in=user_forms(user)), access)
    fact_ids = facts.annotate(key=Cast("id", output_field=CharField())).values("key")
    found = list(events.filter(target_type="fact", target_id__in=fact_ids)[: EVENTS_MAX + 1])
    shown = Q(target_type="memory", target_id__in=[str(m.pk) for m in memories]) | Q(
        target_type="session", target_id__in=[str(s.pk) for s in sessions]
    )
    if memories or sessions:
        found += events.filter(shown)[: EVENTS_MAX + 1]
    found.sort(key=lambda event: (event.created_at, event.pk), reverse=True)
    return _bounded(found, EVENTS_MAX)


def _memory_row(memory: Memory, agent: Agent) -> dict[str, Any]:
    return {
        "id": memory.pk,
        "agent": agent,
        "session_id": memory.session_id,
        "content": memory.content[:MEMORY_EXCERPT_CHARS],
        "memory_type": memory.memory_type,
        "importance": memory.importance,
        "created_at": memory.created_at,
    }


def _session_row(session: Session, agent: Agent, turns: int) -> dict[str, Any]:
    return {
        "id": session.pk,
        "agent": agent,
        "state": session.state,
        "started_at": session.started_at,
        "last_activity_at": session.last_activity_at,
        "ended_reason": session.ended_reason,
        "summary": session.summary,
        "memory_count": turns,
    }


def _event_row(event: AuditEvent) -> dict[str, Any]:
    return {
        "action": event.action,
        "label": event.get_action_display(),
        "actor": event.actor,
        "target_type": event.target_type,
        "target_id": event.target_id,
        "reason": event.details.get("reason") if isinstance(event.details, dict) else None,
        "created_at": event.created_at,
    }
