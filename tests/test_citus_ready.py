"""The schema is ready for Citus (dewee.distribution, docs/SCALING.md): checked on the
PostgreSQL schema as migrated, and shown to fail on a new model that breaks the rules."""

import pytest
from django.apps import apps
from django.db import connection, models

from dewee.distribution import LOCAL, REFERENCE, citus_violations, layout
from memory.models import MaintenanceRun
from tenancy.models import Agent

postgres_only = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the PostgreSQL schema's keys"
)


def test_every_table_is_placed_and_the_growing_ones_are_distributed():
    tables = layout()
    assert [table for table, column in tables.items() if column == "?"] == []
    distributed = {table for table, column in tables.items() if column}
    assert {"memory_memory", "facts_fact", "facts_factsource", "memory_session"} <= distributed
    assert tables["memory_auditevent"] == "workspace_id"
    assert (REFERENCE | LOCAL) & distributed == set()


@postgres_only
@pytest.mark.django_db
def test_the_schema_breaks_none_of_the_rules():
    with connection.cursor() as cursor:
        assert citus_violations(cursor) == []


@postgres_only
@pytest.mark.django_db
def test_a_new_model_that_breaks_the_rules_fails_the_check():
    class CitusProbe(models.Model):  # noqa: DJ008
        agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
        name = models.CharField(max_length=20, unique=True)
        run = models.ForeignKey(MaintenanceRun, on_delete=models.CASCADE, related_name="+")

        class Meta:
            app_label = "memory"
            db_table = "memory_citusprobe"

    class Unplaced(models.Model):  # noqa: DJ008
        label = models.CharField(max_length=20)

        class Meta:
            app_label = "memory"
            db_table = "memory_unplaced"

    try:
        # Made inside the test's transaction: rolled back with it.
        with connection.schema_editor() as editor:
            editor.create_model(CitusProbe)
            editor.create_model(Unplaced)
        with connection.cursor() as cursor:
            problems = citus_violations(cursor)
    finally:
        for model in ("citusprobe", "unplaced"):
            del apps.all_models["memory"][model]
        apps.clear_cache()
    probe = [problem for problem in problems if problem.startswith("memory_citusprobe:")]
    assert "memory_citusprobe: primary key (id) lacks agent_id" in probe
    assert any("unique index" in p and "(name) lacks agent_id" in p for p in probe)
    assert any("into memory_maintenancerun" in p for p in probe)
    assert any(p.startswith("memory_unplaced: no rule places it") for p in problems)
    assert len(problems) == len(probe) + 1  # nothing else in the schema is flagged
