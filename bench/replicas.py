"""Read replicas under load: a real server on an embedded PostgreSQL primary, with and without
one streaming replica, driven through the REST API only.

    .venv/bin/python bench/replicas.py                       # 32 clients, then 64
    .venv/bin/python bench/replicas.py --clients 32 --duration 30 --outage

Each run starts its own primary (and replica: scripts/postgres_replica.py), migrates,
makes one workspace, and one API key per client (through the `dewee` CLI). Half the
clients are agents that write and read their own writes: store a memory, read it back at
once by id (a 404 there is a stale read), recall, context; the other half only read the
agents' memories (lists, recall, context) with keys that never write, as dashboards,
exports and other agents do. Every run is made twice on the same machine, without a replica
(DEWEE_DB_REPLICA_URLS empty) and with one, so the ratios compare like with like.

Reported per run: requests by kind, p50/p95 of reads and writes, 5xx (must be 0), stale
reads after a client's own write (must be 0), acknowledged writes not found at the end
(must be 0), and the share of read-only requests the replica served (/metrics). With
--outage the replica is stopped (immediate, as a host dies) for --outage-secs in the middle
of the replica run and started again: still 0 5xx, and the time until reads go to it again.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import itertools
import json
import os
import random
import secrets
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.load import Http, Postgres, Server, cli, log, manage  # noqa: E402

QUERIES = ("what did the team decide", "deploy on friday", "who owns billing", "the outage")


def _replica_module() -> Any:
    spec = importlib.util.spec_from_file_location(
        "postgres_replica", ROOT / "scripts" / "postgres_replica.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@dataclass(eq=False)
class Client(threading.Thread):
    index: int
    port: int
    token: str
    writer: bool
    agents: list[str]
    halt: threading.Event
    times: dict[str, list[float]] = field(default_factory=lambda: {"read": [], "write": []})
    statuses: Counter[int] = field(default_factory=Counter)
    stale: int = 0
    stored: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__init__(name=f"client-{self.index}", daemon=True)
        self.http = Http(self.port, self.token, timeout=30)
        self.rng = random.Random(self.index)

    def call(self, kind: str, method: str, path: str, body: Any = None) -> Any:
        started = time.monotonic()
        reply = self.http.request(method, path, body)
        self.times[kind].append(time.monotonic() - started)
        self.statuses[reply.status] += 1
        return reply

    def run(self) -> None:
        seq = 0
        while not self.halt.is_set():
            agent = self.agents[self.index % len(self.agents)] if self.writer else None
            if self.writer and self.rng.random() < 0.4:
                seq += 1
                text = (
                    f"note {self.index}-{seq}: {self.rng.choice(QUERIES)} ({secrets.token_hex(3)})"
                )
                reply = self.call(
                    "write", "POST", "/v1/memories", {"agent_id": agent, "content": text}
                )
                if reply.status == 201:
                    memory_id = reply.json()["id"]
                    self.stored.append(memory_id)
                    back = self.call("read", "GET", f"/v1/memories/{memory_id}")
                    if back.status == 404:
                        self.stale += 1
                continue
            agent = agent or self.rng.choice(self.agents)
            kind = self.rng.random()
            if kind < 0.4:
                self.call(
                    "read",
                    "POST",
                    "/v1/memory/recall",
                    {"agent_id": agent, "query": self.rng.choice(QUERIES), "top_k": 10},
                )
            elif kind < 0.7:
                self.call("read", "GET", f"/v1/memories?agent_id={agent}&limit=20")
            else:
                self.call(
                    "read",
                    "POST",
                    "/v1/context",
                    {"agent_id": agent, "query": self.rng.choice(QUERIES), "user": "u1"},
                )
        self.http.close()


def _reads_served(port: int) -> Counter[str]:
    http = Http(port, "", timeout=10)
    reply = http.request("GET", "/metrics")
    http.close()
    served: Counter[str] = Counter()
    for line in reply.body.decode(errors="replace").splitlines():
        if line.startswith("dewee_db_reads_served_total{"):
            database = line.split('database="', 1)[1].split('"', 1)[0]
            served[database] += int(float(line.rsplit(" ", 1)[1]))
    return served


def _jobs_at_once(servers: list[Server], token: str, agent: str, pg: Postgres) -> dict[str, int]:
    """Each host's worker asked at the same moment to run the same jobs (one over the
    workspace, one over an agent: two requests the queue does not merge), then the runs
    recorded: no two runs of a job may overlap in time, whichever hosts ran them."""
    jobs = ["decay", "expiry", "idle_sessions"]
    bodies = [{"jobs": jobs}, {"jobs": jobs, "agent_id": agent}]
    answers: list[int] = []

    def trigger(server: Server, body: dict[str, Any]) -> None:
        http = Http(server.port, token, timeout=30)
        answers.append(http.request("POST", "/v1/admin/autopilot/trigger", body).status)
        http.close()

    started = time.time()
    threads = [
        threading.Thread(target=trigger, args=(servers[i % len(servers)], bodies[i % 2]))
        for i in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    time.sleep(20)  # the workers take and run them
    with pg.connect() as conn:
        rows = conn.execute(
            "SELECT job, started_at, finished_at FROM memory_maintenancerun "
            "WHERE started_at >= to_timestamp(%s) ORDER BY job, started_at",
            [started - 1],
        ).fetchall()
    overlapping = 0
    for (job, _start, end), (next_job, next_start, _end) in itertools.pairwise(rows):
        if job == next_job and (end is None or next_start < end):
            overlapping += 1
    return {
        "triggers_accepted": sum(1 for status in answers if status == 202),
        "runs": len(rows),
        "runs_of_a_job_overlapping": overlapping,
    }


def _tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of a process and its children, as they stand."""
    import psutil

    try:
        root = psutil.Process(pid)
        total = 0.0
        for each in [root, *root.children(recursive=True)]:
            with contextlib.suppress(psutil.Error):
                times = each.cpu_times()
                total += times.user + times.system
        return total
    except psutil.Error:
        return 0.0


