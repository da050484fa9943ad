"""Server time of the dashboard's audit log with a million audit events.

    .venv/bin/python scripts/with-postgres -- .venv/bin/python bench/audit.py
    DATABASE_URL=sqlite:////tmp/audit.sqlite3 .venv/bin/python bench/audit.py --events 200000

Loads EVENTS audit events over two workspaces of 5 agents each (fact, memory and member
events about 10,000 users, by 50 actors, over 400 days) with bulk inserts, then requests
filtered pages of /dashboard/audit/ (staff, every workspace) and /app/audit/ (a manager of
one workspace) in-process through Django's test client: the whole view (access check, form,
keyset page, links to the targets, template). Target: p50 <= 100 ms.
"""

import argparse
import os
import random
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault(
    "DEWEE_STATICFILES_STORAGE", "django.contrib.staticfiles.storage.StaticFilesStorage"
)

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dewee.settings")
django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.utils import timezone  # noqa: E402

from tenancy.models import AuditAction, AuditEvent, MemberRole, WorkspaceMember  # noqa: E402
from tenancy.services import create_agent, create_workspace  # noqa: E402

ACTIONS = [
    (AuditAction.FACT_RESOLVE, "fact"),
    (AuditAction.FACT_DELETE, "fact"),
    (AuditAction.MEMORY_DELETE, "memory"),
    (AuditAction.MEMBER_ADD, "member"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--requests", type=int, default=60)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    rng = random.Random(5)
    stamp = time.time_ns()
    workspaces = [create_workspace(slug=f"audit-{stamp}-{n}") for n in range(2)]
    agents = [create_agent(workspace=w, agent_id=f"bot-{n}") for w in workspaces for n in range(5)]
    start = timezone.now() - timedelta(days=400)
    step = timedelta(days=400) / args.events
    began = time.perf_counter()
    batch: list[AuditEvent] = []
    for n in range(args.events):
        agent = agents[n % len(agents)]
        action, kind = ACTIONS[rng.randrange(len(ACTIONS))]
        batch.append(
            AuditEvent(
                workspace_id=agent.workspace_id,
                agent=None if kind == "member" else agent,
                actor=f"operator:person-{rng.randrange(50)}",
                action=action,
                target_type=kind,
                target_id=str(rng.randrange(1, 10**9)),
                details={"user": f"user-{rng.randrange(10_000)}", "reason": ""},
            )
        )
        if len(batch) == 10_000:
            AuditEvent.objects.bulk_create(batch)
            batch = []
            print(f"  {n + 1:,} events ({time.perf_counter() - began:.0f} s)", file=sys.stderr)
    AuditEvent.objects.bulk_create(batch)
    # created_at is set on insert: spread the events over 400 days, in id order (on
    # PostgreSQL; on SQLite they all stay "now", so a date filter there finds all or none).
    first = AuditEvent.objects.order_by("id").values_list("id", flat=True).first() or 0
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "UPDATE memory_auditevent SET created_at = %s + (id - %s) * %s WHERE id >= %s",
                [start, first, step, first],
            )
        cursor.execute("ANALYZE")
    users = get_user_model().objects
    staff = users.create_user(username=f"bench-{stamp}", is_staff=True)
    manager = users.create_user(username=f"bench-m-{stamp}")
    WorkspaceMember.objects.create(user=manager, workspace=workspaces[0], role=MemberRole.MANAGER)
    clients = {}
    for who, user in (("staff", staff), ("manager", manager)):
        clients[who] = Client(HTTP_HOST="127.0.0.1")
        clients[who].force_login(user)
    today = timezone.localdate()
    print(f"\n## Audit log on {connection.vendor} ({args.events:,} events)\n")
    print("| who | filter | p50 ms | p95 ms |")
    print("|---|---|---|---|")
    for who, client in clients.items():
        url = "/dashboard/audit/" if who == "staff" else "/app/audit/"
        agent_ref = agents[3].qualified_id if who == "staff" else agents[3].agent_id
        cases = {
            "no filter": lambda: {},
            "action": lambda: {"action": "fact.delete"},
            "actor": lambda: {"actor": f"person-{rng.randrange(50)}"},
            "agent": lambda: {"agent": agent_ref},  # noqa: B023 (used in this iteration)
            "user": lambda: {"user": f"user-{rng.randrange(10_000)}"},
            "from, to": lambda: {
                "since": (today - timedelta(days=rng.randrange(7, 400))).isoformat(),
                "until": (today - timedelta(days=rng.randrange(0, 7))).isoformat(),
            },
        }
        for name, make in cases.items():
            times: list[float] = []
            for _ in range(args.requests):
                params = make()
                begun = time.perf_counter()
                response = client.get(url, params)
                times.append(time.perf_counter() - begun)
                assert response.status_code == 200, response.status_code
            p95 = statistics.quantiles(times, n=100)[94]
            print(f"| {who} | {name} | {1000 * statistics.median(times):.1f} | {1000 * p95:.1f} |")


if __name__ == "__main__":
    main()
