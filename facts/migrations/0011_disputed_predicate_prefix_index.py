"""The review queue's predicate filter matches disputes by prefix, whatever the case:
``UPPER(predicate::text) LIKE 'EMP%'`` on PostgreSQL (Django's istartswith), among the
disputed facts only. The prefix index of every fact (0007) reads a common predicate's
current and past facts too, ten for each dispute; this one holds the disputes alone, so
the queue's count reads just the matching disputes, and the page of a rare prefix sorts
them rather than walk every older dispute (facts.triage). Built concurrently, so facts keep
being written. Only on PostgreSQL, as 0007."""

from django.db import migrations

from dewee.migration_ops import RunSQLOn


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("facts", "0010_fact_periods")]

    operations = [
        RunSQLOn(
            "postgresql",
            # Without IF NOT EXISTS: a build that failed leaves an invalid index of this
            # name, which the next migrate must report rather than take for done.
            [
                "CREATE INDEX CONCURRENTLY fact_disputed_predicate_prefix_idx ON facts_fact "
                "(UPPER(predicate::text) text_pattern_ops) WHERE status = 'disputed'"
            ],
            ["DROP INDEX CONCURRENTLY IF EXISTS fact_disputed_predicate_prefix_idx"],
        ),
    ]
