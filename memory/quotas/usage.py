"""What quotas measure (see memory.quotas): a memory's size as quotas count it, the tables
whose rows are counted (memory's own, and those an app above it adds), and the usage of an
agent or a workspace summed over them. Nothing here locks or writes."""

import json
from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any

from django.db.models import Count, Model, Q, Sum
from django.db.models.functions import Coalesce

from memory.models import Entity, Memory, Session
from tenancy.models import Agent, QuotaKind, Workspace


@dataclass(frozen=True)
class Usage:
    memories: int = 0
    storage_bytes: int = 0
    metadata_bytes: int = 0
    sessions: int = 0
    facts: int = 0
    entities: int = 0

    def of(self, kind: str) -> int:
        return int(getattr(self, kind))

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(**{f.name: self.of(f.name) + other.of(f.name) for f in fields(Usage)})

    def __sub__(self, other: "Usage") -> "Usage":
        return Usage(**{f.name: self.of(f.name) - other.of(f.name) for f in fields(Usage)})

    def as_dict(self) -> dict[str, int]:
        return {kind: self.of(kind) for kind in QuotaKind.values}


def _json_bytes(value: Any) -> int:
    return len(json.dumps(value).encode("utf-8")) if value else 0


def memory_size(
    *,
    content: str,
    metadata: dict[str, Any] | None,
    tags: Iterable[str],
    source_refs: list[str] | None,
    user: str | None,
    speaker: str | None,
) -> Usage:
    """One memory as quotas count it (see memory.quotas); ``tags`` are the caller's, not
    the entity tags derived from the text."""
    metadata_bytes = _json_bytes(metadata)
    stored = (
        len(content.encode("utf-8"))
        + metadata_bytes
        + sum(len(tag.encode("utf-8")) for tag in tags)
        + _json_bytes(source_refs)
        + len((user or "").encode("utf-8"))
        + len((speaker or "").encode("utf-8"))
    )
    return Usage(memories=1, storage_bytes=stored, metadata_bytes=metadata_bytes)


@dataclass(frozen=True)
class MeasuredTable:
    """The rows some quota kinds measure: each kind a count of the rows (column None) or
    a sum of a column. The first is the rows' count."""

    model: type[Model]
    measures: tuple[tuple[str, str | None], ...]

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(kind for kind, _ in self.measures)

    def sql(self) -> str:
        return ", ".join(
            "COUNT(*)" if column is None else f"COALESCE(SUM({column}), 0)"
            for _, column in self.measures
        )

    def aggregates(self) -> dict[str, Any]:
        return {
            kind: Count("id") if column is None else Coalesce(Sum(column), 0)
            for kind, column in self.measures
        }


# The tables memory counts; an app above it adds its own (count_in_quotas).
MEASURED_TABLES: list[MeasuredTable] = [
    MeasuredTable(
        Memory,
        (
            (QuotaKind.MEMORIES, None),
            (QuotaKind.STORAGE_BYTES, "stored_bytes"),
            (QuotaKind.METADATA_BYTES, "metadata_bytes"),
        ),
    ),
    MeasuredTable(Session, ((QuotaKind.SESSIONS, None),)),
    MeasuredTable(Entity, ((QuotaKind.ENTITIES, None),)),
]
TABLE_OF_KIND = {kind: table for table in MEASURED_TABLES for kind in table.kinds}


def count_in_quotas(model: type[Model], measures: tuple[tuple[str, str | None], ...]) -> None:
    """Count the rows of ``model`` (an app above memory: facts) against the quotas of
    ``measures``' kinds, as memory counts its own: called once, from the app's ready()."""
    if any(table.model is model for table in MEASURED_TABLES):
        return
    table = MeasuredTable(model, measures)
    MEASURED_TABLES.append(table)
    TABLE_OF_KIND.update(dict.fromkeys(table.kinds, table))


def _usage(scope: Q) -> Usage:
    return sum(
        (
            Usage(**table.model._default_manager.filter(scope).aggregate(**table.aggregates()))
            for table in MEASURED_TABLES
        ),
        Usage(),
    )


def agent_usage(agent: Agent) -> Usage:
    return _usage(Q(agent=agent))


def workspace_usage(workspace: Workspace) -> Usage:
    return _usage(Q(agent__workspace=workspace))


def usage_by_agent(workspace: Workspace) -> dict[int, Usage]:
    """Every agent of ``workspace`` that holds anything, by agent pk: one grouped sum per
    table measured."""
    usage: dict[int, Usage] = {}
    for table in MEASURED_TABLES:
        rows = (
            table.model._default_manager.filter(agent__workspace=workspace)
            .values("agent_id")
            .annotate(**table.aggregates())
            .order_by()
        )
        for row in rows:
            agent_id = row.pop("agent_id")
            usage[agent_id] = usage.get(agent_id, Usage()) + Usage(**row)
    return usage
