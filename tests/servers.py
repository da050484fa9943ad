"""Real processes for tests: `manage.py serve` (gunicorn and the django-q2 worker) against the
test database, stopped at the end, with every process it started accounted for."""

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import pytest
from django.conf import settings
from django.db import connection

BASE_DIR = Path(settings.BASE_DIR)
# Every process a test server starts carries this variable, so a test can find them all
# (orphans included) in /proc.
TOKEN_VAR = "DEWEE_TEST_SERVER_TOKEN"


ON_SQLITE = not os.environ.get("DATABASE_URL", "").startswith("postgres")


def solo_on_sqlite(test: Callable[..., Any]) -> Callable[..., Any]:
    """A server test run in the solo pass on SQLite only. Run beside the suite there, the
    servers such tests start on the test database's file once left that process's own
    connection with a disk I/O error for every later test (the file's WAL gone under it);
    the cause was not pinned down. On PostgreSQL they run with the suite."""
    return pytest.mark.solo(test) if ON_SQLITE else test


def database_url() -> str:
    """The test database, reached the way this process reaches its server."""
    name = connection.settings_dict["NAME"]
    if connection.vendor == "sqlite":
        return f"sqlite:///{name}"
    url = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit(url._replace(path="/" + quote(name)))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def processes_with(token: str) -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of every live process whose environment holds
    the token."""
    found = {}
    needle = f"{TOKEN_VAR}={token}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        state = stat.rsplit(")", 1)[1].split()
        if state[0] == "Z":  # exited, waiting to be reaped
            continue
        found[int(entry.name)] = (int(state[1]), cmdline)
    return found


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Server:
    url: str
    process: subprocess.Popen[bytes]
    token: str
    log: Path
    key: str | None = None
    workspace_id: int | None = None  # the workspace ``key`` belongs to

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        key: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Response:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json", **(headers or {})}
        if key or self.key:
            headers["Authorization"] = f"Bearer {key or self.key}"
        request = urllib.request.Request(self.url + path, data=data, method=method)
        for name, value in headers.items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                return Response(answer.status, dict(answer.headers), answer.read())
        except urllib.error.HTTPError as error:
            return Response(error.code, dict(error.headers), error.read())

    def children(self) -> dict[int, tuple[int, str]]:
        return {
            pid: info for pid, info in processes_with(self.token).items() if pid != self.process.pid
        }

    def worker_master(self) -> int | None:
        masters = [
            pid
            for pid, (ppid, cmd) in self.children().items()
            if ppid == self.process.pid and "qcluster" in cmd
        ]
        return masters[0] if masters else None

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-4000:] if self.log.exists() else ""


def start_server(tmp_path: Path, *, web_only: bool = False, **env: str) -> Server:
    """`manage.py serve` on the test database; ``web_only``: without its worker, for a server
    that outlives one test (a worker would run other tests' queued jobs and schedules)."""
    port = free_port()
    token = uuid.uuid4().hex
    log = tmp_path / f"serve-{port}.log"
    environment = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "DEWEE_WORKERS": "1",
        "DEWEE_Q_SYNC": "0",
        # Pages are rendered without `collectstatic` having run.
        "DEWEE_STATICFILES_STORAGE": "django.contrib.staticfiles.storage.StaticFilesStorage",
        # The embedded edition's rate limit counters: the server's own, not var/'s.
        "DEWEE_RATE_LIMIT_FILE": str(tmp_path / f"rate-limits-{port}.sqlite3"),
        TOKEN_VAR: token,
        **env,
    }
    process = subprocess.Popen(
        [sys.executable, "manage.py", "serve", f"127.0.0.1:{port}"]
        + (["--no-worker"] if web_only else []),
        cwd=BASE_DIR,
        env=environment,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
    )
    return Server(f"http://127.0.0.1:{port}", process, token, log)


def wait_until_serving(server: Server, timeout: float = 90) -> None:
    def answers() -> bool:
        if server.process.poll() is not None:
            raise AssertionError(f"serve stopped:\n{server.tail()}")
        try:
            return server.request("GET", "/healthz").status == 200
        except OSError:
            return False

    wait_for(answers, timeout, "the web server")


def stop_server(server: Server) -> None:
    """Ctrl-C, as a person would; then make sure nothing of it is left."""
    if server.process.poll() is None:
        server.process.send_signal(signal.SIGINT)
        try:
            server.process.wait(timeout=40)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait()
    for pid in server.children():
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def wait_until_the_database_is_quiet(timeout: float = 30) -> None:
    """On PostgreSQL, until no other connection is in a query or a transaction: the flush
    after a transactional test locks every table, and deadlocks with a server still busy."""
    if connection.vendor != "postgresql":
        return

    def quiet() -> bool:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid() AND state <> 'idle'"
            )
            return int(cursor.fetchone()[0]) == 0

    def quiet_a_while() -> bool:
        if not quiet():
            return False
        time.sleep(0.3)
        return quiet()

    wait_for(quiet_a_while, timeout, "a quiet database")
