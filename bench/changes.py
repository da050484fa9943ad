"""Changes benchmark: "what changed between T1 and T2" (facts.changes.list_changes).

    .venv/bin/python bench/changes.py                                  # embedded SQLite
    .venv/bin/python scripts/with-postgres -- .venv/bin/python bench/changes.py   # PostgreSQL

Builds ``--facts`` facts of one agent (and as many of a second agent), recorded over the
last ``--days`` days, over 1,000 users, with every kind of change: superseded (history),
disputed, resolved, deleted and restored. Then times the first page (50) of the last 7
days, for the agent, for one user, for one kind, for every agent, and the tenth page
through the cursor.
"""

import argparse
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from importlib import import_module
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
if not os.environ.get("DATABASE_URL"):
    os.environ["DEWEE_VAR_DIR"] = tempfile.mkdtemp(prefix="dewee-bench-")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dewee.settings")

import django

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.utils import timezone  # noqa: E402

from facts.changes import change_filters, list_changes  # noqa: E402
from facts.models import Fact, Status  # noqa: E402
from tenancy.models import Agent  # noqa: E402
from tenancy.services import create_agent, default_workspace  # noqa: E402

USERS = 1000


def periods_from_columns() -> None:
    """The facts' periods (the Changes list reads them), rebuilt from their columns as the
    migration that brought periods does for a database that predates them."""
    from django.apps import apps

    import_module("facts.migrations.0010_fact_periods").backfill(apps, None)


def facts_of(agent: Agent, first: int, count: int, days: int, rng: random.Random) -> list[Fact]:
    """Each fact its own slot (so any number may be current); its story by its index."""
    now = timezone.now()
    facts = []
    for i in range(first, first + count):
        recorded = now - timedelta(seconds=rng.uniform(0, days * 86400))
        later = recorded + (now - recorded) * rng.random()
        story = i % 10
        fact = Fact(
            agent=agent,
            user_ref=f"user-{i % USERS}",
            subject="user",
            predicate=f"attr_{i % 40}",
            qualifier=f"q{i}",
            value=f"value {i}",
            status=Status.CURRENT,
            recorded_at=recorded,
            last_confirmed_at=recorded,
            believed_from=recorded,
        )
        if story in (1, 2, 3):  # superseded
            fact.status, fact.believed_until = Status.HISTORY, later
        elif story == 4:  # waits for review
            fact.status, fact.believed_from = Status.DISPUTED, None
        elif story == 5:  # rejected
            fact.status, fact.believed_from, fact.disputed_until = Status.REJECTED, None, later
        elif story == 6:  # accepted
            fact.believed_from = fact.disputed_until = later
        elif story == 7:  # deleted
            fact.status, fact.believed_until, fact.deleted_at = Status.DELETED, later, later
        elif story == 8:  # deleted, then restored
            fact.deleted_at = later
            fact.restored_at = fact.believed_from = later + (now - later) * rng.random()
        facts.append(fact)
    return facts


def ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--facts", type=int, default=200_000)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    rng = random.Random(13)
    call_command("migrate", verbosity=0)
    workspace = default_workspace()
    agent = create_agent(workspace=workspace, agent_id=f"changes-bench-{rng.randrange(10**6)}")
    other = create_agent(workspace=workspace, agent_id=f"changes-other-{rng.randrange(10**6)}")
    start = time.perf_counter()
    for target in (agent, other):
        for chunk in range(0, args.facts, 10_000):
            batch = min(10_000, args.facts - chunk)
            Fact.objects.bulk_create(
                facts_of(target, chunk, batch, args.days, rng), batch_size=2000
            )
    periods_from_columns()
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    print(
        f"{connection.vendor} {platform.python_version()}: {2 * args.facts:,} facts loaded "
        f"in {time.perf_counter() - start:.1f} s"
    )

    now = timezone.now()
    week = now - timedelta(days=7)

    def page(agents, **options):
        cursor = options.pop("cursor", None)
        filters = change_filters(since=week, until=None, now=now, **options)
        return list_changes(agents=agents, filters=filters, cursor=cursor, limit=50)

    tenth = None
    for _ in range(9):
        tenth = page([agent], cursor=tenth.next_cursor if tenth else None)
    assert tenth is not None
    cases = {
        "agent, 7 days, first page": lambda: page([agent]),
        "agent, one user, 7 days": lambda: page([agent], user="user-7"),
        "agent, kind=deleted, 7 days": lambda: page([agent], kind="deleted"),
        "every agent, 7 days": lambda: page(Agent.objects.filter(workspace=workspace)),
        "agent, tenth page (cursor)": lambda: page([agent], cursor=tenth.next_cursor),
    }
    for name, case in cases.items():
        samples = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            case()
            samples.append(time.perf_counter() - t)
        samples.sort()
        p95 = samples[int(len(samples) * 0.95) - 1]
        print(f"  {name:32} p50 {ms(statistics.median(samples)):8} ms   p95 {ms(p95):8} ms")


if __name__ == "__main__":
    main()
