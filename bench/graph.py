"""Graph reads at scale: traverse and shortest-path latency, and the GraphML export's time
and peak memory, on an agent whose graph was built as its memories arrived.

    .venv/bin/python bench/graph.py --memories 10000                                  # SQLite
    .venv/bin/python scripts/with-postgres -- .venv/bin/python bench/graph.py --memories 10000

For each size: a fresh agent filled with bench/recall.py's synthetic memories (a fifth in
sessions) in batches, the graph built in each store (DEWEE_GRAPH_ON_STORE=inline), or with
``--build worker`` after the stores, as the worker's jobs build it (three times faster, the
same kind of graph). With ``--reuse`` an agent this bench filled before in the same
database (``scripts/with-postgres --datadir DIR --keep``, or DEWEE_VAR_DIR for SQLite) is
measured again as it is: the same graph before and after a change; ``--baseline REV`` times
the reads of memory/graph/queries.py at git revision REV too, query by query in turn with
the current ones (a row of its own). Then
--queries traversals (depth 2, every edge type, limit 50, from random memories) and
--queries paths between random pairs (max depth 6), timed one by one through the same
functions the API calls; then one GraphML export (with entities) consumed chunk by chunk,
timed, and once more under tracemalloc for its peak Python memory.
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
import tracemalloc
import types
from collections.abc import Callable
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
if not os.environ.get("DATABASE_URL"):
    # A given DEWEE_VAR_DIR keeps the SQLite database for a later --reuse.
    os.environ.setdefault("DEWEE_VAR_DIR", tempfile.mkdtemp(prefix="dewee-graph-"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dewee.settings")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from bench.recall import fill  # noqa: E402
from memory.exceptions import PathNotFound  # noqa: E402
from memory.graph.export import export_graph  # noqa: E402
from memory.graph.paths import shortest_path  # noqa: E402
from memory.graph.queries import traverse_graph  # noqa: E402
from memory.models import EdgeType, Memory, MemoryEdge  # noqa: E402
from memory.services.graph_rebuild import build_pending_graph  # noqa: E402
from tenancy.models import Agent  # noqa: E402
from tenancy.services import create_agent, default_workspace  # noqa: E402


def p(values: list[float], q: float) -> float:
    return sorted(values)[min(len(values) - 1, int(q * len(values)))] * 1000


def export_once(agent) -> tuple[float, int]:
    started = time.perf_counter()
    size = sum(len(c) for c in export_graph(agent=agent, format="graphml", entities=True).chunks)
    return time.perf_counter() - started, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, nargs="+", default=[10_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--build", choices=["inline", "worker"], default="inline")
    parser.add_argument("--reuse", action="store_true", help="measure an agent filled before")
    parser.add_argument(
        "--random-edges",
        type=int,
        metavar="N",
        help="replace the agent's graph with N random edges per memory to earlier ones, "
        "plus precedes along each session (a graph of that size without building it)",
    )
    parser.add_argument(
        "--baseline", metavar="REV", help="also time the reads as they were at git revision REV"
    )
    args = parser.parse_args()
    readers = {"": (traverse_graph, shortest_path)}
    if args.baseline:
        readers[f" ({args.baseline})"] = baseline_reads(args.baseline)
    call_command("migrate", verbosity=0)
    call_command("prepare_models", verbosity=0)
    settings.DEWEE_GRAPH_ON_STORE = args.build
    print(f"edition {connection.vendor}; {os.cpu_count()} cores", file=sys.stderr)
    print(
        "| memories | edges | traverse p50 / p95 (ms) | path p50 / p95 (ms) | paths found "
        "| GraphML export (s, MB) | export peak (MB) |"
    )
    print("|---|---|---|---|---|---|---|")
    for count in args.memories:
        rng = random.Random(count)
        agent_id = f"graph-bench-{count}"
        if args.reuse:
            agent = Agent.objects.in_workspace(default_workspace()).get(agent_id=agent_id)
        else:
            agent = create_agent(workspace=default_workspace(), agent_id=agent_id)
            rate = fill(agent, count, rng, args.batch)
            print(f"  filled {count:,} at {rate:.0f}/s", file=sys.stderr)
            if args.build == "worker":
                started = time.perf_counter()
                while build_pending_graph(agent=agent).more:
                    pass
                seconds = time.perf_counter() - started
                print(f"  graph built at {count / seconds:.0f}/s", file=sys.stderr)
        if args.random_edges:
            random_graph(agent, args.random_edges, random.Random(count + 2))
        ids = list(Memory.objects.filter(agent=agent).values_list("id", flat=True))
        edges = MemoryEdge.objects.filter(agent=agent).count()
        print(f"  {count:,} memories, {edges:,} edges", file=sys.stderr)
        # Their own generator: a reused agent is measured from the same memories.
        sample = random.Random(count + 1).sample(sorted(ids), 2 * args.queries)
        memories = {m.pk: m for m in Memory.objects.filter(pk__in=sample)}
        starts = [memories[i] for i in sample]
        # Each query through each version in turn, so that both see the same machine.
        timed: dict[str, tuple[list[float], list[float], list[int]]] = {
            name: ([], [], [0]) for name in readers
        }
        for memory in starts[: args.queries]:
            for name, (traverse, _) in readers.items():
                started = time.perf_counter()
                traverse(memory=memory, depth=2, limit=50)
                timed[name][0].append(time.perf_counter() - started)
        for source, target in zip(starts[: args.queries], starts[args.queries :], strict=False):
            for name, (_, path) in readers.items():
                started = time.perf_counter()
                try:
                    path(source=source, target=target, max_depth=6)
                    timed[name][2][0] += 1
                except PathNotFound:
                    pass
                timed[name][1].append(time.perf_counter() - started)
        seconds, size = export_once(agent)
        tracemalloc.start()
        export_once(agent)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        for name, (traverse_times, path_times, (found,)) in timed.items():
            print(
                f"| {count:,}{name} | {edges:,} "
                f"| {p(traverse_times, 0.5):.1f} / {p(traverse_times, 0.95):.1f} "
                f"| {p(path_times, 0.5):.1f} / {p(path_times, 0.95):.1f} "
                f"| {found}/{len(path_times)} | {seconds:.1f}, {size / 1e6:.1f} "
                f"| {peak / 1e6:.1f} |",
                flush=True,
            )


def random_graph(agent, per_memory: int, rng: random.Random) -> None:
    """The agent's edges replaced: from each memory, one shares_entity and per_memory - 1
    related_to edges to earlier memories picked at random, and precedes from each memory of
    a session to the next. For sizes whose graph takes too long to build here; the reads
    cost what the edge rows and their fan-out cost, whoever built them."""
    MemoryEdge.objects.filter(agent=agent).delete()
    rows = list(Memory.objects.filter(agent=agent).order_by("id").values_list("id", "session_id"))
    last_in_session: dict[int, int] = {}
    edges = []
    for index, (memory_id, session_id) in enumerate(rows):
        if session_id is not None:
            if session_id in last_in_session:
                edges.append((last_in_session[session_id], memory_id, EdgeType.PRECEDES))
            last_in_session[session_id] = memory_id
        if index == 0:
            continue
        targets = {rows[rng.randrange(index)][0] for _ in range(per_memory)}
        for number, target in enumerate(sorted(targets)):
            kind = EdgeType.SHARES_ENTITY if number == 0 else EdgeType.RELATED_TO
            edges.append((memory_id, target, kind))
    for start in range(0, len(edges), 5000):
        MemoryEdge.objects.bulk_create(
            [
                MemoryEdge(agent=agent, source_id=source, target_id=target, type=kind)
                for source, target, kind in edges[start : start + 5000]
            ],
            ignore_conflicts=True,
        )
    print(f"  {len(edges):,} random edges", file=sys.stderr)


def baseline_reads(revision: str) -> tuple[Callable, Callable]:
    """traverse_graph and shortest_path as memory/graph/queries.py and memory/graph/paths.py
    were at ``revision`` (earlier: memory/graph_queries.py and graph_paths.py; before
    graph_paths.py, graph_queries.py held both)."""
    queries = module_at(revision, "graph/queries") or module_at(revision, "graph_queries")
    if queries is None:
        raise SystemExit(f"memory/graph/queries.py is not in {revision}")
    # The path search's imports of the walks get the revision's too, under either name.
    walks = {"memory.graph.queries": queries, "memory.graph_queries": queries}
    paths = module_at(revision, "graph/paths", walks) or module_at(revision, "graph_paths", walks)
    return queries.traverse_graph, (paths or queries).shortest_path


def module_at(
    revision: str, name: str, imports: dict[str, types.ModuleType] | None = None
) -> types.ModuleType | None:
    """memory/``name``.py as it was at ``revision``, run as a module of its own (None: it
    was not there); ``imports``: modules its imports get instead of the current ones."""
    shown = subprocess.run(
        ["git", "show", f"{revision}:memory/{name}.py"],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        text=True,
    )
    if shown.returncode != 0:
        return None
    module = types.ModuleType(f"{name.replace('/', '_')}_{revision}")
    with mock.patch.dict(sys.modules, imports or {}):
        exec(compile(shown.stdout, module.__name__, "exec"), module.__dict__)
    return module


if __name__ == "__main__":
    main()
