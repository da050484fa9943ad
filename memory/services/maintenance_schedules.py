"""django-q2's schedules kept in step with the settings: one per enabled maintenance job
(memory.services.maintenance.JOBS), the worker's minute heartbeat, and the storage
compaction after erasures. What every start of the server runs (ensure_schedules).
"""

import math
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django_q.models import Schedule

from memory.services.maintenance import JOBS, SCHEDULE_PREFIX

HEARTBEAT_SCHEDULE = SCHEDULE_PREFIX + "heartbeat"
# The storage compaction after erasures (privacy.compaction): a job of the whole database,
# not of agents, so it keeps no MaintenanceRun; its runs are StorageCompaction rows.
COMPACTION_SCHEDULE = SCHEDULE_PREFIX + "compaction"


def ensure_schedules(*, now: datetime | None = None) -> list[str]:
    """Create or update one django-q2 schedule per enabled job from the settings, and remove
    those of disabled jobs. Idempotent: run at every start. A new schedule runs soon; a
    changed interval takes effect from the next run, which is never later than one new
    interval from now. Returns one line per change, for the start-up output."""
    now = now or timezone.now()
    changes = []
    with transaction.atomic():
        if not Schedule.objects.filter(name=HEARTBEAT_SCHEDULE).exists():
            Schedule.objects.create(
                name=HEARTBEAT_SCHEDULE,
                func="memory.tasks.worker_heartbeat",
                # A beat a minute would crowd the jobs' results out of the saved tasks.
                kwargs="q_options={'save': False}",
                schedule_type=Schedule.MINUTES,
                minutes=1,
                repeats=-1,
                next_run=now,
            )
            changes.append("heartbeat: every 1 min (new)")
        for spec in JOBS.values():
            schedule = Schedule.objects.filter(name=spec.schedule_name).first()
            if not spec.enabled:
                if schedule is not None:
                    schedule.delete()
                    changes.append(f"{spec.job}: schedule removed (disabled)")
                continue
            minutes = max(1, math.ceil(spec.interval_secs / 60))
            if schedule is None:
                Schedule.objects.create(
                    name=spec.schedule_name,
                    func="memory.tasks.run_job",
                    args=repr(spec.job),
                    schedule_type=Schedule.MINUTES,
                    minutes=minutes,
                    repeats=-1,
                    next_run=now + timedelta(minutes=1),
                )
                changes.append(f"{spec.job}: every {minutes} min (new)")
            elif schedule.minutes != minutes or schedule.schedule_type != Schedule.MINUTES:
                schedule.schedule_type, schedule.minutes = Schedule.MINUTES, minutes
                soonest = now + timedelta(minutes=minutes)
                schedule.next_run = min(schedule.next_run or soonest, soonest)
                schedule.save(update_fields=["schedule_type", "minutes", "next_run"])
                changes.append(f"{spec.job}: every {minutes} min (changed)")
        changes += _ensure_compaction_schedule(now)
    return changes


def _ensure_compaction_schedule(now: datetime) -> list[str]:
    schedule = Schedule.objects.filter(name=COMPACTION_SCHEDULE).first()
    interval = int(settings.DEWEE_COMPACTION_INTERVAL_SECS)
    if interval <= 0:
        if schedule is None:
            return []
        schedule.delete()
        return ["compaction: schedule removed (disabled)"]
    minutes = max(1, math.ceil(interval / 60))
    if schedule is None:
        Schedule.objects.create(
            name=COMPACTION_SCHEDULE,
            func="privacy.tasks.compact_after_erasures",
            schedule_type=Schedule.MINUTES,
            minutes=minutes,
            repeats=-1,
            next_run=now + timedelta(minutes=minutes),
        )
        return [f"compaction: every {minutes} min (new)"]
    if schedule.minutes == minutes and schedule.schedule_type == Schedule.MINUTES:
        return []
    schedule.schedule_type, schedule.minutes = Schedule.MINUTES, minutes
    soonest = now + timedelta(minutes=minutes)
    schedule.next_run = min(schedule.next_run or soonest, soonest)
    schedule.save(update_fields=["schedule_type", "minutes", "next_run"])
    return [f"compaction: every {minutes} min (changed)"]
