"""The application server (gunicorn) and the django-q2 worker together, each supervised on
its own: what `make run` starts, and a single-host production layout.

- Each child runs in its own process group, so a child that dies takes its own children
  with it (a killed worker master would otherwise leave its worker processes running).
- A child that stops by itself is logged and started again with backoff (1 s, doubling to
  30 s; reset once it has run for a minute), while the other keeps running. Only a web
  server that cannot start at all (a port in use, a broken setting) stops everything.
- Ctrl-C or SIGTERM stops both; if this process itself is killed, the kernel sends each
  child SIGTERM (PR_SET_PDEATHSIG), so nothing is left running unseen.
"""

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from dewee import metrics_dirs
from dewee.serving import connection_plan
from memory.services.maintenance_schedules import ensure_schedules

# How long the children get to stop cleanly: longer than the web server's graceful timeout,
# so requests in flight finish.
STOP_GRACE_EXTRA_SECS = 10
# A web server that stops within this time of its first start could not start at all.
STARTUP_GRACE_SECS = 15
BACKOFF_FIRST_SECS = 1.0
BACKOFF_MAX_SECS = 30.0
# A child that ran this long before it stopped starts again after the first backoff step.
STABLE_AFTER_SECS = 60.0
PR_SET_PDEATHSIG = 1
GUNICORN_CONFIG = "python:dewee.gunicorn_conf"


def _die_with_parent() -> None:
    """In the child, before exec: SIGTERM when the supervisor dies, however it dies."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _describe_exit(code: int) -> str:
    if code < 0:
        return f"killed by {signal.Signals(-code).name}"
    return f"exit code {code}"


@dataclass
class Child:
    name: str
    command: list[str]
    env: dict[str, str]
    process: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0
    starts: int = 0
    backoff: float = BACKOFF_FIRST_SECS
    restart_at: float | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            self.command,
            cwd=settings.BASE_DIR,
            env=self.env,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
        self.started_at = time.monotonic()
        self.starts += 1
        self.restart_at = None

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop_group(self, sig: signal.Signals) -> None:
        """Signal the child's whole process group (the child and what it started)."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, sig)

    def group_alive(self) -> bool:
        if self.process is None:
            return False
        try:
            os.killpg(self.process.pid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True


class Command(BaseCommand):
    help = "Serve the web app (gunicorn) and run the background worker, each supervised."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "addrport", nargs="?", default="127.0.0.1:8000", help="Where to listen (host:port)."
        )
        parser.add_argument(
            "--no-worker",
            action="store_true",
            help="Serve the web app only: the workers run elsewhere (another host or service).",
        )

    def handle(self, *args: Any, addrport: str, no_worker: bool = False, **options: Any) -> None:
        for line in ensure_schedules():
            self.stdout.write(f"schedule {line}")
        plan = connection_plan()
        if settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
            self.stdout.write(plan.describe())
        base_env = {k: v for k, v in os.environ.items() if k != "DEWEE_PROCESS"}
        # Each instance's web server and worker keep their Prometheus counts together, apart
        # from any other instance's (dewee.metrics_dirs); its web's /metrics reads both.
        base_env.pop(metrics_dirs.MULTIPROC_VAR, None)
        base_env.setdefault(
            "DEWEE_METRICS_DIR",
            str(metrics_dirs.instance_dir() / metrics_dirs.folder_name(addrport)),
        )
        children = [
            Child(
                "web",
                [
                    sys.executable,
                    "-m",
                    "gunicorn",
                    "-c",
                    "python:dewee.gunicorn_conf",
                    "dewee.wsgi",
                ],
                {**base_env, "DEWEE_PROCESS": "web", "DEWEE_BIND": addrport},
            ),
            Child(
                "worker",
                [sys.executable, str(Path(settings.BASE_DIR) / "manage.py"), "qcluster"],
                {**base_env, "DEWEE_PROCESS": "worker"},
            ),
        ]
        if no_worker:
            children = children[:1]
        stop = False

        def request_stop(signum: int, frame: object) -> None:
            nonlocal stop
            stop = True

        signal.signal(signal.SIGINT, request_stop)
        signal.signal(signal.SIGTERM, request_stop)
        for child in children:
            child.start()
            self.stdout.write(f"Started the {child.name} (pid {child.process.pid})")  # type: ignore[union-attr]
        failure = None
        while not stop and failure is None:
            time.sleep(0.25)
            for child in children:
                failure = failure or self._supervise(child)
        self._stop_all(children)
        if failure:
            raise CommandError(failure)

    def _supervise(self, child: Child) -> str | None:
        """Restart a child that stopped, after its backoff; a fatal message if it could not
        start at all."""
        now = time.monotonic()
        if child.restart_at is not None:
            if now >= child.restart_at:
                child.start()
                self.stdout.write(f"Started the {child.name} again (pid {child.process.pid})")  # type: ignore[union-attr]
            return None
        if child.running() or child.process is None:
            return None
        code = child.process.returncode
        ran = now - child.started_at
        # Whatever it left behind (the worker processes of a killed cluster) goes too.
        self._reap_group(child)
        if child.name == "web" and child.starts == 1 and ran < STARTUP_GRACE_SECS:
            return (
                f"The web server stopped by itself ({_describe_exit(code)}) before it was up; "
                "stopped the rest."
            )
        if ran >= STABLE_AFTER_SECS:
            child.backoff = BACKOFF_FIRST_SECS
        self.stderr.write(
            f"The {child.name} stopped by itself ({_describe_exit(code)}) after {ran:.0f} s; "
            f"starting it again in {child.backoff:.0f} s."
        )
        child.restart_at = now + child.backoff
        child.backoff = min(child.backoff * 2, BACKOFF_MAX_SECS)
        return None

    def _reap_group(self, child: Child) -> None:
        child.stop_group(signal.SIGTERM)
        deadline = time.monotonic() + 5
        while child.group_alive() and time.monotonic() < deadline:
            time.sleep(0.1)
        child.stop_group(signal.SIGKILL)

    def _stop_all(self, children: list[Child]) -> None:
        for child in children:
            if child.running():
                # The leader stops its own processes cleanly (gunicorn its workers, the
                # cluster its sentinel and workers); the group is killed only after.
                child.process.terminate()  # type: ignore[union-attr]
        grace = settings.DEWEE_WEB_GRACEFUL_TIMEOUT_SECS + STOP_GRACE_EXTRA_SECS
        deadline = time.monotonic() + grace
        for child in children:
            if child.process is None:
                continue
            try:
                child.process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.stderr.write(f"The {child.name} did not stop in time; killing it.")
            # Anything of its group still there (a child it did not wait for) is killed.
            child.stop_group(signal.SIGKILL)
            child.process.wait()
        self.stdout.write("Stopped the web server and the worker.")
