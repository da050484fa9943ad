"""Decay benchmark: one pass over many memories, a repeat pass, and recalls during a pass.

    .venv/bin/python bench/decay.py --memories 100000                          # SQLite
    .venv/bin/python scripts/with-postgres -- .venv/bin/python bench/decay.py  # PostgreSQL, 1M

Builds N memories (default 1,000,000) for a handful of agents straight into the table with
set-based inserts (no embeddings; short texts; the keyword index follows by trigger or
generated column as in production), with a spread of types, importances, ages and access
counts, in a database of its own (SQLite: a temporary file; PostgreSQL: the DATABASE_URL
server). Then times:

- the first decay pass (every memory is months behind its curve, so nearly all are written);
- a second pass at the same instant (idempotent: should write nothing);
- a pass one hour later (the steady state of the hourly schedule);
- a dry run;
- recall-style work from another thread before and during the first pass: the top ten of
  an agent by importance, a recall's scoring read (50 ids by primary key), and the access
  update of ten memories (record_access), reported as p50/p95 and as a ratio.
"""

import argparse
import os
import platform
import random
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
if not os.environ.get("DATABASE_URL"):
    os.environ["DEWEE_VAR_DIR"] = tempfile.mkdtemp(prefix="dewee-decay-")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dewee.settings")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, connections  # noqa: E402
from django.utils import timezone  # noqa: E402

from memory.models import Memory  # noqa: E402
from memory.services import DecayResult, decay_pass, record_access  # noqa: E402
from tenancy.models import Agent  # noqa: E402
from tenancy.services import create_agent, default_workspace  # noqa: E402

TYPES = ["episodic", "episodic", "semantic", "procedural", "working"]
WORDS = ["Lisbon", "the offsite", "ticket INC-4021", "Ann", "the deploy", "tea", "Kofi", "Q3"]
CHUNK = 100_000


def ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def percentile(samples: list[float], q: int) -> float:
    return statistics.quantiles(samples, n=100)[q - 1] if len(samples) > 1 else samples[0]


def _case(expression: str, values: Sequence[object]) -> str:
    arms = " ".join(
        f"WHEN {i} THEN {v if isinstance(v, int) else repr(v)}" for i, v in enumerate(values)
    )
    return f"CASE {expression} {arms} END"


def load(agents: list[Agent], count: int) -> None:
    """``count`` memories, ``len(agents)``-way interleaved. Deterministic spreads from the
    row number: importance 0.1-1.0, curve start 0-30 days ago, a third never accessed."""
    pks = [a.pk for a in agents]
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    importance = "(0.1 + ((n * 7919) %% 900) / 1000.0)"
    columns = (
        "agent_id, content, memory_type, importance, decay_base, decay_from, metadata, "
        "source_refs, access_count, last_accessed_at, created_at, updated_at, embedding_model"
    )
    if connection.vendor == "postgresql":
        start = "(%s::timestamptz - ((n * 104729) %% 720) * interval '1 hour')"
        rows = "generate_series(%s::bigint, %s::bigint) AS g(n)"
        prefix = ""
    else:
        start = "datetime(%s, '-' || ((n * 104729) %% 720) || ' hours')"
        rows = "g"
        prefix = "WITH RECURSIVE g(n) AS (SELECT %s UNION ALL SELECT n + 1 FROM g WHERE n < %s) "
    select = (
        f"SELECT {_case(f'n %% {len(pks)}', pks)}, "
        f"'note ' || n || ' about ' || {_case('n %% 8', WORDS)}, "
        f"{_case('(n / 7) %% 5', TYPES)}, {importance}, {importance}, {start}, '{{}}', '[]', "
        f"n %% 3, CASE WHEN n %% 3 = 0 THEN NULL ELSE {start} END, {start}, {start}, '' "
        f"FROM {rows}"
    )
    sql = f"INSERT INTO memory_memory ({columns}) {prefix}{select}"
    for first in range(1, count + 1, CHUNK):
        last = min(first + CHUNK - 1, count)
        params = [now] * 4
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                cursor.execute(sql, [*params, first, last])
            else:
                cursor.execute(sql, [first, last, *params])
        print(f"  loaded {last:,} memories", file=sys.stderr)
    with connection.cursor() as cursor:
        cursor.execute(
            "VACUUM ANALYZE memory_memory" if connection.vendor == "postgresql" else "ANALYZE"
        )


