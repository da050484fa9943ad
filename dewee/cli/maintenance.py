"""``dewee memory autopilot status|trigger``: the background jobs from a terminal."""

import argparse
from typing import Any

from dewee.cli.output import add_json_flag, print_json, print_table
from dewee.cli.progress import with_progress
from dewee.cli.runner import cli_access
from memory.queries import maintenance_status, run_to_dict
from memory.services.maintenance import JOBS, clean_jobs, queue_maintenance, run_maintenance


def register(memory_commands: Any) -> None:
    autopilot = memory_commands.add_parser(
        "autopilot", help="Background jobs: decay, expiry, idle sessions, dedup, consolidation."
    )
    actions = autopilot.add_subparsers(dest="autopilot_command", required=True, metavar="ACTION")

    p = actions.add_parser("status", help="Each job's schedule, next run and last runs.")
    add_json_flag(p)
    p.set_defaults(handler=status)

    p = actions.add_parser("trigger", help="Run jobs now (default: dedup and consolidate).")
    p.add_argument("--job", action="append", choices=list(JOBS), help="A job to run (repeatable).")
    p.add_argument("--agent", help="Only this agent.")
    p.add_argument(
        "--queue",
        action="store_true",
        help="Hand the jobs to the running worker instead of running them here and waiting.",
    )
    add_json_flag(p)
    p.set_defaults(handler=trigger)


def status(args: argparse.Namespace) -> None:
    jobs = maintenance_status(access=cli_access())
    if args.json:
        print_json({"jobs": jobs})
        return
    rows = []
    for job in jobs:
        last = job["last_runs"][0] if job["last_runs"] else {}
        status = last.get("status")
        rows.append(
            {
                "job": job["job"],
                "every": f"{job['interval_secs'] // 60} min" if job["enabled"] else "off",
                "next": job["next_run"],
                "last": last.get("started_at"),
                "status": f"{status}, dry run" if last.get("dry_run") else status,
                "ms": last.get("duration_ms"),
                "touched": _touched(last) if last else None,
            }
        )
    print_table(
        rows,
        [
            ("job", "JOB"),
            ("every", "EVERY"),
            ("next", "NEXT RUN"),
            ("last", "LAST RUN"),
            ("status", "STATUS"),
            ("ms", "MS"),
            ("touched", "TOUCHED"),
        ],
    )
    if not any(job["scheduled"] for job in jobs):
        print("No schedules yet: `make run` (or `manage.py maintenance_schedules`) creates them.")


def trigger(args: argparse.Namespace) -> None:
    agent = cli_access().agent(args.agent) if args.agent else None
    jobs = clean_jobs(args.job)
    if args.queue:
        queued = queue_maintenance(jobs=jobs, agent=agent)
        if args.json:
            print_json({"queued": queued})
        else:
            for item in queued:
                if item["coalesced"]:
                    print(f"{item['job']} was already queued (task {item['task_id']}); not twice")
                else:
                    print(f"queued {item['job']} (task {item['task_id']}); the worker runs it")
        return
    runs = [
        run_to_dict(run_maintenance(job=job, agent=agent, trigger="cli")[0])
        for job in with_progress(
            jobs, total=len(jobs), unit="jobs", description="running", json_output=args.json
        )
    ]
    if args.json:
        print_json({"runs": runs})
        return
    for run in runs:
        counts = ", ".join(f"{k} {v}" for k, v in run["counts"].items()) or "nothing to do"
        print(f"{run['job']}: {_touched(run)} memories in {run['duration_ms']} ms ({counts})")


def _touched(run: dict[str, Any]) -> str:
    """A dry run changed nothing: its count is what it would have touched."""
    return f"would touch {run['touched']}" if run["dry_run"] else f"touched {run['touched']}"
