"""The orders the dashboard's lists of memories, sessions and entities offer (dewee.sorting),
and what serves each: these tables grow with use (a million memories and more, partitioned
by agent on PostgreSQL), so a column is offered for any list only where an index gives its
rows in that order, and otherwise only for a list of at most UNINDEXED_SORT_MAX rows.

- Memories: newest stored first (the id) by default. By age (since ``created_at``, which
  an import may set; the youngest first is the latest time first): the index (agent,
  created_at) serves one agent's list. By importance and
  by how often they were recalled: no index, so a bounded list only.
- Sessions: by their number (the id) in either direction, served by the primary key (and
  session_agent_id_idx for one agent). Started, last activity and the number of memories
  (counted in the page's query): a bounded list only.
- Entities (always one agent's): newest first by id; by name (the normalised ``key``),
  served by entity_agent_key_idx; by mentions and when last seen, a bounded list only.
- Quotas: a workspace's agents with their usage, read whole for the page; sorted in
  Python, over quota first (the default), by agent or by the usage of any kind
  (quota_order)."""

from collections.abc import Callable
from datetime import datetime

from dewee.sorting import Sort, Sorting, SortKey
from memory.quotas import QuotaReport
from tenancy.models import QuotaKind

MEMORY_SORTING = Sorting(
    keys=(
        SortKey("stored", indexed=True, descending_first=True, label="when stored"),
        SortKey(
            "age",
            field="created_at",
            kind=datetime,
            agent_indexed=True,
            reversed_field=True,
            label="age",
        ),
        SortKey("importance", field="importance", kind=float, descending_first=True),
        SortKey("accessed", field="access_count", descending_first=True, label="times recalled"),
    ),
    default="-stored",
)

SESSION_SORTING = Sorting(
    keys=(
        SortKey("session", indexed=True, descending_first=True, label="number"),
        SortKey("started", field="started_at", kind=datetime, descending_first=True),
        SortKey(
            "activity",
            field="last_activity_at",
            kind=datetime,
            descending_first=True,
            label="last activity",
        ),
        SortKey("memories", field="memory_count", descending_first=True, label="memories"),
    ),
    default="-session",
)

ENTITY_SORTING = Sorting(
    keys=(
        SortKey("added", indexed=True, descending_first=True, label="when first seen"),
        SortKey("name", field="key", kind=str, agent_indexed=True),
        SortKey("mentions", field="mention_count", descending_first=True),
        SortKey("seen", field="last_seen", kind=datetime, descending_first=True, label="last seen"),
    ),
    default="-added",
)

QUOTA_SORTING = Sorting(
    keys=(
        # The overview's own order: agents over a quota first, then by storage.
        SortKey("flagged", field="flagged", indexed=True, label="over quota first"),
        SortKey("agent", field="agent_id", kind=str, indexed=True),
        *(
            SortKey(kind, field=kind, indexed=True, descending_first=True, label=label.lower())
            for kind, label in QuotaKind.choices
        ),
    ),
    default="-flagged",
)


def quota_order(sort: Sort) -> Callable[[QuotaReport], object]:
    """What orders the Quotas page's agents in ``sort``: the agent's id, or its usage of
    the kind sorted by."""
    if sort.key.name == "flagged":
        return lambda report: (report.flagged, report.status(QuotaKind.STORAGE_BYTES).usage)
    if sort.key.name == "agent":
        return lambda report: report.agent_id
    return lambda report: report.status(sort.key.name).usage
