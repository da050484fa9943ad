"""The maintenance jobs: each one's pass (a dotted path, imported when it runs), the setting
of its interval, whether it is AutoPilot's. Memory's own jobs are listed here; an app above
adds its own when it is ready (register_job: facts' ending of expired facts), so that one
schedule, one Run now, one API trigger and one CLI serve every job."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.conf import settings
from django.utils.module_loading import import_string

from memory.models import MaintenanceJob

if TYPE_CHECKING:
    from memory.services.passes import PassResult

SCHEDULE_PREFIX = "dewee:"


@dataclass(frozen=True)
class JobSpec:
    job: str
    pass_path: str
    interval_setting: str
    autopilot: bool = False
    # The pass takes ``progress(done, total)`` (a bar for the CLI's long runs).
    reports_progress: bool = False

    @property
    def interval_secs(self) -> int:
        return int(getattr(settings, self.interval_setting))

    @property
    def enabled(self) -> bool:
        return self.interval_secs > 0 and (
            not self.autopilot or bool(settings.DEWEE_AUTOPILOT_ENABLED)
        )

    @property
    def schedule_name(self) -> str:
        return SCHEDULE_PREFIX + self.job

    def run_pass(self) -> Callable[..., "PassResult"]:
        return import_string(self.pass_path)


JOBS: dict[str, JobSpec] = {
    spec.job: spec
    for spec in [
        JobSpec(
            MaintenanceJob.DECAY.value,
            "memory.services.decay.decay_pass",
            "DEWEE_DECAY_INTERVAL_SECS",
            reports_progress=True,
        ),
        JobSpec(
            MaintenanceJob.EXPIRY.value,
            "memory.services.expiry.expiry_pass",
            "DEWEE_EXPIRY_INTERVAL_SECS",
        ),
        JobSpec(
            MaintenanceJob.IDLE_SESSIONS.value,
            "memory.services.idle_sessions.idle_sessions_pass",
            "DEWEE_SESSION_SWEEP_INTERVAL_SECS",
        ),
        JobSpec(
            MaintenanceJob.DEDUP.value,
            "memory.services.autopilot.autopilot_dedup_pass",
            "DEWEE_AUTOPILOT_DEDUP_INTERVAL_SECS",
            autopilot=True,
        ),
        JobSpec(
            MaintenanceJob.CONSOLIDATE.value,
            "memory.services.autopilot.autopilot_consolidate_pass",
            "DEWEE_AUTOPILOT_CONSOLIDATE_INTERVAL_SECS",
            autopilot=True,
        ),
    ]
}


def register_job(spec: JobSpec) -> None:
    """Add ``spec`` (another app's job; one of MaintenanceJob's names) to the jobs."""
    JOBS[spec.job] = spec
