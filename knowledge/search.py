"""The dashboard's one search box: users, agents, facts and memories matching a text,
among the agents a viewer may see. Reads only: no access is counted, nothing is written.

Each section is bounded (SECTION_MAX), and each reads a bounded number of index entries, so
the page costs the same whatever the size of the data: user ids and agents by their start
(the prefix indexes), facts by their user, a word of their value (the trigram index on
PostgreSQL) or their subject's start, memories by the keyword search recall uses, in at
most MEMORY_AGENTS_MAX agents.
"""

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Prefetch, Q, QuerySet
from django.utils import timezone

from facts.models import Fact
from facts.queries import SUGGESTION_SCAN, fact_to_dict, facts_of
from memory.models import Memory, Session
from memory.queries import memory_to_dict, visible_of
from memory.recall.keyword_search import keyword_search
from tenancy.access import Access
from tenancy.models import Agent
from tenancy.validation import user_forms

SECTION_MAX = 10
# The keyword index is per agent: a search reads at most this many agents' (the newest).
MEMORY_AGENTS_MAX = 10
MEMORIES_PER_AGENT = 5
QUERY_MAX_CHARS = 200


@dataclass
class SearchResults:
    users: list[str] = field(default_factory=list)
    agents: list[dict[str, Any]] = field(default_factory=list)
    facts: list[dict[str, Any]] = field(default_factory=list)
    memories: list[dict[str, Any]] = field(default_factory=list)
    # Whether a section stopped at SECTION_MAX (its "see all" link says there may be more).
    more: dict[str, bool] = field(default_factory=dict)
    # Memories were searched in the first MEMORY_AGENTS_MAX agents only.
    memory_agents_capped: bool = False


def _bounded[T](items: list[T], results: SearchResults, section: str) -> list[T]:
    results.more[section] = len(items) > SECTION_MAX
    return items[:SECTION_MAX]


def matching_users(access: Access, text: str) -> list[str]:
    """User ids starting with ``text`` (any case) among the facts, memories and sessions of
    the agents ``access`` sees, sorted; one more than SECTION_MAX tells there are more."""
    found: set[str] = set()
    for rows, column in (
        (facts_of(access), "user_ref"),
        (visible_of(access, Memory.objects.all()), "user_ref"),
        (visible_of(access, Session.objects.all()), "user_ref"),
    ):
        values = (
            rows.filter(**{f"{column}__istartswith": text})
            .exclude(**{column: ""})
            .order_by()
            .values_list(column, flat=True)[:SUGGESTION_SCAN]
        )
        found.update(value for value in values if value)
    return sorted(found, key=lambda user: (user.casefold(), user))[: SECTION_MAX + 1]


def matching_agents(access: Access, text: str) -> list[dict[str, Any]]:
    agents = access.agents().filter(agent_id__istartswith=text).order_by("agent_id", "id")
    return [
        {"ref": access.agent_ref(agent), "agent_id": agent.agent_id, "workspace": agent.workspace}
        for agent in agents[: SECTION_MAX + 1]
    ]


# A match that reads at most this many ids unordered has found all its matches: they are
# sorted here. One that finds more is common, so walking the facts newest first meets a
# page of them soon.
FEW_MATCHES = 1_000


def _newest_matching_ids(facts: QuerySet[Fact], condition: Q) -> list[int]:
    """The ids of the newest SECTION_MAX + 1 of ``facts`` matching ``condition``.

    Ordered newest first in the database, a rare text makes the planner walk the primary
    key backwards through every fact (a second at a million facts); read unordered, it is
    one read of the condition's index. So: unordered first, and only when that finds more
    than FEW_MATCHES, the ordered walk (which then stops early)."""
    matching = facts.filter(condition).order_by()
    ids = list(matching.values_list("id", flat=True)[: FEW_MATCHES + 1])
    if len(ids) <= FEW_MATCHES:
        return sorted(ids, reverse=True)[: SECTION_MAX + 1]
    return list(matching.order_by("-id").values_list("id", flat=True)[: SECTION_MAX + 1])


def matching_facts(access: Access, text: str) -> list[dict[str, Any]]:
    """Facts about the user whose id is ``text`` first (the person searched for), then
    those with a word of their value or their subject starting with ``text``, newest first.
    Words, not any substring: "an" finds "Anna" and "an apple", not "Germany"."""
    visible = facts_of(access)
    own = _newest_matching_ids(visible, Q(user_ref__in=user_forms(text)))
    words = Q(value__istartswith=text) | Q(value__icontains=f" {text}")
    others = {
        *_newest_matching_ids(visible, words),
        *_newest_matching_ids(visible, Q(subject__istartswith=text)),
    }
    ordered = [*own, *sorted(others.difference(own), reverse=True)][: SECTION_MAX + 1]
    agents = Agent.objects.select_related("workspace")
    facts = Fact.objects.filter(id__in=ordered).prefetch_related(Prefetch("agent", queryset=agents))
    by_id = {fact.pk: fact for fact in facts}
    now = timezone.now()
    return [
        {**fact_to_dict(by_id[i], now=now), "agent_ref": access.agent_ref(by_id[i].agent)}
        for i in ordered
        if i in by_id
    ]


def matching_memories(access: Access, text: str) -> tuple[list[dict[str, Any]], bool]:
    """The best keyword matches of ``text`` in the newest MEMORY_AGENTS_MAX agents
    ``access`` sees (MEMORIES_PER_AGENT each, by recall's keyword search), best first, and
    whether there were more agents than that."""
    agents = list(access.agents().order_by("-id")[: MEMORY_AGENTS_MAX + 1])
    capped = len(agents) > MEMORY_AGENTS_MAX
    scored: list[tuple[float, int]] = []
    now = timezone.now()
    for agent in agents[:MEMORY_AGENTS_MAX]:
        # Unfiltered: the agent is narrowed inside the keyword index; expired ones are
        # dropped below.
        candidates = Memory.objects.filter(agent=agent)
        hits = keyword_search(agent, candidates, text, limit=MEMORIES_PER_AGENT, filtered=False)
        scored.extend((score, memory_id) for memory_id, score in hits)
    ranked = [memory_id for _score, memory_id in sorted(scored, key=lambda s: (-s[0], -s[1]))]
    # A memory is listed once, at its best score.
    best = list(dict.fromkeys(ranked))[: SECTION_MAX + 1]
    by_id = Memory.objects.live(now).select_related("agent__workspace").prefetch_related("tag_rows")
    memories = by_id.in_bulk(best)
    rows = [
        {**memory_to_dict(memories[i]), "agent_ref": access.agent_ref(memories[i].agent)}
        for i in best
        if i in memories
    ]
    return rows, capped


def search_everything(access: Access, text: str) -> SearchResults:
    """What the search box finds for ``text`` (stripped; nothing for an empty text)."""
    text = text.strip()[:QUERY_MAX_CHARS]
    results = SearchResults()
    if not text:
        return results
    results.users = _bounded(matching_users(access, text), results, "users")
    results.agents = _bounded(matching_agents(access, text), results, "agents")
    results.facts = _bounded(matching_facts(access, text), results, "facts")
    memories, results.memory_agents_capped = matching_memories(access, text)
    results.memories = _bounded(memories, results, "memories")
    return results
