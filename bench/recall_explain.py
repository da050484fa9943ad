"""What ``explain`` costs a recall: the same queries with and without it, interleaved.

    .venv/bin/python bench/recall_explain.py --memories 2000 --queries 200          # SQLite
    .venv/bin/python scripts/with-postgres -- .venv/bin/python bench/recall_explain.py

One agent is filled as bench/recall.py fills one (the product's batch store path, synthetic
assistant memories); then each query is recalled twice, as an agent's own recall is (its
access recorded), once without ``explain`` and once with it, the order alternating from one
query to the next so that both see the same machine load and the same warm caches.
"""

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from django.core.management import call_command
from django.db import connection

from bench.recall import fill, query_text  # sets Django up, in a throw-away folder
from memory.recall import RecallRequest, recall
from tenancy.services import create_agent, default_workspace


def timed(agent, query: str, *, explain: bool) -> float:
    begun = time.perf_counter()
    recall(
        agent=agent,
        request=RecallRequest(query=query, top_k=10, explain=explain),
        record_access=True,
    )
    return (time.perf_counter() - begun) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    call_command("prepare_models", verbosity=0)
    rng = random.Random(args.memories)
    agent = create_agent(
        workspace=default_workspace(), agent_id=f"explain-bench-{args.memories}-{time.time_ns()}"
    )
    fill(agent, args.memories, rng, 1000)
    for _ in range(10):  # warm up both paths
        timed(agent, query_text(rng), explain=False)
        timed(agent, query_text(rng), explain=True)
    samples: dict[bool, list[float]] = {False: [], True: []}
    for index in range(args.queries):
        query = query_text(rng)
        for explain in (False, True) if index % 2 == 0 else (True, False):
            samples[explain].append(timed(agent, query, explain=explain))
    print(f"\n## Recall with and without explain on {connection.vendor}\n")
    print(f"{args.memories:,} memories, {args.queries} queries, each recalled both ways\n")
    print("| explain | p50 (ms) | p95 (ms) | mean (ms) |")
    print("|---|---|---|---|")
    for explain in (False, True):
        times = samples[explain]
        p50, p95 = statistics.median(times), statistics.quantiles(times, n=100)[94]
        print(f"| {str(explain).lower()} | {p50:.2f} | {p95:.2f} | {statistics.fmean(times):.2f} |")
    paired = [off - on for off, on in zip(samples[False], samples[True], strict=True)]
    print(
        f"\nper query, without minus with: median {statistics.median(paired):+.3f} ms, "
        f"mean {statistics.fmean(paired):+.3f} ms"
    )


if __name__ == "__main__":
    main()
