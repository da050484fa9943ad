"""The background worker (django-q2's cluster, dewee.worker): how long a job may run, how
often a run and the cluster show they are alive, how many jobs a workspace may queue."""

import os

from dewee.config.environment import env_bool
from dewee.config.processes import DEWEE_WORKERS

# A background job running longer than this is stopped.
DEWEE_WORKER_TIMEOUT_SECS = int(os.environ.get("DEWEE_WORKER_TIMEOUT_SECS", 600))
# A running maintenance run writes a heartbeat this often; one silent for the stale time was
# stopped with its worker and shows as interrupted. The cluster itself beats every minute
# (a scheduled task), and /readyz wants a beat within DEWEE_WORKER_HEARTBEAT_MAX_AGE_SECS.
DEWEE_RUN_HEARTBEAT_SECS = float(os.environ.get("DEWEE_RUN_HEARTBEAT_SECS", 10))
DEWEE_RUN_STALE_SECS = float(os.environ.get("DEWEE_RUN_STALE_SECS", 45))
DEWEE_WORKER_HEARTBEAT_MAX_AGE_SECS = int(
    os.environ.get("DEWEE_WORKER_HEARTBEAT_MAX_AGE_SECS", 180)
)
# Jobs a workspace's key may have waiting in the worker's queue (the API's maintenance
# trigger); a trigger past it is refused 429 too_many_jobs. 0: no cap. A job queued this
# long ago and still not started is taken to be lost and no longer counts; so is one a worker
# took and did not start within DEWEE_RUN_STALE_SECS (the worker died in between).
DEWEE_MAX_QUEUED_JOBS = int(os.environ.get("DEWEE_MAX_QUEUED_JOBS", 20))
DEWEE_QUEUED_JOB_STALE_SECS = int(os.environ.get("DEWEE_QUEUED_JOB_STALE_SECS", 3600))
Q_CLUSTER = {
    "name": "dewee",
    "orm": "default",
    "workers": DEWEE_WORKERS,
    "timeout": DEWEE_WORKER_TIMEOUT_SECS,
    "retry": DEWEE_WORKER_TIMEOUT_SECS + 300,
    # A job whose worker died is delivered once more; the passes are safe to repeat.
    "max_attempts": 2,
    "catch_up": False,
    "sync": env_bool("DEWEE_Q_SYNC", False),
}
