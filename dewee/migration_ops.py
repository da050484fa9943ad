"""Migration operations for schema that only one database engine has."""

from typing import Any

from django.db import migrations


class RunSQLOn(migrations.RunSQL):
    """RunSQL that applies only on the given database vendor ("postgresql", "sqlite")."""

    def __init__(self, vendor: str, sql: Any, reverse_sql: Any = None, **kwargs: Any) -> None:
        super().__init__(sql, reverse_sql, **kwargs)
        self.vendor = vendor

    def database_forwards(self, app_label: str, schema_editor: Any, *args: Any) -> None:
        if schema_editor.connection.vendor == self.vendor:
            super().database_forwards(app_label, schema_editor, *args)

    def database_backwards(self, app_label: str, schema_editor: Any, *args: Any) -> None:
        if schema_editor.connection.vendor == self.vendor:
            super().database_backwards(app_label, schema_editor, *args)

    def describe(self) -> str:
        return f"Raw SQL for {self.vendor} only"
