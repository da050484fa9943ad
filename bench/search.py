"""Server time of the dashboard's forgiving filters, suggestions, "all agents" lists and
global search, with the query plans that serve them.

    .venv/bin/python scripts/with-postgres -- .venv/bin/python bench/search.py --facts 200000
    .venv/bin/python bench/search.py --facts 50000                  # SQLite, smaller

Loads FACTS facts for one agent (users x 100, the status mix of bench/facts.py) and a small
second workspace's agent, ANALYZEs, prints the plans of the prefix-filtered page, the
status counts and the suggestions, then requests pages in-process through Django's test
client as a staff operator (the whole view). Target: p50 <= 100 ms on PostgreSQL.
A second run on the same database (``with-postgres --datadir DIR --keep``) reuses the data.
"""

import argparse
import os
import random
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault(
    "DEWEE_STATICFILES_STORAGE", "django.contrib.staticfiles.storage.StaticFilesStorage"
)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dewee.settings")

import django

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.utils import timezone  # noqa: E402

from bench.facts import bulk_facts  # noqa: E402
from facts.models import Fact  # noqa: E402
from facts.queries import FactFilters, filter_facts, suggest_keys  # noqa: E402
from tenancy.access import Access  # noqa: E402
from tenancy.models import Agent  # noqa: E402
from tenancy.services import create_agent, create_workspace, default_workspace  # noqa: E402

AGENT = "search-bench"


def load(facts: int) -> Agent:
    existing = Agent.objects.filter(agent_id=AGENT).first()
    if existing is not None:
        return existing
    rng = random.Random(5)
    agent = create_agent(workspace=default_workspace(), agent_id=AGENT)
    other = create_agent(workspace=create_workspace(slug="other", name="Other"), agent_id="bot")
    start = timezone.now() - timedelta(days=400)
    Fact.objects.bulk_create(bulk_facts(other, "ana", 100, rng, start))
    began = time.perf_counter()
    for u in range(max(1, facts // 100)):
        Fact.objects.bulk_create(bulk_facts(agent, f"user-{u}", 100, rng, start), batch_size=5000)
        if u % 1000 == 999:
            print(
                f"  {(u + 1) * 100:,} facts ({time.perf_counter() - began:.0f} s)", file=sys.stderr
            )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return agent


def explain(label: str, queryset: Any) -> None:
    print(f"\n### plan: {label}\n```")
    print(queryset.explain(analyze=connection.vendor == "postgresql"))
    print("```")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--facts", type=int, default=200_000)
    parser.add_argument("--requests", type=int, default=40)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    agent = load(args.facts)
    users = Fact.objects.filter(agent=agent).values("user_ref").distinct().count()
    staff = get_user_model().objects.filter(username="search-bench").first()
    if staff is None:
        staff = get_user_model().objects.create_user(
            username="search-bench", password="x", is_staff=True
        )
    everyone = Access(actor="bench")
    prefix = FactFilters(user="USER-12", prefix=True)
    explain("page, one agent, user prefix", filter_facts(agent, prefix).order_by("-id")[:26])
    explain("page, all agents, user prefix", filter_facts(everyone, prefix).order_by("-id")[:26])
    explain(
        "page, all agents, no filter", filter_facts(everyone, FactFilters()).order_by("-id")[:26]
    )
    explain(
        "count, all agents, rejected",
        filter_facts(everyone, FactFilters(statuses=["rejected"]))[:1001],
    )
    explain(
        "suggestions, one agent, user",
        Fact.objects.filter(agent=agent, user_ref__istartswith="user-4")
        .order_by()
        .values_list("user_ref", flat=True)[:500],
    )
    rng = random.Random(7)
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(staff)
    cases = {
        "one agent, user prefix (exact id)": (
            "/dashboard/facts/",
            lambda: {"agent": AGENT, "user": f"USER-{rng.randrange(users)}"},
        ),
        "one agent, user prefix 'user-1'": (
            "/dashboard/facts/",
            lambda: {"agent": AGENT, "user": "user-1"},
        ),
        "one agent, predicate prefix 'emp'": (
            "/dashboard/facts/",
            lambda: {"agent": AGENT, "predicate": "emp"},
        ),
        "all agents, no filter": ("/dashboard/facts/", lambda: {}),
        "all agents, status=rejected": ("/dashboard/facts/", lambda: {"status": "rejected"}),
        "all agents, user prefix": (
            "/dashboard/facts/",
            lambda: {"user": f"user-{rng.randrange(users)}"},
        ),
        "suggest user": (
            "/dashboard/facts/suggest/",
            lambda: {"field": "user", "q": f"user-{rng.randrange(100)}", "agent": AGENT},
        ),
        "suggest subject, all agents": (
            "/dashboard/facts/suggest/",
            lambda: {"field": "subject", "q": "us"},
        ),
        "all agents memories": ("/dashboard/memory/", lambda: {}),
        "all agents sessions": ("/dashboard/memory/sessions/", lambda: {}),
        "global search, user prefix": (
            "/dashboard/search/",
            lambda: {"q": f"user-{rng.randrange(users)}"},
        ),
        "global search, value words": (
            "/dashboard/search/",
            lambda: {"q": f"value {rng.randrange(1000)}"},
        ),
    }
    print(f"\n## Dashboard search and filters on {connection.vendor} ({args.facts:,} facts)\n")
    print("| request | p50 ms | p95 ms |")
    print("|---|---|---|")
    for name, (url, make) in cases.items():
        times: list[float] = []
        for _ in range(args.requests):
            begun = time.perf_counter()
            response = client.get(url, make())
            times.append(time.perf_counter() - begun)
            if response.status_code == 404:
                break
            assert response.status_code == 200, (name, response.status_code)
        if len(times) < 2:
            print(f"| {name} | (not served) | |")
            continue
        p95 = statistics.quantiles(times, n=100)[94]
        print(f"| {name} | {1000 * statistics.median(times):.1f} | {1000 * p95:.1f} |")
    suggest_keys(agent, field="user", prefix="user-1")


if __name__ == "__main__":
    main()
