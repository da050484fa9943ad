"""Ingest rate with the knowledge graph built as memories arrive, against the same store
with it off (DEWEE_GRAPH_ON_STORE), interleaved in one process so both see the same machine.

    .venv/bin/python bench/ingest.py                                            # SQLite
    .venv/bin/python scripts/with-postgres -- .venv/bin/python bench/ingest.py  # PostgreSQL

Each round fills a fresh agent for each mode (off, then on) through store_memories: first
--memories memories in batches of --batch (a fifth of them in sessions, as bench/recall.py
does), then --singles memories stored one at a time on top of them (each its own request's
work: embedding, tags, graph). The texts are bench/recall.py's synthetic assistant memories
(people, places, dates, tickets). Prints each mode's median rate over --rounds rounds and
the ratio on / off.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
if not os.environ.get("DATABASE_URL"):
    os.environ["DEWEE_VAR_DIR"] = tempfile.mkdtemp(prefix="dewee-ingest-")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dewee.settings")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from bench.recall import memory_text  # noqa: E402
from memory.models import Entity, MemoryEdge  # noqa: E402
from memory.services import MemoryInput, start_session, store_memories  # noqa: E402
from tenancy.services import create_agent, default_workspace  # noqa: E402


def fill(agent, count: int, batch: int, singles: int, seed: int) -> tuple[float, float]:
    import random

    rng = random.Random(seed)
    start_day = datetime(2025, 1, 1, tzinfo=UTC)
    started = time.perf_counter()
    stored = 0
    while stored < count:
        session = start_session(agent=agent)
        size = min(batch, count - stored)
        items = [
            MemoryInput(
                content=memory_text(rng, start_day + timedelta(minutes=stored + i)),
                session_id=session.pk if (stored + i) % 100 < 20 else None,
                created_at=start_day + timedelta(minutes=stored + i),
            )
            for i in range(size)
        ]
        store_memories(agent=agent, items=items)
        stored += size
    batch_rate = count / (time.perf_counter() - started)
    session = start_session(agent=agent)
    started = time.perf_counter()
    for i in range(singles):
        day = start_day + timedelta(minutes=count + i)
        item = MemoryInput(content=memory_text(rng, day), session_id=session.pk, created_at=day)
        store_memories(agent=agent, items=[item])
    single_rate = singles / (time.perf_counter() - started)
    return batch_rate, single_rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=5000)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--singles", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    call_command("prepare_models", verbosity=0)
    print(f"edition {connection.vendor}; {os.cpu_count()} cores", file=sys.stderr)
    rates: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
    for round_no in range(args.rounds):
        for graph in (False, True):
            settings.DEWEE_GRAPH_ON_STORE = graph
            agent = create_agent(
                workspace=default_workspace(), agent_id=f"ingest-{round_no}-{int(graph)}"
            )
            batch_rate, single_rate = fill(
                agent, args.memories, args.batch, args.singles, seed=round_no
            )
            rates[graph].append((batch_rate, single_rate))
            edges = MemoryEdge.objects.filter(agent=agent).count()
            entities = Entity.objects.filter(agent=agent).count()
            print(
                f"round {round_no} graph {'on ' if graph else 'off'}: batch {batch_rate:.0f}/s, "
                f"single {single_rate:.1f}/s ({entities} entities, {edges} edges)",
                file=sys.stderr,
            )
    print("| graph | batch ingest (memories/s) | single stores (memories/s) |")
    print("|---|---|---|")
    medians = {}
    for graph in (False, True):
        batch = statistics.median(r[0] for r in rates[graph])
        single = statistics.median(r[1] for r in rates[graph])
        medians[graph] = (batch, single)
        print(f"| {'on' if graph else 'off'} | {batch:,.0f} | {single:,.1f} |")
    print(
        f"\nwith the graph: batch {100 * medians[True][0] / medians[False][0]:.0f}% and single "
        f"{100 * medians[True][1] / medians[False][1]:.0f}% of the rate without it"
    )


if __name__ == "__main__":
    main()
