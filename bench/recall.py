"""Recall latency and batch ingest rate for one agent with many memories.

    .venv/bin/python bench/recall.py --memories 10000 100000                    # SQLite
    .venv/bin/python scripts/with-postgres -- \
        .venv/bin/python bench/recall.py --memories 10000 100000

For each size: a fresh agent is filled through the product's batch store path (embedding,
entity tags, keyword index, sessions of 20 turns), then timed on recall() as an agent's own
recall is (its access recorded) with a mix of keyword-like and natural-language queries,
query embedding included. Texts are synthetic but shaped like an assistant's memories:
people, places, dates, tickets, preferences.
"""

import argparse
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
if not os.environ.get("DATABASE_URL"):
    os.environ["DEWEE_VAR_DIR"] = tempfile.mkdtemp(prefix="dewee-recall-")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dewee.settings")

import django

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from memory.recall import RecallRequest, recall  # noqa: E402
from memory.services import MemoryInput, start_session, store_memories  # noqa: E402
from tenancy.services import create_agent, default_workspace  # noqa: E402

PEOPLE = [
    "Ann",
    "Bob",
    "Chloe",
    "Dmitri",
    "Elena",
    "Farid",
    "Grace",
    "Hiro",
    "Ines",
    "Jamal",
    "Kofi",
    "Lena",
    "Mateo",
    "Nadia",
    "Omar",
    "Priya",
]
PLACES = [
    "Lisbon",
    "Berlin",
    "Osaka",
    "Nairobi",
    "Toronto",
    "Lima",
    "Oslo",
    "Dublin",
    "Austin",
    "Seoul",
    "Porto",
    "Krakow",
]
THINGS = [
    "the quarterly budget",
    "the onboarding checklist",
    "a vegetarian menu",
    "the API rate limit",
    "the staging database",
    "a standing desk",
    "the design review",
    "the hiring plan",
    "a flight upgrade",
    "the customer escalation",
    "the mobile release",
    "the offsite agenda",
    "a sourdough starter",
    "the marathon training plan",
    "the invoice template",
    "the VPN certificate",
    "a jazz concert",
    "the data retention policy",
    "a puppy named Biscuit",
]
VERBS = [
    "asked about",
    "finished",
    "is worried about",
    "wants to postpone",
    "approved",
    "complained about",
    "is excited about",
    "forgot",
    "needs help with",
    "recommended",
    "rescheduled",
    "signed off on",
    "is allergic to",
    "started",
    "reviewed",
]
TAILS = [
    "before the end of the month",
    "after the call with legal",
    "because the vendor was late",
    "and asked me to remind them on Friday",
    "while travelling",
    "for the third time",
    "and prefers email over chat",
    "with a deadline next Tuesday",
    "as a top priority",
]


def memory_text(rng: random.Random, day: datetime) -> str:
    person = rng.choice(PEOPLE)
    text = f"{person} {rng.choice(VERBS)} {rng.choice(THINGS)} {rng.choice(TAILS)}"
    roll = rng.random()
    if roll < 0.2:
        text += f" in {rng.choice(PLACES)}"
    elif roll < 0.3:
        text += f" (ticket OPS-{rng.randrange(10000, 99999)})"
    elif roll < 0.4:
        text += f" on {day:%d %B %Y}"
    return text + "."


QUERIES = [
    "What is {p} worried about?",
    "Who needs help with {t}?",
    "{t} {pl}",
    "When did {p} approve {t}?",
    "Which trips went to {pl}?",
    "OPS-{n}",
    "what does {p} prefer for communication",
    "Has anyone recommended {t}?",
]


def query_text(rng: random.Random) -> str:
    return rng.choice(QUERIES).format(
        p=rng.choice(PEOPLE),
        t=rng.choice(THINGS),
        pl=rng.choice(PLACES),
        n=rng.randrange(10000, 99999),
    )


def fill(agent, count: int, rng: random.Random, batch: int) -> float:
    start_day = datetime(2025, 1, 1, tzinfo=UTC)
    started = time.perf_counter()
    stored = 0
    while stored < count:
        session = start_session(agent=agent)
        size = min(batch, count - stored)
        items = []
        for i in range(size):
            day = start_day + timedelta(minutes=stored + i)
            items.append(
                MemoryInput(
                    content=memory_text(rng, day),
                    session_id=session.pk if (stored + i) % 100 < 20 else None,
                    importance=round(rng.uniform(0.2, 0.9), 2),
                    tags=[rng.choice(["work", "personal", "travel", "health"])],
                    created_at=day,
                )
            )
        store_memories(agent=agent, items=items)
        stored += size
        if stored % 10_000 == 0 or stored == count:
            rate = stored / (time.perf_counter() - started)
            print(f"  stored {stored:,} ({rate:.0f}/s)", file=sys.stderr)
    return count / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--batch", type=int, default=1000)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    call_command("prepare_models", verbosity=0)
    print(
        f"edition {connection.vendor}; {platform.machine()}, {os.cpu_count()} cores",
        file=sys.stderr,
    )
    rows = []
    for count in args.memories:
        rng = random.Random(count)
        agent = create_agent(
            workspace=default_workspace(), agent_id=f"recall-bench-{count}-{time.time_ns()}"
        )
        ingest_rate = fill(agent, count, rng, args.batch)
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE memory_memory")
        for _ in range(5):
            recall(
                agent=agent,
                request=RecallRequest(query=query_text(rng), top_k=10),
                record_access=True,
            )
        samples = []
        for _ in range(args.queries):
            query = query_text(rng)
            begun = time.perf_counter()
            recall(
                agent=agent,
                request=RecallRequest(query=query, top_k=10),
                record_access=True,
            )
            samples.append(time.perf_counter() - begun)
        p50 = statistics.median(samples) * 1000
        p95 = statistics.quantiles(samples, n=100)[94] * 1000
        rows.append((count, ingest_rate, p50, p95))
        print(
            f"  {count:,}: ingest {ingest_rate:.0f}/s, recall p50 {p50:.1f} ms p95 {p95:.1f} ms",
            file=sys.stderr,
        )
    print(f"\n## Recall on {connection.vendor}\n")
    print("| memories | batch ingest (memories/s) | recall p50 (ms) | recall p95 (ms) |")
    print("|---|---|---|---|")
    for count, rate, p50, p95 in rows:
        print(f"| {count:,} | {rate:.0f} | {p50:.1f} | {p95:.1f} |")


if __name__ == "__main__":
    main()
