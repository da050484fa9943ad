"""What an MCP tool call costs against the same REST call, and MCP sessions under load, on a
real server (`manage.py serve`, as `make run` starts it).

    .venv/bin/python bench/mcp_overhead.py  # SQLite
    .venv/bin/python scripts/with-postgres -- .venv/bin/python bench/mcp_overhead.py  # PostgreSQL
    .venv/bin/python bench/mcp_overhead.py --pairs 100 --sessions 8 --duration 5  # a quick look

Two measures:

- overhead: the same recall (and the same store) sent --pairs times as REST
  (POST /v1/memory/recall, POST /v1/memories) and as an MCP tools/call (recall, remember)
  to POST /mcp, interleaved pair by pair (each side first in every other pair) on one
  persistent connection each, so both see the same machine; p50 and p95 of each and their
  ratio. Target: MCP p50 and p95 <= 1.2 x REST + 2 ms. A third column: the same recall
  through the SDK's own client (one session, call_tool), what an agent host pays including
  the client's work.
- sessions: --sessions SDK clients at once (one MCP session each) for --duration seconds,
  each storing a memory with a unique text and recalling, as fast as answered. Checks: no
  5xx, no tool error, and no lost write: every memory a remember acknowledged is read back
  through REST afterwards.

Exit status 1 when a target or check fails.
"""

