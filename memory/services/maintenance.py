"""Background maintenance: the jobs, running one and recording what it did, and queueing
one for the worker. Their schedules: memory.services.maintenance_schedules; the worker's
and a run's heartbeats: memory.services.heartbeats.

Every way of running a job (the schedule, Run now on the dashboard, the API trigger, the
CLI) goes through :func:`run_maintenance`, so each run leaves one MaintenanceRun row.
"""

import logging
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django_q.tasks import async_task

from dewee.errors import InvalidInput
from dewee.logs import without_values
from memory.exceptions import JobAlreadyRunning, TooManyJobs
from memory.maintenance.job_leases import job_lease
from memory.maintenance.jobs import JOBS, SCHEDULE_PREFIX, JobSpec
from memory.models import MaintenanceRun, QueuedJob, RunStatus, RunTrigger
from memory.services.heartbeats import RunHeartbeat, mark_interrupted_runs
from memory.services.passes import PassResult
from tenancy.models import Agent, Workspace

logger = logging.getLogger(__name__)

AUTOPILOT_JOBS = [job for job, spec in JOBS.items() if spec.autopilot]


def clean_jobs(jobs: object) -> list[str]:
    """A list of known job names; None or empty means the AutoPilot jobs."""
    if jobs is None or jobs == []:
        return list(AUTOPILOT_JOBS)
    if not isinstance(jobs, list) or not all(isinstance(j, str) for j in jobs):
        raise InvalidInput("jobs", "must be a list of job names")
    unknown = [j for j in jobs if j not in JOBS]
    if unknown:
        raise InvalidInput("jobs", f"unknown job {unknown[0]!r}; known jobs: {', '.join(JOBS)}")
    return list(dict.fromkeys(jobs))


def take_queued_job(*, pk: int, now: datetime | None = None) -> None:
    """A worker took the queued job ``pk`` (memory.tasks.run_job, first of all): mark its
    ledger row taken. Until the job's run starts (and the row goes), that time is the job's
    last sign of life; a worker that dies in between leaves the row taken, and once the time
    is older than the heartbeat rule of runs allows (memory.models.core.silent_workers),
    the row no longer holds up a trigger of the same job and scope, nor counts against the
    workspace's cap."""
    QueuedJob.objects.filter(pk=pk).update(taken_at=now or timezone.now())


