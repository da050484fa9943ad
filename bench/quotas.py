"""What a quota costs a store: the p50 of storing one memory into a large agent with no
quota, and with hard quotas of every kind on the agent and on its workspace (the most a
store can be asked to check), interleaved in blocks so both see the same machine.

    .venv/bin/python bench/quotas.py                                            # SQLite
    .venv/bin/python scripts/with-postgres -- .venv/bin/python bench/quotas.py  # PostgreSQL

The agent holds --memories memories: 1000 stored through store_memories (bench/recall.py's
synthetic texts), the rest copies of their rows; the measured stores go on top of them. Also
prints the p50 of the quota check alone (check_quotas in a transaction, nothing stored).
``--refused`` then also sets a hard memories quota at the agent's count, on the agent and
its workspace, and prints the p50 of a store refused by it and of the refusing check alone.
"""

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
if not os.environ.get("DATABASE_URL"):
    os.environ["DEWEE_VAR_DIR"] = tempfile.mkdtemp(prefix="dewee-quotas-")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dewee.settings")

import django

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402

from bench.recall import memory_text  # noqa: E402
from memory.exceptions import QuotaExceeded  # noqa: E402
from memory.models import Memory  # noqa: E402
from memory.quotas import Usage, check_quotas, set_quotas  # noqa: E402
from memory.services import MemoryInput, store_memories  # noqa: E402
from tenancy.models import Agent  # noqa: E402
from tenancy.quotas import QUOTA_LIMIT_MAX, QuotaLimit  # noqa: E402
from tenancy.services import create_agent, default_workspace  # noqa: E402

KINDS = ("memories", "storage_bytes", "metadata_bytes")


def p50_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=20_000)
    parser.add_argument("--stores", type=int, default=400, help="measured stores per setting")
    parser.add_argument("--block", type=int, default=25)
    parser.add_argument("--refused", action="store_true", help="also time refused writes")
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    workspace = default_workspace()
    agent = create_agent(workspace=workspace, agent_id=f"quota-bench-{int(time.time())}")
    rng = random.Random(7)
    day = datetime(2025, 1, 1, tzinfo=UTC)
    started = time.perf_counter()
    seed = store_memories(
        agent=agent,
        items=[
            MemoryInput(
                content=memory_text(rng, day + timedelta(minutes=n)),
                metadata={"n": n},
                created_at=day + timedelta(minutes=n),
            )
            for n in range(min(1000, args.memories))
        ],
    )
    # The rest are copies of those rows (vectors, sizes and all; the keyword index fills by
    # its triggers): embedding 100k texts here would take the better part of an hour.
    fields = ("content", "metadata", "embedding", "embedding_model", "stored_bytes")
    for start in range(len(seed), args.memories, 5000):
        Memory.objects.bulk_create(
            [
                Memory(
                    agent=agent,
                    created_at=day,
                    updated_at=day,
                    metadata_bytes=seed[n % len(seed)].metadata_bytes,
                    **{f: getattr(seed[n % len(seed)], f) for f in fields},
                )
                for n in range(start, min(start + 5000, args.memories))
            ]
        )
    print(
        f"{connection.vendor}: filled {args.memories} memories in "
        f"{time.perf_counter() - started:.0f} s"
    )

    def limit(on: bool) -> None:
        limits = {k: QuotaLimit(QUOTA_LIMIT_MAX) if on else None for k in KINDS}
        set_quotas(workspace=workspace, agent=agent, limits=limits, actor="bench")
        set_quotas(workspace=workspace, limits=limits, actor="bench")

    times: dict[bool, list[float]] = {False: [], True: []}
    checks: dict[bool, list[float]] = {False: [], True: []}
    n = args.memories
    for block in range(2 * args.stores // args.block):
        on = block % 2 == 1
        limit(on)
        for _ in range(args.block):
            item = MemoryInput(content=memory_text(rng, day + timedelta(minutes=n)))
            n += 1
            began = time.perf_counter()
            store_memories(agent=agent, items=[item])
            times[on].append(time.perf_counter() - began)
            began = time.perf_counter()
            with transaction.atomic():
                check_quotas(agent=agent, adding=Usage(1, 200, 10))
            checks[on].append(time.perf_counter() - began)
    for on in (False, True):
        label = "hard quotas (agent + workspace, 3 kinds)" if on else "no quota"
        print(
            f"{connection.vendor}  {label:42}  store p50 {p50_ms(times[on]):6.2f} ms  "
            f"check p50 {p50_ms(checks[on]):6.2f} ms  ({len(times[on])} stores)"
        )

    if args.refused:
        refused(agent, args.stores, rng, day + timedelta(minutes=n))


def refused(agent: Agent, stores: int, rng: random.Random, when: datetime) -> None:
    """Stores and checks refused by a hard memories quota that is full."""
    full = Memory.objects.filter(agent=agent).count()
    limits = {"memories": QuotaLimit(full)}
    set_quotas(workspace=agent.workspace, agent=agent, limits=limits, actor="bench")
    set_quotas(workspace=agent.workspace, limits=limits, actor="bench")
    times: list[float] = []
    checks: list[float] = []
    for _ in range(stores):
        item = MemoryInput(content=memory_text(rng, when))
        began = time.perf_counter()
        try:
            store_memories(agent=agent, items=[item])
        except QuotaExceeded:
            times.append(time.perf_counter() - began)
        began = time.perf_counter()
        try:
            with transaction.atomic():
                check_quotas(agent=agent, adding=Usage(1, 200, 10))
        except QuotaExceeded:
            checks.append(time.perf_counter() - began)
    assert len(times) == len(checks) == stores, "a write at the full quota was not refused"
    label = f"refused at a full hard quota ({full})"
    print(
        f"{connection.vendor}  {label:42}  store p50 {p50_ms(times):6.2f} ms  "
        f"check p50 {p50_ms(checks):6.2f} ms  ({stores} stores)"
    )


if __name__ == "__main__":
    main()
