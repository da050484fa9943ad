"""How the schema would spread over a Citus cluster, and the rules that make it possible
(docs/SCALING.md). Every table is one of three kinds:

- **distributed** by a column (the agent's, or for the audit log the workspace's): its rows
  are spread over the nodes by that column. A table whose model has a required foreign key to
  the agent is distributed by agent, by rule; a new model of that shape is too.
- **reference**: small, read by every request, copied to every node.
- **local**: the coordinator's own (the worker's queue, logins, bookkeeping).

What Citus needs of a distributed table: the distribution column in its primary key and in
every unique index; a foreign key from it goes to a reference table, or to another
distributed table through both distribution columns; no foreign key goes from a reference or
local table into a distributed one, nor from a distributed table to a local one.
tests/test_citus_ready.py checks the PostgreSQL schema against these rules, so a new model that
breaks them fails the suite."""

from typing import Any

from django.apps import apps
from django.db import models

AGENT_COLUMN = "agent_id"
# Distributed by another column than the agent's: an audit event's agent may be empty.
DISTRIBUTED_BY = {"memory_auditevent": "workspace_id"}
REFERENCE = frozenset(
    {
        "memory_workspace",
        "memory_workspacemember",
        "memory_agent",
        "memory_apikey",
        "tenancy_quota",
        "auth_user",
        "auth_group",
        "auth_permission",
        "auth_group_permissions",
        "auth_user_groups",
        "auth_user_user_permissions",
        "django_content_type",
    }
)
LOCAL = frozenset(
    {
        "django_admin_log",
        "django_session",
        "django_q_task",
        "django_q_schedule",
        "django_q_ormq",
        "dewee_rate_counter",
        "memory_maintenancerun",
        "memory_queuedjob",
        "memory_workerheartbeat",
        "memory_erasurereceipt",
        "privacy_storagecompaction",
        # A login's own saved views of the dashboard's lists (tenancy.preferences).
        "tenancy_savedview",
    }
)


def _required_agent(model: type[models.Model]) -> bool:
    for field in model._meta.concrete_fields:
        if field.name == "agent" and field.is_relation and not field.null:
            related = field.related_model
            return isinstance(related, type) and related._meta.db_table == "memory_agent"
    return False


def layout() -> dict[str, str | None]:
    """Each table of the project's models: its distribution column, or None for a reference
    or local table; "?" for a table none of the rules places."""
    tables: dict[str, str | None] = {}
    for model in apps.get_models(include_auto_created=True):
        table = model._meta.db_table
        if model._meta.proxy:
            continue
        if table in DISTRIBUTED_BY:
            tables[table] = DISTRIBUTED_BY[table]
        elif table in REFERENCE or table in LOCAL:
            tables[table] = None
        elif _required_agent(model):
            tables[table] = AGENT_COLUMN
        else:
            tables[table] = "?"
    return tables


def citus_violations(cursor: Any) -> list[str]:
    """What in the PostgreSQL schema (as migrated) breaks the rules above; empty when every
    table could be distributed, referenced or kept local as it is."""
    tables = layout()
    problems = [
        f"{table}: no rule places it: give its model a required agent, or name it in "
        "dewee.distribution as a reference or local table"
        for table, column in sorted(tables.items())
        if column == "?"
    ]
    for table, column in sorted(tables.items()):
        if column != "?":
            problems += _table_violations(cursor, table, column, tables)
    return problems


def _table_violations(
    cursor: Any, table: str, column: str | None, tables: dict[str, str | None]
) -> list[str]:
    problems = []
    if column is not None:
        cursor.execute(
            "SELECT c.relname, i.indisprimary, array(SELECT a.attname FROM unnest(i.indkey) "
            "k(n) JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n) "
            "FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
            "WHERE i.indrelid = %s::regclass AND (i.indisunique OR i.indisprimary) "
            "ORDER BY c.relname",
            [table],
        )
        for index, primary, columns in cursor.fetchall():
            if column not in columns:
                what = "primary key" if primary else f"unique index {index}"
                problems.append(f"{table}: {what} ({', '.join(columns)}) lacks {column}")
    cursor.execute(
        "SELECT c.conname, c.confrelid::regclass::text, "
        "array(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(n, o) "
        "JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.o), "
        "array(SELECT a.attname FROM unnest(c.confkey) WITH ORDINALITY k(n, o) "
        "JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.o) "
        "FROM pg_constraint c WHERE c.conrelid = %s::regclass AND c.contype = 'f' "
        "AND c.conparentid = 0 ORDER BY c.conname",
        [table],
    )
    for name, target, own, theirs in cursor.fetchall():
        target = target.strip('"')
        kind = tables.get(target, "?")
        if target in REFERENCE:
            continue
        if column is None:
            if target not in LOCAL:
                problems.append(f"{table}: {name} goes from a {_kind(table)} table into {target}")
            continue
        if kind is None or kind == "?":
            problems.append(f"{table}: {name} goes from a distributed table into {target}")
        elif (column, kind) not in zip(own, theirs, strict=True):
            problems.append(
                f"{table}: {name} ({', '.join(own)}) -> {target} ({', '.join(theirs)}) "
                f"does not join on {column} = {kind}"
            )
    return problems


def _kind(table: str) -> str:
    return "reference" if table in REFERENCE else "local"
