"""The django-q2 cluster, started afresh when one of its processes dies suddenly.

The cluster's processes share multiprocessing queues. An idle worker waits on the task queue
holding its read lock; killed there (kill -9, the OOM killer), it takes the lock with it, and
the worker put in its place and every other worker then wait forever: no job runs again and
the cluster cannot even stop. The pusher and the monitor hold such locks too. So when one of
them dies suddenly, the whole cluster stops at once with its own exit code, and whoever
supervises it (`manage.py serve`, systemd) starts a new one within seconds.

A worker that dies in the middle of a task held no queue lock and is replaced as django-q2
does, so the other workers' jobs go on; so is one stopped for its timeout or recycled."""

import logging
import os
import time
from typing import Any

from django_q import cluster as q_cluster

logger = logging.getLogger("dewee.worker")

# The exit code of a cluster that stopped because one of its processes died.
SUDDEN_DEATH_EXIT = 75
IDLE = -1


class WatchfulSentinel(q_cluster.Sentinel):
    def reincarnate(self, process: Any) -> None:
        timer = getattr(process, "timer", None)
        if process in self.pool and timer is not None and int(timer.value) != IDLE:
            super().reincarnate(process)  # busy, timed out or recycled: no queue lock held
            return
        logger.critical(
            "%s of the worker cluster died suddenly; stopping the cluster so that it starts "
            "afresh (its queues may be locked)",
            process.name,
        )
        for other in [*self.pool, self.monitor, self.pusher]:
            if other is not process and other.is_alive():
                other.kill()
        os._exit(SUDDEN_DEATH_EXIT)


def run_cluster() -> int:
    """Run the cluster until it is stopped (0) or a process of it died (SUDDEN_DEATH_EXIT)."""
    # Cluster.start() spawns the module's Sentinel class.
    q_cluster.Sentinel = WatchfulSentinel
    cluster = q_cluster.Cluster()
    cluster.start()
    sentinel = cluster.sentinel
    # SIGTERM and SIGINT stop the cluster through its own handler, which joins the sentinel;
    # polling (not join) keeps this loop out of its way.
    while sentinel.is_alive():
        time.sleep(0.2)
    return int(sentinel.exitcode or 0)
