"""django-q2 tasks: each takes ids, never objects, and calls one service."""

from memory.exceptions import JobAlreadyRunning
from memory.services.graph import queue_graph_build as queue_graph_catch_up
from memory.services.graph_rebuild import build_pending_graph
from memory.services.heartbeats import beat_worker_heartbeat
from memory.services.maintenance import run_maintenance, take_queued_job
from tenancy.models import Agent, Workspace


def run_job(
    job: str,
    agent_pk: int | None = None,
    workspace_pk: int | None = None,
    trigger: str = "schedule",
    queued_job_pk: int | None = None,
) -> dict[str, object]:
    """Run one maintenance job (a schedule, or Run now). An agent or workspace erased since
    the job was queued leaves nothing to do (and took its row of the queue's ledger along).
    A job queued on request marks its ledger row taken before anything else, so that a
    worker dying from here to the run's start leaves a row the heartbeat rule reclaims."""
    if queued_job_pk is not None:
        take_queued_job(pk=queued_job_pk)
    agent = workspace = None
    if agent_pk is not None:
        agent = Agent.objects.select_related("workspace").filter(pk=agent_pk).first()
        if agent is None:
            return {"job": job, "skipped": "agent no longer exists"}
    if workspace_pk is not None:
        workspace = Workspace.objects.filter(pk=workspace_pk).first()
        if workspace is None:
            return {"job": job, "skipped": "workspace no longer exists"}
    try:
        run, _ = run_maintenance(
            job=job, agent=agent, workspace=workspace, trigger=trigger, queued_job_pk=queued_job_pk
        )
    except JobAlreadyRunning:
        # Another worker (of this host or another) runs it now: its run does this one's work.
        return {"job": job, "skipped": "a run of it is under way"}
    return {"job": job, "run": run.pk, "touched": run.touched, "counts": run.counts}


def build_graph(agent_pk: int) -> dict[str, object]:
    """After stores: the graph of the agent's memories not built yet; a long catch-up goes
    on in a new job (memory.services.graph_rebuild.build_pending_graph)."""
    agent = Agent.objects.filter(pk=agent_pk).first()
    if agent is None:
        return {"skipped": "agent no longer exists"}
    done = build_pending_graph(agent=agent)
    if done.more:
        queue_graph_catch_up(agent=agent)
    return {"memories": done.memories, "more": done.more}


def worker_heartbeat() -> dict[str, object]:
    """Every minute: the cluster's sign of life for /readyz."""
    beat = beat_worker_heartbeat()
    return {"host": beat.host, "beat_at": beat.beat_at.isoformat()}
