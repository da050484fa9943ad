"""`manage.py qcluster`: django-q2's worker cluster, ending with exit code 75 when one of its
processes died suddenly, for its supervisor to start a fresh one (see dewee.worker)."""

import os
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from dewee import metrics_dirs
from dewee.worker import SUDDEN_DEATH_EXIT, run_cluster


class Command(BaseCommand):
    help = "Run the background worker cluster (decay, expiry, idle sessions, AutoPilot)."

    def handle(self, *args: Any, **options: Any) -> None:
        settings.SECRET_KEY  # noqa: B018 (the cluster signs its tasks with it)
        if folder := os.environ.get(metrics_dirs.MULTIPROC_VAR):
            # This run's counts only (its processes' files are made after this, at fork).
            metrics_dirs.start_fresh(Path(folder))
        code = run_cluster()
        if code == SUDDEN_DEATH_EXIT:
            raise CommandError(
                "A process of the worker cluster died suddenly; the cluster stopped.",
                returncode=SUDDEN_DEATH_EXIT,
            )
        if code != 0:
            raise CommandError(f"The worker cluster stopped with exit code {code}.")
