"""Recall latency and batch ingest rate for one agent with many memories.

    .venv/bin/python bench/recall.py --memories 10000 100000                    # SQLite
    .venv/bin/python scripts/with-postgres -- \
        .venv/bin/python bench/recall.py --memories 10000 100000

For each size: a fresh agent is filled through the product's batch store path (embedding,
entity tags, keyword index, sessions of 20 turns), then timed on recall() as an agent's own
recall is (its access recorded) with a mix of keyword-like and natural-language queries,
query embedding included. Texts are synthetic but shaped like an assistant's memories:
people, places, dates, tickets, preferences.

Each recall is interleaved with the physical reference on the same query, so that both see
the same machine load: the query embedding plus the cheapest vector top 20 the edition
offers (PostgreSQL: the HNSW index over the agent's vectors, at recall's ef_search; SQLite: an
exact scan of the agent's vectors held in a numpy matrix). The table shows the ratio of the
two medians. ``--profile N`` then runs N more recalls with timing spans and prints where their
time goes, stage by stage (timing spans).
"""

import argparse
import importlib
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
if not os.environ.get("DATABASE_URL") and not os.environ.get("DEWEE_VAR_DIR"):
    os.environ["DEWEE_VAR_DIR"] = tempfile.mkdtemp(prefix="dewee-recall-")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dewee.settings")

import django

django.setup()

import numpy as np  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402

from dewee.cli.progress import progress_bar  # noqa: E402
from memory.embeddings.engine import get_embedder  # noqa: E402
from memory.models import Memory  # noqa: E402
from memory.recall import RecallRequest, recall  # noqa: E402
from memory.recall.vector_search import HNSW_EF_SEARCH  # noqa: E402
from memory.services import MemoryInput, start_session, store_memories  # noqa: E402
from tenancy.models import Agent  # noqa: E402
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
    bar = progress_bar(total=count, unit="memories", description="storing", json_output=False)
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
        bar.update(size)
    bar.close()
    return count / (time.perf_counter() - started)


def _rate(rate: float) -> str:
    return "-" if rate != rate else f"{rate:.0f}"  # NaN: a reused agent, nothing stored


def reusable(count: int):
    """The newest agent an earlier run filled with ``count`` memories, or None."""
    for agent in Agent.objects.filter(agent_id__startswith=f"recall-bench-{count}-").order_by(
        "-pk"
    ):
        if Memory.objects.filter(agent=agent).count() >= count:
            return agent
    return None


REFERENCE_K = 20


def reference(agent):
    """The physical reference for ``agent``: a function of a query text that embeds it and
    takes the vector top REFERENCE_K as directly as the edition allows."""
    embedder = get_embedder()
    if connection.vendor == "postgresql":
        dim = embedder.dimension

        def hnsw(text: str) -> list[int]:
            literal = "[" + ",".join(map(str, embedder.embed_one(text).tolist())) + "]"
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(f"SET LOCAL hnsw.ef_search = {HNSW_EF_SEARCH}")
                cursor.execute(
                    "SELECT id FROM memory_memory WHERE agent_id = %s "
                    f"AND vector_dims(embedding) = {dim} "
                    f"ORDER BY (embedding::vector({dim})) <=> %s::vector({dim}) LIMIT %s",
                    (agent.pk, literal, REFERENCE_K),
                )
                return [row[0] for row in cursor.fetchall()]

        return hnsw
    rows = list(
        Memory.objects.filter(agent=agent, embedding__isnull=False).values_list("id", "embedding")
    )
    ids = np.array([memory_id for memory_id, _ in rows], dtype=np.int64)
    matrix = np.vstack([np.asarray(vector) for _, vector in rows]).astype(np.float32)

    def scan(text: str) -> list[int]:
        scores = matrix @ embedder.embed_one(text)
        top = np.argpartition(-scores, REFERENCE_K - 1)[:REFERENCE_K]
        return ids[top[np.argsort(-scores[top])]].tolist()

    return scan


# Where a recall's time goes: timing spans around each stage, by wrapping the function
# where the pipeline looks it up (module, name). Plain timers, not a profiler, so that Python
# code is not slowed down more than the database.
STAGES = [
    ("query embedding", "memory.embeddings.engine:Embedder", "embed_one"),
    ("vector search", "memory.recall.pipeline", "vector_search"),
    ("keyword search", "memory.recall.pipeline", "keyword_search"),
    ("relevance (fusion, entity and neighbour passes)", "memory.recall.pipeline", "relevance"),
    ("  entity pass", "memory.recall.relevance", "_entity_matches"),
    ("  neighbour pass", "memory.recall.relevance", "neighbours"),
    ("  neighbour pass", "memory.recall.relevance", "_neighbours"),  # before issue 11
    ("second stage (learned ranker)", "memory.recall.pipeline", "_second_stage"),
    ("load winners", "memory.recall.pipeline", "load_winners"),
    ("record access", "memory.recall.pipeline", "record_memory_access"),
]


