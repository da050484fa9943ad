"""Signs of life of the worker: the cluster's minute beat (beat_worker_heartbeat, a
scheduled task), the heartbeat a maintenance run writes while its pass runs (RunHeartbeat),
and the runs whose worker stopped mid-run, marked interrupted (mark_interrupted_runs).
"""

import logging
import os
import socket
import threading
import time
from datetime import datetime

from django.conf import settings
from django.db import DatabaseError, connections
from django.utils import timezone

from memory.models import MaintenanceRun, RunStatus, WorkerHeartbeat

# The maintenance log (memory.services.maintenance's): the runs and their signs of life
# are followed in one logger.
logger = logging.getLogger("memory.services.maintenance")


def mark_interrupted_runs(*, now: datetime) -> int:
    """Record as interrupted every run whose worker stopped mid-run, so it no longer shows
    as running. Its memories are each before or after the pass; the next run finishes."""
    return MaintenanceRun.objects.stale(now).update(
        status=RunStatus.INTERRUPTED,
        finished_at=now,
        error="interrupted: its worker stopped mid-run (no heartbeat)",
    )


class RunHeartbeat:
    """Writes the run's heartbeat from a thread of its own while the pass runs (the pass
    commits in batches and may hold a batch for seconds)."""

    def __init__(self, run_pk: int) -> None:
        self.run_pk = run_pk
        self.last = time.monotonic()
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._beat, name=f"run-{run_pk}-heartbeat")
        self.thread.daemon = True

    def __enter__(self) -> "RunHeartbeat":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopped.set()
        # A beat waiting for a lock may outlive the run; it writes nothing to a finished run.
        self.thread.join(timeout=2)

    def between_batches(self) -> None:
        """A beat from the pass's own thread when one is due, between two batches, where it
        holds no lock: on SQLite, a pass that takes the write lock again at once may keep the
        thread's beat waiting for as long as it runs, and show as interrupted."""
        if time.monotonic() - self.last >= settings.DEWEE_RUN_HEARTBEAT_SECS:
            self._write()

    def _write(self) -> None:
        self.last = time.monotonic()
        try:
            MaintenanceRun.objects.filter(pk=self.run_pk, status=RunStatus.RUNNING).update(
                heartbeat_at=timezone.now()
            )
        except DatabaseError:
            logger.warning("Could not write the heartbeat of run %s", self.run_pk)

    def _beat(self) -> None:
        try:
            while not self.stopped.wait(settings.DEWEE_RUN_HEARTBEAT_SECS):
                self._write()
        finally:
            connections.close_all()


def beat_worker_heartbeat(*, now: datetime | None = None) -> WorkerHeartbeat:
    """The cluster's minute beat (a scheduled task): record that the scheduler, the queue and
    a worker of this host run, and mark the runs of dead workers interrupted."""
    now = now or timezone.now()
    beat, _ = WorkerHeartbeat.objects.update_or_create(
        host=socket.gethostname()[:255], defaults={"pid": os.getpid(), "beat_at": now}
    )
    if marked := mark_interrupted_runs(now=now):
        logger.warning("Marked %s maintenance run(s) interrupted: their worker stopped", marked)
    return beat
