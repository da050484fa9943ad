"""Ingest rate with the knowledge graph built as memories arrive, against the same store
with it off (DEWEE_GRAPH_ON_STORE off / worker / inline), interleaved in one process so all
see the same machine. In worker mode the stores queue graph jobs; after each fill they are
run in order, as the worker would, and timed: the worker's build rate.

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
from django_q.models import OrmQ  # noqa: E402
from django_q.signing import SignedPackage  # noqa: E402

from bench.recall import memory_text  # noqa: E402
from memory.models import Entity, MemoryEdge  # noqa: E402
from memory.services import MemoryInput, start_session, store_memories  # noqa: E402
from memory.tasks import build_graph  # noqa: E402
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


def run_graph_jobs() -> tuple[int, float]:
    """What the worker does after the stores: the queued graph jobs (one per agent, each
    queuing the next while a catch-up goes on), timed. Returns the memories built and the
    seconds it took."""
    started, built = time.perf_counter(), 0
    while True:
        jobs = [SignedPackage.loads(q.payload) for q in OrmQ.objects.order_by("id")]
        OrmQ.objects.all().delete()
        graph_jobs = [job for job in jobs if job["func"] == "memory.tasks.build_graph"]
        if not graph_jobs:
            return built, time.perf_counter() - started
        for job in graph_jobs:
            done = build_graph(*job["args"])["memories"]
            built += done if isinstance(done, int) else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=5000)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--singles", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--pending-list-too",
        action="store_true",
        help="PostgreSQL: also fill with the keyword index's pending list on (GIN fastupdate, "
        "as before migration memory 0027), graph by the worker: what taking each entry into "
        "the index at once costs a store.",
    )
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    call_command("prepare_models", verbosity=0)
    print(f"edition {connection.vendor}; {os.cpu_count()} cores", file=sys.stderr)
    modes: tuple[str, ...] = ("off", "worker", "inline")
    if args.pending_list_too and connection.vendor == "postgresql":
        modes += ("worker, pending list",)
    rates: dict[str, list[tuple[float, float, float]]] = {mode: [] for mode in modes}
    for round_no in range(args.rounds):
        for mode in modes:
            pending = mode.endswith("pending list")
            if connection.vendor == "postgresql":
                with connection.cursor() as cursor:
                    switch = "on" if pending else "off"
                    cursor.execute(f"ALTER INDEX memory_search_idx SET (fastupdate = {switch})")
            settings.DEWEE_GRAPH_ON_STORE = mode.split(",")[0]
            OrmQ.objects.all().delete()
            agent = create_agent(
                workspace=default_workspace(), agent_id=f"ingest-{round_no}-{mode}"
            )
            batch_rate, single_rate = fill(
                agent, args.memories, args.batch, args.singles, seed=round_no
            )
            built, seconds = run_graph_jobs()
            worker_rate = built / seconds if built else 0.0
            rates[mode].append((batch_rate, single_rate, worker_rate))
            edges = MemoryEdge.objects.filter(agent=agent).count()
            entities = Entity.objects.filter(agent=agent).count()
            print(
                f"round {round_no} graph {mode}: batch {batch_rate:.0f}/s, single "
                f"{single_rate:.1f}/s, worker {worker_rate:.0f}/s ({entities} entities, "
                f"{edges} edges)",
                file=sys.stderr,
            )
    print(
        "| graph | batch ingest (memories/s) | single stores (memories/s) "
        "| worker builds (memories/s) |"
    )
    print("|---|---|---|---|")
    medians = {}
    for mode in modes:
        medians[mode] = tuple(statistics.median(r[k] for r in rates[mode]) for k in range(3))
        batch, single, worker = medians[mode]
        print(
            f"| {mode} | {batch:,.0f} | {single:,.1f} | {worker:,.0f} |"
            if worker
            else f"| {mode} | {batch:,.0f} | {single:,.1f} | - |"
        )
    for mode in modes[1:]:
        print(
            f"\ngraph {mode}: batch {100 * medians[mode][0] / medians['off'][0]:.0f}% and single "
            f"{100 * medians[mode][1] / medians['off'][1]:.0f}% of the rate without it"
        )


if __name__ == "__main__":
    main()