def _postmaster(datadir: Path) -> int | None:
    try:
        return int((datadir / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _cpu(pg: Postgres, replica: Any, servers: list[Server]) -> dict[str, float]:
    """CPU seconds so far of the primary, the replica and the web and worker processes: the
    difference over a run, per request, is what an operation costs each tier."""
    found = {"web_and_workers": sum(_tree_cpu(server.pid) for server in servers)}
    for part, datadir in (("primary", pg.datadir), ("replica", getattr(replica, "datadir", None))):
        pid = _postmaster(datadir) if datadir is not None else None
        if pid is not None:
            found[part] = _tree_cpu(pid)
    return found


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000


def run(args: argparse.Namespace, clients: int, with_replica: bool) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix="dewee-replica-bench-"))
    workdir.chmod(0o755)
    pg = Postgres(workdir / "primary")
    (workdir / "primary").mkdir()
    replica = None
    servers: list[Server] = []
    try:
        env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
        env.update(
            DEWEE_VAR_DIR=str(workdir / "var"),
            DEWEE_DB_MAX_CONNECTIONS="100",
            DEWEE_OPERATOR="replica-bench",
            PYTHONUNBUFFERED="1",
            # Every host signs the worker queue's tasks with the same key.
            DEWEE_SECRET_KEY=secrets.token_urlsafe(50),
        )
        pg.start_first()
        env["DATABASE_URL"] = pg.url()
        manage(env, "migrate", "--noinput")
        manage(env, "prepare_models")
        workspace = f"replicas-{secrets.token_hex(3)}"
        cli(env, "workspaces", "create", workspace)
        tokens = [
            cli(env, "keys", "create", "--workspace", workspace, "--name", f"client {i}")["key"]
            for i in range(clients)
        ]
        admin = cli(
            env,
            "keys",
            "create",
            "--workspace",
            workspace,
            "--name",
            "admin",
            "--scope",
            "read,write,admin",
        )["key"]
        if with_replica:
            replica = _replica_module().start_replica(pg.url(), workdir / "replica")
            env["DEWEE_DB_REPLICA_URLS"] = replica.url()
        for host in range(args.hosts):
            # Each host its own var folder, as on its own machine; one database for all.
            host_env = {
                **env,
                "DEWEE_VAR_DIR": str(workdir / ("var" if not host else f"var-{host}")),
            }
            if host:
                manage(host_env, "prepare_models")  # as each machine's install does
            servers.append(Server(host_env, workdir / f"serve-{host}.log", secrets.token_hex(6)))
        for server in servers:
            server.start()
        for server in servers:
            server.wait_ready(tokens[0])
        server = servers[0]
        agents = [f"agent-{i}" for i in range(max(1, clients // 2))]
        maker = Http(server.port, admin, timeout=30)
        for agent_id in agents:  # readers never ask for an agent that does not exist yet
            maker.request("POST", "/v1/agents", {"agent_id": agent_id})
        maker.close()
        halt = threading.Event()
        pool = [
            Client(i, servers[i % len(servers)].port, tokens[i], i < clients // 2, agents, halt)
            for i in range(clients)
        ]
        for client in pool:
            client.start()
        log(f"{clients} clients, replica {'on' if with_replica else 'off'}, {args.duration} s")
        outage: dict[str, float] = {}
        cpu_before = _cpu(pg, replica, servers)
        started = time.monotonic()
        if with_replica and args.outage and replica is not None:
            time.sleep(args.duration / 3)
            replica.stop("immediate")
            outage["stopped_at"] = time.monotonic() - started
            time.sleep(args.outage_secs)
            replica.start()
            restarted = time.monotonic()
            outage["started_at"] = restarted - started
            before = _reads_served(server.port)["replica"]
            while time.monotonic() - restarted < 60:
                time.sleep(0.25)
                if _reads_served(server.port)["replica"] > before:
                    outage["back_after_secs"] = round(time.monotonic() - restarted, 2)
                    break
        while time.monotonic() - started < args.duration:
            time.sleep(0.2)
        halt.set()
        for client in pool:
            client.join(timeout=40)
        cpu_after = _cpu(pg, replica, servers)
        served: Counter[str] = Counter()
        for each in servers:
            served.update(_reads_served(each.port))
        overlaps = _jobs_at_once(servers, admin, agents[0], pg) if len(servers) > 1 else None
        statuses: Counter[int] = Counter()
        for client in pool:
            statuses.update(client.statuses)
        # Every acknowledged write is there at the end (read from whatever serves the key).
        checker = Http(server.port, tokens[-1], timeout=30)
        lost = 0
        for client in pool:
            for memory_id in client.stored:
                if checker.request("GET", f"/v1/memories/{memory_id}").status != 200:
                    lost += 1
        checker.close()
        reads = [t for c in pool for t in c.times["read"]]
        writes = [t for c in pool for t in c.times["write"]]
        total_reads = served["replica"] + served["primary"]
        requests = max(1, sum(statuses.values()))
        cpu_ms = {
            part: round((cpu_after[part] - cpu_before.get(part, 0.0)) * 1000 / requests, 2)
            for part in cpu_after
        }
        return {
            "clients": clients,
            "replica": with_replica,
            "seconds": args.duration,
            "requests": sum(statuses.values()),
            "requests_per_sec": round(sum(statuses.values()) / args.duration, 1),
            "read_p50_ms": round(_percentile(reads, 0.5), 1),
            "read_p95_ms": round(_percentile(reads, 0.95), 1),
            "write_p50_ms": round(_percentile(writes, 0.5), 1),
            "write_p95_ms": round(_percentile(writes, 0.95), 1),
            "5xx": sum(n for status, n in statuses.items() if status >= 500),
            "statuses": {str(status): n for status, n in sorted(statuses.items())},
            "stale_reads_after_own_write": sum(c.stale for c in pool),
            "acknowledged_writes": sum(len(c.stored) for c in pool),
            "lost_writes": lost,
            "replica_share_of_read_requests": round(served["replica"] / total_reads, 3)
            if total_reads
            else 0.0,
            "cpu_ms_per_request": cpu_ms,
            **({"outage": outage} if outage else {}),
            **({"hosts": len(servers), "maintenance": overlaps} if overlaps is not None else {}),
        }
    finally:
        for server in servers:
            server.stop()
        if replica is not None:
            replica.destroy()
        pg.shutdown()
        for log_file in workdir.glob("serve-*.log"):
            kept = f"replica-bench-{clients}-{int(with_replica)}-{log_file.name}"
            shutil.copy(log_file, Path(tempfile.gettempdir()) / kept)
        shutil.rmtree(workdir, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[32, 64])
    parser.add_argument("--duration", type=float, default=30)
    parser.add_argument("--outage", action="store_true", help="Stop the replica mid-run.")
    parser.add_argument("--outage-secs", type=float, default=5)
    parser.add_argument(
        "--hosts", type=int, default=1, help="serve processes (web + worker) on one database."
    )
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = []
    for clients in args.clients:
        for with_replica in (False, True):
            result = run(args, clients, with_replica)
            log(json.dumps(result))
            results.append(result)
    print(
        "| clients | replica | req/s | read p50 / p95 ms | write p50 / p95 ms | 5xx | stale "
        "after own write | lost writes | replica share of reads |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        print(
            f"| {r['clients']} | {'yes' if r['replica'] else 'no'} | {r['requests_per_sec']} | "
            f"{r['read_p50_ms']} / {r['read_p95_ms']} | {r['write_p50_ms']} / "
            f"{r['write_p95_ms']} | {r['5xx']} | {r['stale_reads_after_own_write']} | "
            f"{r['lost_writes']} of {r['acknowledged_writes']} | "
            f"{r['replica_share_of_read_requests']} |"
        )
    for r in results:
        if "outage" in r:
            print(f"outage ({r['clients']} clients): {json.dumps(r['outage'])}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    for r in results:
        if "maintenance" in r:
            print(
                f"maintenance on {r['hosts']} hosts ({r['clients']} clients): "
                f"{json.dumps(r['maintenance'])}"
            )
    failed = any(
        r["5xx"]
        or r["stale_reads_after_own_write"]
        or r["lost_writes"]
        or r.get("maintenance", {}).get("runs_of_a_job_overlapping")
        for r in results
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