import argparse
import http.client
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this file's folder comes first on the path, where this file would hide
# the SDK's package of the same name.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))
AGENT = "bench-agent"
USER = "bench-user"
ACCEPT = "application/json, text/event-stream"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def percentiles(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return statistics.median(ordered) * 1000, p95 * 1000


class Http:
    """One persistent connection, JSON in and out."""

    def __init__(self, port: int, key: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self.key = key

    def post(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        headers = {
            "Authorization": f"Bearer {self.key}",
            "Content-Type": "application/json",
            "Accept": ACCEPT,
        }
        self.conn.request("POST", path, json.dumps(body), headers)
        response = self.conn.getresponse()
        data = response.read()
        if response.getheader("Connection", "").lower() == "close":
            self.conn.close()
        return response.status, json.loads(data) if data else None

    def get(self, path: str) -> tuple[int, Any]:
        self.conn.request("GET", path, headers={"Authorization": f"Bearer {self.key}"})
        response = self.conn.getresponse()
        return response.status, json.loads(response.read())


def tool_call(http: Http, call_id: int, name: str, arguments: dict[str, Any]) -> Any:
    status, body = http.post(
        f"/mcp?agent={AGENT}",
        {
            "jsonrpc": "2.0",
            "id": call_id,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        },
    )
    if status != 200 or "result" not in body or body["result"].get("isError"):
        raise RuntimeError(f"tools/call {name} -> {status}: {body}")
    return body["result"]["structuredContent"]


def timed(fn: Any, *args: Any) -> float:
    started = time.perf_counter()
    fn(*args)
    return time.perf_counter() - started


def overhead(port: int, key: str, pairs: int) -> dict[str, Any]:
    rest, mcp = Http(port, key), Http(port, key)
    recall = {"query": "which seat does the user like on long flights", "user": USER, "top_k": 10}
    for n in range(3):  # warm both paths: imports, the model, the connections
        rest.post("/v1/memory/recall", {"agent_id": AGENT, **recall})
        tool_call(mcp, n, "recall", recall)
    times: dict[str, list[float]] = {k: [] for k in ("rest_recall", "mcp_recall")}
    times |= {"rest_store": [], "mcp_store": []}
    for n in range(pairs):
        store = {"content": f"Trip note {n}: the user asked for an aisle seat", "user": USER}
        calls = {
            "rest_recall": (rest.post, "/v1/memory/recall", {"agent_id": AGENT, **recall}),
            "mcp_recall": (tool_call, mcp, n, "recall", recall),
            "rest_store": (rest.post, "/v1/memories", {"agent_id": AGENT, **store}),
            "mcp_store": (tool_call, mcp, n, "remember", store),
        }
        # Each side goes first in every other pair: a store queues the worker's graph job,
        # whose write would otherwise always land on the call that follows it.
        order = (
            list(calls) if n % 2 == 0 else ["mcp_recall", "rest_recall", "mcp_store", "rest_store"]
        )
        for name in order:
            fn, *args = calls[name]
            times[name].append(timed(fn, *args))
    result: dict[str, Any] = {name: percentiles(values) for name, values in times.items()}
    result["sdk_recall"] = percentiles(sdk_recall_times(port, key, recall, pairs))
    return result


def sdk_recall_times(port: int, key: str, recall: dict[str, Any], count: int) -> list[float]:
    import anyio
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async def run() -> list[float]:
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {key}"})
        url = f"http://127.0.0.1:{port}/mcp?agent={AGENT}"
        times = []
        async with Client(streamable_http_client(url, http_client=http)) as client:
            await client.call_tool("recall", recall)
            for _ in range(count):
                started = time.perf_counter()
                result = await client.call_tool("recall", recall)
                times.append(time.perf_counter() - started)
                assert not result.is_error, result
        return times

    return anyio.run(run)


def sessions(port: int, key: str, count: int, duration: float) -> dict[str, Any]:
    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    stored: list[int] = []
    statuses: dict[int, int] = {}
    tool_errors: list[str] = []
    failures: list[str] = []
    calls = {"remember": 0, "recall": 0}

    def count_status(response: httpx2.Response) -> None:
        statuses[response.status_code] = statuses.get(response.status_code, 0) + 1

    async def one(session: int, deadline: float) -> None:
        async def hook(response: httpx2.Response) -> None:
            count_status(response)

        http = create_mcp_http_client(headers={"Authorization": f"Bearer {key}"})
        http.event_hooks["response"] = [hook]
        url = f"http://127.0.0.1:{port}/mcp?agent={AGENT}"
        n = 0
        try:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                while time.monotonic() < deadline:
                    n += 1
                    text = f"Session {session} note {n}: the user prefers tea"
                    done = await client.call_tool("remember", {"content": text, "user": USER})
                    calls["remember"] += 1
                    if done.is_error:
                        tool_errors.append(json.dumps(done.structured_content))
                    else:
                        assert done.structured_content is not None
                        stored.append(done.structured_content["id"])
                    found = await client.call_tool("recall", {"query": "tea", "user": USER})
                    calls["recall"] += 1
                    if found.is_error:
                        tool_errors.append(json.dumps(found.structured_content))
        except Exception as exc:
            failures.append(f"session {session}: {exc!r}")

    async def run() -> None:
        deadline = time.monotonic() + duration
        async with anyio.create_task_group() as group:
            for session in range(count):
                group.start_soon(one, session, deadline)

    started = time.monotonic()
    anyio.run(run)
    elapsed = time.monotonic() - started
    reader = Http(port, key)
    # Every acknowledged id read back; what the read answered when it was not 200 (a 404 is a
    # lost write; anything else is a failed read, told apart here).
    reads = {i: reader.get(f"/v1/memories/{i}") for i in stored}
    lost = [i for i, (status, _body) in reads.items() if status != 200]
    for i in lost[:5]:
        print(f"memory {i}: read back with {reads[i][0]} {json.dumps(reads[i][1])[:300]}")
    return {
        "elapsed": elapsed,
        "calls": calls,
        "statuses": statuses,
        "server_errors": sum(n for status, n in statuses.items() if status >= 500),
        "tool_errors": tool_errors[:5],
        "tool_error_count": len(tool_errors),
        "failures": failures[:5],
        "acknowledged": len(stored),
        "lost": len(lost),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=200)
    parser.add_argument("--seed-memories", type=int, default=200)
    parser.add_argument("--sessions", type=int, default=32)
    parser.add_argument("--duration", type=float, default=20)
    args = parser.parse_args()

    var_dir = tempfile.mkdtemp(prefix="dewee-bench-mcp-")
    os.environ["DEWEE_VAR_DIR"] = var_dir
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dewee.settings")
    os.environ.setdefault(
        "DEWEE_STATICFILES_STORAGE", "django.contrib.staticfiles.storage.StaticFilesStorage"
    )
    # The bench measures the server, not its limits.
    os.environ.setdefault("DEWEE_RATE_LIMIT_KEY", "0")
    os.environ.setdefault("DEWEE_RATE_LIMIT_ADDRESS", "0")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from memory.services import MemoryInput, store_memories_as
    from tenancy.services import create_api_key, default_workspace

    call_command("migrate", verbosity=0)
    workspace = default_workspace()
    _key, key = create_api_key(
        workspace=workspace, name="bench mcp", actor="bench", scopes=("read", "write", "admin")
    )
    store_memories_as(
        workspace=workspace,
        agent_id=AGENT,
        items=[
            MemoryInput(content=f"Flight {n}: the user took seat {n % 30}A", user=USER)
            for n in range(args.seed_memories)
        ],
    )
    edition = connection.vendor
    connection.close()

    port = free_port()
    log = Path(var_dir) / "serve.log"
    with log.open("ab") as out:
        server = subprocess.Popen(
            [sys.executable, str(ROOT / "manage.py"), "serve", f"127.0.0.1:{port}"],
            cwd=ROOT,
            env=os.environ.copy(),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                if Http(port, key).get("/v1/agents")[0] == 200:
                    break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                print(log.read_text(errors="replace")[-3000:])
                return 1
            time.sleep(0.5)

        cost = overhead(port, key, args.pairs)
        load = sessions(port, key, args.sessions, args.duration)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)

    print(f"edition: {edition}; {args.pairs} pairs; {args.seed_memories} memories seeded")
    ok = True
    for what in ("recall", "store"):
        rest, mcp = cost[f"rest_{what}"], cost[f"mcp_{what}"]
        within = all(m <= 1.2 * r + 2 for m, r in zip(mcp, rest, strict=True))
        ok &= within
        print(
            f"{what}: REST p50 {rest[0]:.1f} ms p95 {rest[1]:.1f} ms; MCP p50 {mcp[0]:.1f} ms "
            f"p95 {mcp[1]:.1f} ms; ratio p50 {mcp[0] / rest[0]:.2f} p95 {mcp[1] / rest[1]:.2f}; "
            f"target {'met' if within else 'MISSED'}"
        )
    sdk = cost["sdk_recall"]
    print(f"recall through the SDK client: p50 {sdk[0]:.1f} ms p95 {sdk[1]:.1f} ms")
    print(
        f"sessions: {args.sessions} x {load['elapsed']:.1f} s; calls {load['calls']}; "
        f"HTTP statuses {load['statuses']}; 5xx {load['server_errors']}; tool errors "
        f"{load['tool_error_count']} {load['tool_errors']}; session failures "
        f"{load['failures']}; writes acknowledged {load['acknowledged']}, lost {load['lost']}"
    )
    ok &= load["server_errors"] == 0 and load["lost"] == 0 and not load["failures"]
    ok &= load["tool_error_count"] == 0
    if load["tool_error_count"]:
        # What the database said, as the server logged it: which wait ran out.
        logged = log.read_text(errors="replace")
        causes = Counter(match.group(0) for match in _DATABASE_TROUBLE.finditer(logged))
        print(f"database errors in the server's log: {dict(causes.most_common(8))}")
        jobs = [line for line in logged.splitlines() if "Maintenance job" in line]
        print("maintenance jobs that ran:", *jobs[:8], sep="\n  ")
    return 0 if ok else 1


_DATABASE_TROUBLE = re.compile(
    r"PoolTimeout|deadlock detected|canceling statement due to (?:lock|statement) timeout|"
    r"lock timeout|could not obtain lock|too many clients|TooManyRequests|"
    r"OperationalError[^\n]{0,80}"
)


if __name__ == "__main__":
    sys.exit(main())
