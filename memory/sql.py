"""SQL pieces for the read paths that take many ids at once (recall's pool, graph walks),
where building the ORM's IN lists and converting its rows costs more than the query."""

import json
from typing import Any

from django.db import connection
from django.db.models import BooleanField
from django.db.models.expressions import RawSQL


def any_of(column: str, values: list[Any]) -> tuple[str, list[Any]]:
    """``column`` is one of ``values``, as one parameter whatever their number: an array on
    PostgreSQL, a JSON list on SQLite (both planned as lookups on the column's index)."""
    if connection.vendor == "postgresql":
        return f"{column} = ANY(%s)", [list(values)]
    return f"{column} IN (SELECT value FROM json_each(%s))", [json.dumps(list(values))]


def among(ids: list[int]) -> RawSQL:
    """A filter for QuerySet.filter() on memories: the memory's id is one of ``ids``."""
    sql, params = any_of('"memory_memory"."id"', [int(i) for i in ids])
    return RawSQL(sql, params, output_field=BooleanField())


def epoch_seconds(column: str) -> str:
    """``column`` (a timestamp) as seconds since the epoch, a float on both editions: reading
    numbers spares the ORM's datetime conversion of every row."""
    if connection.vendor == "postgresql":
        return f"extract(epoch from {column})::float8"
    return f"(julianday({column}) - 2440587.5) * 86400.0"
