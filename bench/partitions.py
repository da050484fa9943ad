"""Recall with the memories table as one plain table and partitioned by agent (PostgreSQL).

    .venv/bin/python scripts/with-postgres -- .venv/bin/python bench/partitions.py \\
        --agents 100 --memories-each 9000 --large 100000 --partitions 16

One database holds ``--agents`` agents of ``--memories-each`` memories and one agent of
``--large`` memories (the defaults: 1M in all). The rows are loaded with COPY, indexes
dropped during the load and built after it (timed, the HNSW index apart): texts shaped like
an assistant's memories (bench/recall.py's), vectors of the real embedding model over a pool
of ``--pool`` distinct texts (each text keeps its own vector), the keyword index by the
table's generated column. Then, on the plain table, recalls through the product's recall()
(query embedding included), alternating a small agent and the large one, each interleaved with
its physical reference (the query's embedding and the vector top 20 through the HNSW index,
as bench/recall.py times it); then the table is
partitioned by the migration's own function (dewee.partitions; the rebuild is timed) and the
same recalls run again. The HNSW build of one partition is timed by REINDEX."""

import argparse
import io
import os
import random
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# The table starts plain: this run partitions it itself, timed.
os.environ["DEWEE_DB_PARTITIONS"] = "0"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dewee.settings")

import django

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from bench.recall import memory_text, query_text, reference  # noqa: E402
from dewee.cli.progress import progress_bar  # noqa: E402
from dewee.partitions import partition_by_hash, partition_count  # noqa: E402
from memory.embeddings.engine import get_embedder  # noqa: E402
from memory.recall import RecallRequest, recall  # noqa: E402
from tenancy.services import create_agent, default_workspace  # noqa: E402

TABLE = "memory_memory"
HNSW = "memory_embedding_384_idx"
COLUMNS = (
    "agent_id, content, memory_type, importance, metadata, source_refs, access_count, "
    "created_at, updated_at, embedding, embedding_model, decay_base, decay_from, "
    "stored_bytes, metadata_bytes"
)


def pool(size: int, rng: random.Random) -> tuple[list[str], list[str]]:
    """``size`` distinct texts and their vectors (as pgvector's text form)."""
    day = datetime(2025, 1, 1, tzinfo=UTC)
    texts: dict[str, None] = {}
    while len(texts) < size:
        texts[memory_text(rng, day + timedelta(hours=len(texts)))] = None
    ordered = list(texts)
    embedder = get_embedder()
    vectors = []
    bar = progress_bar(total=size, unit="texts", description="embedding", json_output=False)
    for start in range(0, size, 256):
        batch = embedder.embed(ordered[start : start + 256])
        vectors += ["[" + ",".join(f"{x:.5f}" for x in row) + "]" for row in batch]
        bar.update(len(batch))
    bar.close()
    return ordered, vectors


def load(agents: list[tuple[int, int]], texts: list[str], vectors: list[str], model: str) -> None:
    """COPY ``count`` memories for each (agent pk, count)."""
    total = sum(count for _, count in agents)
    bar = progress_bar(total=total, unit="memories", description="loading", json_output=False)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    row = 0
    for agent_pk, count in agents:
        done = 0
        while done < count:
            chunk = io.StringIO()
            for _ in range(min(20_000, count - done)):
                at = row % len(texts)
                content = texts[at].replace("\\", "\\\\")
                # A minute apart, as an agent's turns are (bench/recall.py does the same).
                now = (start + timedelta(minutes=done)).isoformat()
                chunk.write(
                    f"{agent_pk}\t{content}\tepisodic\t0.5\t{{}}\t[]\t0\t{now}\t{now}\t"
                    f"{vectors[at]}\t{model}\t0.5\t{now}\t{len(content)}\t2\n"
                )
                row += 7919  # a prime: each agent gets a spread of the pool
                done += 1
            with (
                connection.cursor() as cursor,
                cursor.cursor.copy(f"COPY {TABLE} ({COLUMNS}) FROM STDIN") as copy,
            ):
                copy.write(chunk.getvalue())
            bar.update(chunk.getvalue().count("\n"))
    bar.close()


def indexes() -> list[tuple[str, str]]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s "
            "AND indexname <> %s ORDER BY indexname",
            [TABLE, f"{TABLE}_pkey"],
        )
        return cursor.fetchall()


def timed(sql: str) -> float:
    begun = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute(sql)
    return time.perf_counter() - begun


def recalls(small, large, queries: int, rng: random.Random) -> dict[str, list[float]]:
    """Recall times of the small and the large agent, each interleaved with the physical
    reference on the same query (bench/recall.py: the query's embedding and the vector top
    20 through the HNSW index), which is what partitioning can change."""
    samples: dict[str, list[float]] = {}
    physical = {"small": reference(small), "large": reference(large)}
    for turn in range(queries + 5):
        for name, agent in (("small", small), ("large", large)):
            query = query_text(rng)
            begun = time.perf_counter()
            recall(agent=agent, request=RecallRequest(query=query, top_k=10))
            middle = time.perf_counter()
            physical[name](query)
            if turn >= 5:  # the first few warm the caches
                samples.setdefault(name, []).append(middle - begun)
                samples.setdefault(f"{name} vector", []).append(time.perf_counter() - middle)
    return samples


