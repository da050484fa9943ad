"""The cross-agent network of one workspace: between each pair of its agents, the entities
both have (same type and key), with counts. Never across workspaces: the agents are those
of one workspace the caller may see. Nothing here writes.

Bounded: the NETWORK_KEYS_MAX entities shared by the most agents (then the most mentioned)
are read, and each pair lists its ``top`` entities (most mentioned by the two first);
``truncated`` says whether shared entities were left out.
"""

from collections import defaultdict
from itertools import combinations
from typing import Any

from django.db.models import Count, Sum

from memory.graph.queries import clean_bounded
from memory.models import Entity
from tenancy.access import Access
from tenancy.exceptions import WorkspaceNotFound
from tenancy.models import AgentQuerySet, Workspace
from tenancy.validation import clean_text

NETWORK_TOP = 10
NETWORK_TOP_MAX = 100
NETWORK_KEYS_MAX = 2_000


def network_workspace(*, access: Access, slug: str | None) -> Workspace:
    """The workspace whose network ``access`` asks for: its own when it has one (another
    slug is WorkspaceNotFound, as one that does not exist); the CLI, which sees every
    workspace, names one."""
    if slug is not None:
        slug = clean_text(slug, field="workspace", max_chars=64)
    if access.workspace is not None and slug in (None, access.workspace.slug):
        return access.workspace
    workspace = Workspace.objects.filter(slug=slug).first() if access.workspace is None else None
    if workspace is None:
        raise WorkspaceNotFound(f"No workspace {slug!r}")
    return workspace


def agent_network(
    *, workspace: Workspace, top: int = NETWORK_TOP, among: AgentQuerySet | None = None
) -> dict[str, Any]:
    """The workspace's agents (with their entity counts) and the pairs of them that share
    entities: each pair's number of shared entities and its ``top`` (1..NETWORK_TOP_MAX).
    ``among``: only these agents (those an agent-limited key may use)."""
    top = clean_bounded(top, field="top", low=1, high=NETWORK_TOP_MAX)
    workspace_agents = workspace.agents.all() if among is None else among.in_workspace(workspace)
    entities = Entity.objects.filter(agent__workspace=workspace)
    if among is not None:
        entities = entities.filter(agent__in=workspace_agents)
    agents = list(
        workspace_agents.order_by("agent_id")
        .annotate(entity_count=Count("entities"))
        .values("id", "agent_id", "name", "entity_count")
    )
    shared = list(
        entities.values("type", "key")
        .annotate(holders=Count("agent_id", distinct=True), total=Sum("mention_count"))
        .filter(holders__gte=2)
        .order_by("-holders", "-total", "type", "key")[: NETWORK_KEYS_MAX + 1]
    )
    truncated = len(shared) > NETWORK_KEYS_MAX
    keys = {(row["type"], row["key"]) for row in shared[:NETWORK_KEYS_MAX]}
    holders: dict[tuple[str, str], dict[int, tuple[str, int]]] = defaultdict(dict)
    rows = entities.filter(key__in={key for _, key in keys}).values_list(
        "agent_id", "type", "key", "name", "mention_count"
    )
    for agent_pk, kind, key, name, count in rows:
        if (kind, key) in keys:
            holders[(kind, key)][agent_pk] = (name, count)
    names = {a["id"]: a["agent_id"] for a in agents}
    pairs: dict[tuple[int, int], list[dict[str, Any]]] = defaultdict(list)
    for (kind, key), held in holders.items():
        for a, b in combinations(sorted(held, key=names.__getitem__), 2):
            pairs[(a, b)].append(
                {
                    "type": kind,
                    "key": key,
                    "name": held[a][0],
                    "mentions": {names[a]: held[a][1], names[b]: held[b][1]},
                }
            )
    return {
        "workspace": workspace.slug,
        "agents": [{k: v for k, v in a.items() if k != "id"} for a in agents],
        "pairs": [
            {
                "agents": [names[a], names[b]],
                "shared_count": len(found),
                "entities": sorted(
                    found, key=lambda e: (-sum(e["mentions"].values()), e["type"], e["key"])
                )[:top],
            }
            for (a, b), found in sorted(pairs.items(), key=lambda p: (-len(p[1]), *p[0]))
        ],
        "truncated": truncated,
    }