def profile(agent, rng: random.Random, count: int) -> list[tuple[str, float]]:
    spent = {label: 0.0 for label, _, _ in STAGES}
    originals = []
    for label, where, name in STAGES:
        module, _, attribute = where.partition(":")
        target = importlib.import_module(module)
        if attribute:
            target = getattr(target, attribute)
        original = getattr(target, name, None)
        if original is None:  # a stage of another version of the code
            continue

        def timed(*args, _original=original, _label=label, **kwargs):
            begun = time.perf_counter()
            try:
                return _original(*args, **kwargs)
            finally:
                spent[_label] += time.perf_counter() - begun

        originals.append((target, name, original))
        setattr(target, name, timed)
    try:
        begun = time.perf_counter()
        for _ in range(count):
            request = RecallRequest(query=query_text(rng), top_k=10)
            recall(agent=agent, request=request, record_access=True)
        total = time.perf_counter() - begun
    finally:
        for target, name, original in originals:
            setattr(target, name, original)
    rows = [("recall (total)", total), *spent.items()]
    known = sum(seconds for label, seconds in spent.items() if not label.startswith(" "))
    rows.append(("the rest (scoring the pool, Python, other queries)", total - known))
    return [(label, 1000 * seconds / count) for label, seconds in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--profile", type=int, default=0, help="Profile N more recalls.")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="Time the agent of that size an earlier run filled in the same database "
        "(DEWEE_VAR_DIR or DATABASE_URL with --keep), when there is one, instead of filling "
        "a new one: before/after comparisons of two checkouts on the same data.",
    )
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
        agent = reusable(count) if args.reuse else None
        if agent is not None:
            ingest_rate = float("nan")
            rng = random.Random(time.time_ns())
        else:
            agent = create_agent(
                workspace=default_workspace(), agent_id=f"recall-bench-{count}-{time.time_ns()}"
            )
            ingest_rate = fill(agent, count, rng, args.batch)
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE memory_memory")
        physical = reference(agent)
        for _ in range(5):
            physical(query_text(rng))
            recall(
                agent=agent,
                request=RecallRequest(query=query_text(rng), top_k=10),
                record_access=True,
            )
        samples, references = [], []
        for _ in range(args.queries):
            query = query_text(rng)
            begun = time.perf_counter()
            physical(query)
            references.append(time.perf_counter() - begun)
            begun = time.perf_counter()
            recall(
                agent=agent,
                request=RecallRequest(query=query, top_k=10),
                record_access=True,
            )
            samples.append(time.perf_counter() - begun)
        p50 = statistics.median(samples) * 1000
        p95 = statistics.quantiles(samples, n=100)[94] * 1000
        ref50 = statistics.median(references) * 1000
        ref95 = statistics.quantiles(references, n=100)[94] * 1000
        rows.append((count, ingest_rate, p50, p95, ref50, ref95))
        print(
            f"  {count:,}: ingest {_rate(ingest_rate)}/s, recall p50 {p50:.1f} ms p95 {p95:.1f} ms"
            f", reference p50 {ref50:.1f} ms ({p50 / ref50:.1f} x)",
            file=sys.stderr,
        )
        if args.profile:
            print(f"\n### Where a recall's time goes at {count:,} memories\n")
            print(f"timing spans over {args.profile} recalls\n")
            print("| stage | ms per recall |")
            print("|---|---|")
            for label, ms in profile(agent, rng, args.profile):
                print(f"| {label} | {ms:.1f} |")
    reference_name = "HNSW top 20" if connection.vendor == "postgresql" else "exact scan top 20"
    print(f"\n## Recall on {connection.vendor}\n")
    print(
        "| memories | batch ingest (memories/s) | recall p50 (ms) | recall p95 (ms) | "
        f"reference p50 / p95 (ms; embedding + {reference_name}) | p50 ratio |"
    )
    print("|---|---|---|---|---|---|")
    for count, rate, p50, p95, ref50, ref95 in rows:
        print(
            f"| {count:,} | {_rate(rate)} | {p50:.1f} | {p95:.1f} | {ref50:.1f} / {ref95:.1f} "
            f"| {p50 / ref50:.1f} x |"
        )


if __name__ == "__main__":
    main()
