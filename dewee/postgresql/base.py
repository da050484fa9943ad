"""Django's PostgreSQL backend (psycopg 3), told about the tables keyed by their owner.

A table distributed by agent (dewee.distribution) has ``(agent_id, id)`` as its primary key
in the database (dewee.partitions), while Django sees ``id``. Django groups a query over a
model by its primary key alone when it selects it, relying on PostgreSQL to know the other
columns depend on it; PostgreSQL only knows that of the table's real key, and refuses. For
those tables Django groups by every selected column instead, which is always valid."""

from functools import cache
from typing import Any

from django.db.backends.postgresql import base, features


@cache
def _keyed_tables() -> frozenset[str]:
    from dewee.distribution import layout

    return frozenset(table for table, column in layout().items() if column and column != "?")


class DatabaseFeatures(features.DatabaseFeatures):
    def allows_group_by_selected_pks_on_model(self, model: Any) -> bool:
        keyed = model._meta.db_table in _keyed_tables()
        return not keyed and super().allows_group_by_selected_pks_on_model(model)


class DatabaseWrapper(base.DatabaseWrapper):
    features_class = DatabaseFeatures