def run_maintenance(
    *,
    job: str,
    agent: Agent | None = None,
    workspace: Workspace | None = None,
    trigger: str = RunTrigger.SCHEDULE,
    dry_run: bool = False,
    queued_job_pk: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[MaintenanceRun, PassResult]:
    """Run one job over every agent (or one agent, or one workspace's agents) and record it;
    returns the recorded run and the pass's own result (a decay pass adds distributions).

    The run row is committed before the pass starts, so the dashboard shows it running; the
    passes themselves commit in batches, so a run killed midway leaves each memory before or
    after and the next run finishes the work. A failing pass is recorded, then re-raised so
    the worker records the failure too. A job queued on request (``queued_job_pk``) leaves
    the queue's ledger as its run starts, in one transaction: a new trigger queues it again,
    and a ledger row still there was not started. ``progress(done, total)`` is told of the
    pass's work, for the jobs whose pass reports it (decay's memories).

    One run of a job at a time, across every worker host (memory.maintenance.job_leases):
    while one is under way, another raises JobAlreadyRunning and records nothing."""
    spec = JOBS[clean_jobs([job])[0]]
    with job_lease(spec.job) as held:
        if not held:
            if queued_job_pk is not None:
                # The request is the run under way's to answer: it leaves the ledger.
                QueuedJob.objects.filter(pk=queued_job_pk).delete()
            raise JobAlreadyRunning(
                f"A {spec.job} run is under way (on this worker or another host's); "
                "this one was not started"
            )
        return _run_held(
            spec,
            agent=agent,
            workspace=workspace,
            trigger=trigger,
            dry_run=dry_run,
            queued_job_pk=queued_job_pk,
            progress=progress,
        )


def _run_held(
    spec: JobSpec,
    *,
    agent: Agent | None,
    workspace: Workspace | None,
    trigger: str,
    dry_run: bool,
    queued_job_pk: int | None,
    progress: Callable[[int, int], None] | None,
) -> tuple[MaintenanceRun, PassResult]:
    """run_maintenance's work, under the job's lease."""
    now = timezone.now()
    mark_interrupted_runs(now=now)
    with transaction.atomic():
        if queued_job_pk is not None:
            QueuedJob.objects.filter(pk=queued_job_pk).delete()
        run = MaintenanceRun.objects.create(
            job=spec.job,
            trigger=trigger,
            agent=agent,
            workspace=workspace or (agent.workspace if agent else None),
            dry_run=dry_run,
            started_at=now,
        )
    agents = None
    if agent is not None:
        agents = Agent.objects.filter(pk=agent.pk)
    elif workspace is not None:
        agents = Agent.objects.filter(workspace=workspace)
    started = time.monotonic()
    try:
        with RunHeartbeat(run.pk) as heart:

            def reported(done: int, total: int) -> None:
                heart.between_batches()
                if progress is not None:
                    progress(done, total)

            reporting = {"progress": reported} if spec.reports_progress else {}
            result = spec.run_pass()(agents=agents, now=now, dry_run=dry_run, **reporting)
    except Exception as exc:
        run.status, run.error = RunStatus.FAILED, without_values(f"{type(exc).__name__}: {exc}")
        _finish(run, started)
        logger.exception("Maintenance job %s failed", spec.job)
        raise
    run.status, run.touched, run.counts = RunStatus.SUCCEEDED, result.touched, dict(result.counts)
    run.by_workspace = {str(ws): dict(share) for ws, share in result.by_workspace.items()}
    _finish(run, started)
    logger.info("Maintenance job %s: %s memories touched, %s", spec.job, run.touched, run.counts)
    return run, result


def _finish(run: MaintenanceRun, started: float) -> None:
    run.finished_at = timezone.now()
    run.duration_ms = round((time.monotonic() - started) * 1000)
    run.save(
        update_fields=[
            "status",
            "error",
            "touched",
            "counts",
            "by_workspace",
            "finished_at",
            "duration_ms",
        ]
    )


def queue_maintenance(
    *, jobs: list[str] | None, agent: Agent | None = None, workspace: Workspace | None = None
) -> list[dict[str, Any]]:
    """Hand jobs to the worker (Run now, the API trigger, the CLI), for one agent, one
    workspace's agents or (no scope) every agent. Returns, per job, its task id, when it was
    queued and whether it was already waiting.

    Invariants: one job waits per job and scope: a trigger for one already queued and not
    started joins it (``coalesced``) instead of queueing it twice, unless that one is lost
    (QueuedJob.objects.stale: never taken for DEWEE_QUEUED_JOB_STALE_SECS, or taken by a
    worker that fell silent before starting it); a lost job is forgotten and queued anew,
    and counts no more. A workspace never has more
    than DEWEE_MAX_QUEUED_JOBS jobs waiting: past it the trigger is refused (TooManyJobs)
    and queues nothing. The count and the queueing hold the workspace's row locked on
    PostgreSQL (SQLite's IMMEDIATE transactions hold the write lock), so triggers at the same
    moment cannot pass the cap together; each task is queued in the transaction of its ledger
    row (the ORM broker's queue is a table of the same database), so both exist or neither."""
    names = clean_jobs(jobs)
    owner = agent.workspace if agent is not None else workspace
    if agent is not None:
        scope = f"agent:{agent.pk}"
    else:
        scope = f"workspace:{workspace.pk}" if workspace is not None else "all"
    now = timezone.now()
    with transaction.atomic():
        if owner is not None:
            list(Workspace.objects.select_for_update().filter(pk=owner.pk).values_list("pk"))
        QueuedJob.objects.stale(now).delete()
        waiting = {row.job: row for row in QueuedJob.objects.filter(scope=scope, job__in=names)}
        new = [job for job in names if job not in waiting]
        cap = settings.DEWEE_MAX_QUEUED_JOBS
        if owner is not None and new and cap > 0:
            count = QueuedJob.objects.filter(workspace=owner).count()
            if count + len(new) > cap:
                raise TooManyJobs(
                    f"This workspace has {count} job(s) waiting for the worker and may have at "
                    f"most {cap}; try again once they have started",
                    details={"waiting": count, "limit": cap, "asked": len(new)},
                )
        queued = []
        for job in names:
            row, coalesced = waiting.get(job), True
            if row is None:
                row, coalesced = _queue_job(job=job, scope=scope, owner=owner, agent=agent, now=now)
            queued.append(
                {
                    "job": job,
                    "task_id": row.task_id,
                    "queued_at": row.queued_at,
                    "coalesced": coalesced,
                }
            )
    return queued


def describe_queued(queued: list[dict[str, Any]]) -> str:
    """One sentence for people: what was queued, and what was waiting already."""
    new = [item["job"] for item in queued if not item["coalesced"]]
    joined = [item["job"] for item in queued if item["coalesced"]]
    parts = []
    if new:
        parts.append(f"Queued {', '.join(new)}: the worker runs it in a moment.")
    if joined:
        parts.append(f"Already queued and not started yet: {', '.join(joined)} (not queued twice).")
    return " ".join(parts)


def _queue_job(
    *, job: str, scope: str, owner: Workspace | None, agent: Agent | None, now: datetime
) -> tuple[QueuedJob, bool]:
    """The job's ledger row and its task; True when another trigger queued it first."""
    try:
        with transaction.atomic():
            row = QueuedJob.objects.create(
                job=job, scope=scope, workspace=owner, agent=agent, queued_at=now
            )
    except IntegrityError:
        # Only jobs over every agent can meet here (no workspace row to lock): another
        # trigger queued the same job a moment ago.
        return QueuedJob.objects.get(job=job, scope=scope), True
    row.task_id = str(
        async_task(
            "memory.tasks.run_job",
            job,
            agent_pk=agent.pk if agent else None,
            workspace_pk=owner.pk if owner and not agent else None,
            trigger=RunTrigger.MANUAL.value,
            queued_job_pk=row.pk,
            task_name=f"{SCHEDULE_PREFIX}{job} (manual)",
            group=SCHEDULE_PREFIX + "manual",
        )
    )
    QueuedJob.objects.filter(pk=row.pk).update(task_id=row.task_id)
    return row, False
