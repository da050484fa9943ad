"""Quotas: what an agent and a workspace hold, measured against their limits
(tenancy.models.Quota), and the check every write that adds or grows what they hold makes.

What is measured, the same way on both editions:

- ``memories``: the memories stored (expired ones count until the expiry pass deletes them);
- ``metadata_bytes``: each memory's metadata as JSON in UTF-8 (the measure of
  ``clean_metadata``'s per-memory cap; an empty object is 0), summed;
- ``storage_bytes``: everything of a memory its client controls, summed: content (UTF-8)
  + metadata (as above) + the caller's tags + source refs (as JSON) + user + speaker;
- ``sessions``: the sessions started, active or ended, until deleted;
- ``facts``: the fact rows held, history and soft-deleted ones included (each keeps its
  sources), until erased: a new value of a slot is a new fact, a confirmation is not;
- ``entities``: the entities of the agent's graph.

Derived data (vectors, entity tags, the keyword index) is not counted: its size per memory
is bounded, so a limit on memories bounds it. Each memory keeps its two sizes
(``Memory.stored_bytes`` and ``metadata_bytes``), written with it, so usage is one sum over
an index (memory_agent_usage_idx) and never reads the memories' rows.

The package's modules: ``usage`` (what is measured, and how it is summed), ``counts`` (each
quota's running count, its lock, and setting a quota), ``checks`` (the check a write makes)
and ``reports`` (usage against limits, for people). Import from here.
"""

from memory.quotas.checks import QuotaWarning, check_quotas, hard_quota_room
from memory.quotas.counts import (
    RECOUNT_AFTER,
    forget_quota_counts,
    hard_limits_below_usage,
    lock_quotas,
    release_quota_usage,
    set_quotas,
)
from memory.quotas.reports import QuotaReport, QuotaStatus, quota_overview, quota_report
from memory.quotas.usage import (
    Usage,
    agent_usage,
    count_in_quotas,
    memory_size,
    usage_by_agent,
    workspace_usage,
)

__all__ = [
    "RECOUNT_AFTER",
    "QuotaReport",
    "QuotaStatus",
    "QuotaWarning",
    "Usage",
    "agent_usage",
    "check_quotas",
    "count_in_quotas",
    "forget_quota_counts",
    "hard_limits_below_usage",
    "hard_quota_room",
    "lock_quotas",
    "memory_size",
    "quota_overview",
    "quota_report",
    "release_quota_usage",
    "set_quotas",
    "usage_by_agent",
    "workspace_usage",
]