def summary(samples: list[float]) -> str:
    p50 = statistics.median(samples) * 1000
    p95 = statistics.quantiles(samples, n=100)[94] * 1000
    return f"{p50:.1f} / {p95:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", type=int, default=100)
    parser.add_argument("--memories-each", type=int, default=9_000)
    parser.add_argument("--large", type=int, default=100_000)
    parser.add_argument("--partitions", type=int, default=16)
    parser.add_argument("--pool", type=int, default=50_000)
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    if connection.vendor != "postgresql":
        sys.exit("partitioning is PostgreSQL's: run under scripts/with-postgres")
    call_command("migrate", verbosity=0)
    call_command("prepare_models", verbosity=0)
    rng = random.Random(20261207)
    workspace = default_workspace()
    stamp = time.time_ns()
    small = [
        create_agent(workspace=workspace, agent_id=f"partitions-{stamp}-{n}")
        for n in range(args.agents)
    ]
    large = create_agent(workspace=workspace, agent_id=f"partitions-{stamp}-large")
    texts, vectors = pool(args.pool, rng)
    with connection.cursor() as cursor:
        # The whole HNSW graph of the plain table in memory, and both cores on its build.
        cursor.execute("SET maintenance_work_mem = '8GB'")
        cursor.execute("SET max_parallel_maintenance_workers = 1")
    kept = indexes()
    for name, _ in kept:
        timed(f'DROP INDEX "{name}"')
    begun = time.perf_counter()
    load(
        [(agent.pk, args.memories_each) for agent in small] + [(large.pk, args.large)],
        texts,
        vectors,
        get_embedder().model_id,
    )
    loaded = time.perf_counter() - begun
    total = args.agents * args.memories_each + args.large
    builds = {name: timed(statement) for name, statement in kept}
    timed(f"VACUUM ANALYZE {TABLE}")
    print(
        f"loaded {total:,} in {loaded:.0f} s; HNSW built in {builds[HNSW]:.0f} s", file=sys.stderr
    )

    probe = small[len(small) // 2]
    plain = recalls(probe, large, args.queries, rng)
    print(
        f"plain: small {summary(plain['small'])}, large {summary(plain['large'])}", file=sys.stderr
    )

    begun = time.perf_counter()
    with connection.cursor() as cursor:
        partition_by_hash(cursor, TABLE, "agent_id", args.partitions)
        assert partition_count(cursor, TABLE) == args.partitions
    rebuilt = time.perf_counter() - begun
    timed(f"VACUUM ANALYZE {TABLE}")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, i.relname, c.reltuples FROM pg_inherits h "
            "JOIN pg_class c ON c.oid = h.inhrelid JOIN pg_index x ON x.indrelid = c.oid "
            "JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_am a ON a.oid = i.relam "
            "WHERE h.inhparent = %s::regclass AND a.amname = 'hnsw' ORDER BY c.reltuples DESC",
            [TABLE],
        )
        parts = cursor.fetchall()
    (big_part, big_index, big_rows), (_, small_index, small_rows) = parts[0], parts[-1]
    reindex_big = timed(f'REINDEX INDEX "{big_index}"')
    reindex_small = timed(f'REINDEX INDEX "{small_index}"')
    partitioned = recalls(probe, large, args.queries, rng)
    print(
        f"partitioned: small {summary(partitioned['small'])}, "
        f"large {summary(partitioned['large'])}",
        file=sys.stderr,
    )

    print(
        f"\n## Partitioned by agent: {total:,} memories ({args.agents} agents of "
        f"{args.memories_each:,} and one of {args.large:,}), {args.partitions} partitions\n"
    )
    print(
        "| table | small agent: recall p50 / p95 (ms) | its vector top 20 | "
        "large agent: recall p50 / p95 (ms) | its vector top 20 |"
    )
    print("|---|---|---|---|---|")
    for label, run in (("one plain table", plain), (f"{args.partitions} partitions", partitioned)):
        print(
            f"| {label} | {summary(run['small'])} | {summary(run['small vector'])} | "
            f"{summary(run['large'])} | {summary(run['large vector'])} |"
        )
    print()
    print(
        f"- load by COPY: {loaded:.0f} s; index builds on the plain table: "
        + ", ".join(f"{name} {seconds:.0f} s" for name, seconds in builds.items())
    )
    print(
        f"- partitioning the loaded table (dewee.partitions, the migration's function): "
        f"{rebuilt:.0f} s = {rebuilt / total * 1e6:.0f} s per million rows"
    )
    print(
        f"- HNSW build of one partition: {reindex_big:.1f} s ({big_part}, {big_rows:,.0f} rows, "
        f"the large agent's), {reindex_small:.1f} s ({small_rows:,.0f} rows)"
    )


if __name__ == "__main__":
    main()