class Reader(threading.Thread):
    """Recall-style work on its own connection until stopped, with its latencies."""

    def __init__(self, agents: list[Agent], id_range: tuple[int, int], pause: float) -> None:
        super().__init__(daemon=True)
        self.agents, self.id_range, self.pause = agents, id_range, pause
        self.stop = threading.Event()
        self.samples: dict[str, list[float]] = {"top10": [], "scoring": [], "access": []}
        self.rng = random.Random(11)

    def _timed(self, name: str, fn: Callable[[], object]) -> None:
        start = time.perf_counter()
        fn()
        self.samples[name].append(time.perf_counter() - start)

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                agent = self.rng.choice(self.agents)
                ids = [self.rng.randint(*self.id_range) for _ in range(50)]
                top10 = Memory.objects.filter(agent=agent).order_by("-importance")
                scoring = Memory.objects.filter(pk__in=ids)
                self._timed("top10", partial(list, top10.values_list("id", "importance")[:10]))
                self._timed(
                    "scoring", partial(list, scoring.values_list("pk", "importance", "created_at"))
                )
                self._timed("access", partial(record_access, ids[:10]))
                time.sleep(self.pause)
        finally:
            connections.close_all()


def read_while(
    agents: list[Agent], id_range: tuple[int, int], pause: float, work: Callable[[], object]
) -> Reader:
    reader = Reader(agents, id_range, pause)
    reader.start()
    try:
        work()
    finally:
        reader.stop.set()
        reader.join()
    return reader


def timed_pass(label: str, **kwargs: Any) -> tuple[float, DecayResult]:
    start = time.perf_counter()
    result = decay_pass(**kwargs)
    seconds = time.perf_counter() - start
    verb = "would change" if kwargs.get("dry_run") else "written"
    print(f"  {label}: {seconds:.1f} s, {result.touched:,} {verb}", file=sys.stderr)
    return seconds, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=1_000_000)
    parser.add_argument("--agents", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=settings.DEWEE_DECAY_BATCH_SIZE)
    parser.add_argument(
        "--baseline-seconds", type=float, default=10.0, help="Reads timed before the pass."
    )
    parser.add_argument("--pause", type=float, default=0.02, help="Between two reads (s).")
    args = parser.parse_args()
    settings.DEWEE_DECAY_BATCH_SIZE = args.batch_size

    call_command("migrate", verbosity=0)
    edition = connection.vendor
    print(
        f"edition: {edition}; machine: {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        file=sys.stderr,
    )
    stamp = time.time_ns()
    agents = [
        create_agent(workspace=default_workspace(), agent_id=f"decay-{stamp}-{i}")
        for i in range(args.agents)
    ]
    print(f"loading {args.memories:,} memories...", file=sys.stderr)
    started = time.perf_counter()
    load(agents, args.memories)
    load_seconds = time.perf_counter() - started
    scope = Agent.objects.filter(pk__in=[a.pk for a in agents])
    ids = Memory.objects.filter(agent__in=agents).order_by("id").values_list("id", flat=True)
    id_range = (ids.first() or 0, ids.last() or 0)

    baseline = read_while(agents, id_range, args.pause, lambda: time.sleep(args.baseline_seconds))
    now = timezone.now()
    outcome: list[tuple[float, DecayResult]] = []
    during = read_while(
        agents,
        id_range,
        args.pause,
        lambda: outcome.append(timed_pass("first pass", agents=scope, now=now)),
    )
    first_seconds, result = outcome[0]
    repeat_seconds, repeat = timed_pass("second pass, same instant", agents=scope, now=now)
    hourly_seconds, hourly = timed_pass(
        "pass one hour later", agents=scope, now=now + timedelta(hours=1)
    )
    dry_seconds, dry = timed_pass(
        "dry run two hours later", agents=scope, now=now + timedelta(hours=2), dry_run=True
    )

    print(
        f"\n## Decay on {edition} ({args.memories:,} memories, {args.agents} agents, "
        f"batches of {args.batch_size:,})\n"
    )
    print(f"- load: {load_seconds:.1f} s ({args.memories / load_seconds:,.0f} rows/s)")
    print(f"- first pass: **{first_seconds:.1f} s**, {result.touched:,} memories written")
    print(f"- second pass at the same instant: {repeat_seconds:.1f} s, {repeat.touched:,} written")
    print(f"- pass one hour later: {hourly_seconds:.1f} s, {hourly.touched:,} written")
    print(f"- dry run: {dry_seconds:.1f} s ({dry.touched:,} would change)")
    print(f"- importance bands before: {result.before}")
    print(f"- importance bands after:  {result.after}\n")
    print("| read (other thread) | before p50 / p95 ms | during pass p50 / p95 ms | p50 ratio |")
    print("|---|---|---|---|")
    for name in ("top10", "scoring", "access"):
        b, d = baseline.samples[name], during.samples[name]
        if not b or not d:
            continue
        print(
            f"| {name} ({len(b)} / {len(d)} samples) | {ms(statistics.median(b))} / "
            f"{ms(percentile(b, 95))} | {ms(statistics.median(d))} / {ms(percentile(d, 95))} | "
            f"{statistics.median(d) / statistics.median(b):.2f} |"
        )


if __name__ == "__main__":
    main()
