"""Server time of the dashboard's pages with a million facts.

    .venv/bin/python scripts/with-postgres -- .venv/bin/python bench/dashboard.py
    .venv/bin/python bench/dashboard.py --facts 200000          # SQLite, smaller
    # Load once, then time any pages on the same database:
    .venv/bin/python scripts/with-postgres --datadir /tmp/dash-pg --keep -- \
        .venv/bin/python bench/dashboard.py --url '/dashboard/review/' \
        --url '/dashboard/memory/people/?user={user}' --url '/dashboard/facts/?agent={agent}'

Loads FACTS facts for one agent (10,000 users x 100, the status mix of bench/facts.py, a
tenth disputed) with bulk inserts; then, of every 10th user, 5 current slots get 2 disputed
rivals each (the review queue's groups), and every 50th user 3 sessions of 5 memories. A
database kept from an earlier run is reused as it is (an interrupted load resumes). Then it
requests pages in-process through Django's test client as a staff operator (the whole view:
access check, form, queries, template), full page and htmx partial taking turns: the Facts
tab's filters (counts per status, keyset page), or with --url the given pages. Target: p50
<= 100 ms on PostgreSQL; value search p95 <= 200 ms.
"""

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from urllib.parse import quote, urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# Static files are served from the apps here: a benchmark run has no collectstatic.
os.environ.setdefault(
    "DEWEE_STATICFILES_STORAGE", "django.contrib.staticfiles.storage.StaticFilesStorage"
)

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.utils import timezone

from bench.facts import bulk_facts
from facts.models import Fact, Status, Verification
from memory.models import Memory, MemoryType, Session, SessionState
from tenancy.models import Agent
from tenancy.services import create_agent, default_workspace

BENCH_AGENT = "dash-bench"
PER_USER = 100


