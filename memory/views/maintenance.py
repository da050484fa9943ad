"""The dashboard's Maintenance page: each job's schedule, its recent runs and an importance
chart, and running a job now (memory.services.maintenance). Reading it writes nothing."""

from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from dewee.dashboard import (
    HtmxHttpRequest,
    agent_picker,
    domain_errors,
    flash,
    is_fragment,
    mount_url,
    operator_access,
    picked_agent,
    render_page,
)
from dewee.forms import CursorForm
from memory.forms import (
    RunJobForm,
)
from memory.models import MaintenanceJob
from memory.queries import (
    importance_history,
    maintenance_status,
    queued_jobs,
)
from memory.services.maintenance import queue_maintenance
from tenancy.access import Access

CHART_HEIGHT = 160
CHART_COLUMN = 14


def _importance_chart(snapshots: list[Any]) -> dict[str, Any]:
    """Stacked columns, one per decay pass: the share of the agent's memories in each band
    of importance (0-0.1 at the bottom, 0.9-1 on top)."""
    columns = []
    for index, snapshot in enumerate(snapshots):
        y, segments = float(CHART_HEIGHT), []
        for band, count in enumerate(snapshot.buckets):
            height = CHART_HEIGHT * count / snapshot.total if snapshot.total else 0
            y -= height
            if height:
                segments.append({"band": band, "y": round(y, 2), "height": round(height, 2)})
        columns.append({"x": index * CHART_COLUMN, "snapshot": snapshot, "segments": segments})
    return {
        "columns": columns,
        "width": max(len(columns), 1) * CHART_COLUMN,
        "height": CHART_HEIGHT,
        "bar": CHART_COLUMN - 2,
        "bands": [f"{b / 10:.1f}–{(b + 1) / 10:.1f}" for b in range(10)],
    }


@login_required
@require_GET
@vary_on_headers("HX-Request")
@domain_errors
def maintenance(request: HtmxHttpRequest) -> HttpResponse:
    """Operators: each background job's last runs, next run and Run now; the chosen agent's
    importance distribution over time. With htmx, the jobs table alone (it refreshes itself
    while the page is open)."""
    access = operator_access(request)
    context: dict[str, Any] = {"jobs": _jobs(access), "nav": "maintenance"}
    if is_fragment(request):  # the table's own refresh: no agents, no chart
        return render_page(request, "dashboard/maintenance.html", "jobs", access, context)
    choices, data = agent_picker(access, request)
    form = CursorForm(data, agent_choices=choices)
    context |= {"form": form, "has_agents": bool(choices)}
    if choices and form.is_valid():
        agent = picked_agent(access, form)
        context |= {"agent": agent, "chart": _importance_chart(importance_history(agent=agent))}
    return render_page(request, "dashboard/maintenance.html", "jobs", access, context)


def _jobs(access: Access, only: str | None = None) -> list[dict[str, Any]]:
    """The jobs' status, each with whether it waits for the worker or runs (``busy``): its
    row then follows the run every second until it is done."""
    queued = queued_jobs(access=access)
    jobs = maintenance_status(access=access, only=only)
    for job in jobs:
        last = job["last_runs"][0] if job["last_runs"] else None
        job["queued_at"] = queued.get(job["job"])
        job["busy"] = bool(job["queued_at"]) or (last is not None and last["status"] == "running")
    return jobs


@login_required
@require_GET
@domain_errors
def maintenance_job(request: HtmxHttpRequest, job: str) -> HttpResponse:
    """One job's row of the table: what a row polls while its job waits or runs."""
    access = operator_access(request)
    if job not in MaintenanceJob.values:
        raise Http404("No such job.")
    (status,) = _jobs(access, only=job)
    return render(request, "dashboard/maintenance.html#job_row", {"job": status})


@login_required
@require_POST
@domain_errors
def maintenance_run(request: HtmxHttpRequest) -> HttpResponse:
    """Run now: the job goes to the worker. With htmx, its row comes back at once and follows
    the run in place (queued, running, then its result); without, the page says so."""
    access = operator_access(request)
    form = RunJobForm(request.POST)
    if not form.is_valid():
        raise BadRequest("Unknown job.")
    job = form.cleaned_data["job"]
    (queued,) = queue_maintenance(jobs=[job])
    if request.htmx:
        (status,) = _jobs(access, only=job)
        context = {"job": status, "coalesced": queued["coalesced"]}
        return render(request, "dashboard/maintenance.html#job_row", context)
    label = MaintenanceJob(job).label
    if queued["coalesced"]:
        flash(request, f"{label} was already queued and has not started yet: not queued twice.")
    else:
        flash(request, f"{label} queued: the worker runs it in a moment.")
    return redirect(mount_url(request, "memory:maintenance"))