def load_facts(total: int, rng: random.Random) -> tuple[Agent, int]:
    """The bench agent with ``total`` facts (PER_USER per user). A database kept from an
    earlier run (scripts/with-postgres --datadir DIR --keep) is reused: only the users not
    loaded yet are, so an interrupted load resumes and a second run starts timing at once."""
    workspace = default_workspace()
    agent = Agent.objects.filter(workspace=workspace, agent_id=BENCH_AGENT).first()
    if agent is None:
        agent = create_agent(workspace=workspace, agent_id=BENCH_AGENT)
    users = max(1, total // PER_USER)
    loaded = Fact.objects.filter(agent=agent).values("user_ref").distinct().count()
    if loaded >= users:
        return agent, users
    # A user's facts are one bulk insert: a user half-loaded by an interrupted run is not.
    start = timezone.now() - timedelta(days=400)
    began = time.perf_counter()
    for u in range(loaded, users):
        Fact.objects.bulk_create(
            bulk_facts(agent, f"user-{u}", PER_USER, rng, start), batch_size=5000
        )
        if u % 1000 == 999:
            print(
                f"  {(u + 1) * PER_USER:,} facts ({time.perf_counter() - began:.0f} s)",
                file=sys.stderr,
            )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return agent, users


# Of every GROUP_EVERY-th user, GROUPED_SLOTS current slots get RIVALS disputed values each:
# the review queue's groups (the load's own disputes are one to a slot, with no current
# value). Of every PEOPLE_EVERY-th user, SESSIONS sessions of TURNS memories each.
GROUP_EVERY, GROUPED_SLOTS, RIVALS = 10, 5, 2
PEOPLE_EVERY, SESSIONS, TURNS = 50, 3, 5


def seed_people(agent: Agent, users: int, rng: random.Random) -> None:
    """Disputes grouped by slot and memories in sessions for some users, for the review queue
    and the person page; once per database (a kept one already has them)."""
    if Memory.objects.filter(agent=agent).exists():
        return
    began = time.perf_counter()
    grouped = [f"user-{u}" for u in range(0, users, GROUP_EVERY)]
    rivals = []
    per_user: dict[str, int] = {}
    currents = Fact.objects.filter(agent=agent, user_ref__in=grouped, status=Status.CURRENT)
    for fact in currents.order_by("user_ref", "id").iterator(chunk_size=5000):
        if per_user.get(fact.user_ref, 0) >= GROUPED_SLOTS:
            continue
        per_user[fact.user_ref] = per_user.get(fact.user_ref, 0) + 1
        for n in range(RIVALS):
            recorded = fact.recorded_at + timedelta(days=1 + n)
            rivals.append(
                Fact(
                    agent=agent,
                    user_ref=fact.user_ref,
                    subject=fact.subject,
                    predicate=fact.predicate,
                    qualifier=fact.qualifier,
                    value=f"rival {n} {rng.randrange(10**6)} of {fact.predicate}",
                    status=Status.DISPUTED,
                    verification=Verification.INFERRED,
                    confidence=0.6,
                    recorded_at=recorded,
                    last_confirmed_at=recorded,
                )
            )
    Fact.objects.bulk_create(rivals, batch_size=5000)
    start = timezone.now() - timedelta(days=60)
    memories = 0
    for u in range(0, users, PEOPLE_EVERY):
        user = f"user-{u}"
        for s in range(SESSIONS):
            began_at = start + timedelta(days=rng.randrange(60), seconds=u)
            ended = s < SESSIONS - 1
            session = Session.objects.create(
                agent=agent,
                user_ref=user,
                state=SessionState.ENDED if ended else SessionState.ACTIVE,
                ended_at=began_at + timedelta(minutes=30) if ended else None,
                summary=f"{user} talked about value {rng.randrange(1000)}" if ended else "",
            )
            Memory.objects.bulk_create(
                Memory(
                    agent=agent,
                    session=session,
                    user_ref=user,
                    content=f"{user} said thing {t} of session {s}: value {rng.randrange(10**6)}",
                    memory_type=MemoryType.EPISODIC,
                    importance=rng.random(),
                    created_at=began_at + timedelta(minutes=t),
                    updated_at=began_at + timedelta(minutes=t),
                )
                for t in range(TURNS)
            )
            memories += TURNS
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    print(
        f"  seeded {len(rivals):,} grouped disputes, {memories:,} memories in sessions "
        f"({time.perf_counter() - began:.0f} s)",
        file=sys.stderr,
    )


def timed(client: Client, url: Callable[[], str], requests: int) -> list[float]:
    """Server times of ``requests`` GETs, full pages and htmx partials taking turns (``url``
    gives each request's path and query): the full pages' p50 and p95 and the partials' p50
    and p95, in ms."""
    full: list[float] = []
    partial: list[float] = []
    for i in range(requests):
        headers = {"HX-Request": "true"} if i % 2 else {}
        path = url()
        begun = time.perf_counter()
        response = client.get(path, headers=headers)
        elapsed = time.perf_counter() - begun
        assert response.status_code == 200, (path, response.status_code)
        (partial if headers else full).append(elapsed)
    return [*p50_p95(full), *p50_p95(partial)]


def p50_p95(samples: list[float]) -> list[float]:
    p95 = statistics.quantiles(samples, n=100)[94] if len(samples) > 1 else samples[0]
    return [1000 * statistics.median(samples), 1000 * p95]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--facts", type=int, default=1_000_000)
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument(
        "--url",
        action="append",
        default=[],
        metavar="PATH",
        help="time this dashboard URL instead of the Facts tab's filters (repeatable); "
        "{user} becomes a user with grouped disputes, sessions and memories (another one "
        "each request), {agent} the agent's qualified id",
    )
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    rng = random.Random(3)
    agent, users = load_facts(args.facts, rng)
    seed_people(agent, users, rng)
    staff = get_user_model().objects.create_user(
        username=f"bench-{time.time_ns()}", password="x", is_staff=True
    )
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(staff)
    if args.url:
        people = [f"user-{u}" for u in range(0, users, PEOPLE_EVERY)]
        print(f"\n## Dashboard pages on {connection.vendor} ({args.facts:,} facts)\n")
        print("| URL | full page p50 ms | p95 ms | htmx partial p50 ms | p95 ms |")
        print("|---|---|---|---|---|")
        for url in args.url:

            def filled(url: str = url) -> str:
                return url.replace("{user}", quote(rng.choice(people))).replace(
                    "{agent}", quote(agent.qualified_id)
                )

            times = timed(client, filled, args.requests)
            print(f"| `{url}` | " + " | ".join(f"{t:.1f}" for t in times) + " |")
        return
    now = timezone.now()
    cases: dict[str, Callable[[], dict[str, str]]] = {
        "no filter": lambda: {},
        "status=disputed": lambda: {"status": "disputed"},
        "user": lambda: {"user": f"user-{rng.randrange(users)}"},
        "predicate + status=current": lambda: {"predicate": "employer", "status": "current"},
        "as of a date": lambda: {
            "user": f"user-{rng.randrange(users)}",
            "as_of": (now - timedelta(days=rng.randrange(400))).strftime("%Y-%m-%dT%H:%M"),
        },
        "value search": lambda: {"q": f"value {rng.randrange(1000)}"},
    }
    print(f"\n## Dashboard Facts tab on {connection.vendor} ({args.facts:,} facts)\n")
    print("| filter | full page p50 ms | p95 ms | htmx table p50 ms |")
    print("|---|---|---|---|")
    for name, make in cases.items():

        def facts_url(make: Callable[[], dict[str, str]] = make) -> str:
            return "/dashboard/facts/?" + urlencode({"agent": agent.agent_id, **make()})

        full_p50, full_p95, partial_p50, _ = timed(client, facts_url, args.requests)
        print(f"| {name} | {full_p50:.1f} | {full_p95:.1f} | {partial_p50:.1f} |")


if __name__ == "__main__":
    main()
