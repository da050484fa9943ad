"""Create or update the background jobs' schedules from the settings (idempotent)."""

from typing import Any

from django.core.management.base import BaseCommand

from memory.services.maintenance_schedules import ensure_schedules


class Command(BaseCommand):
    help = "Create or update the django-q2 schedules of decay, expiry, idle sessions and AutoPilot."

    def handle(self, *args: Any, **options: Any) -> None:
        changes = ensure_schedules()
        for line in changes:
            self.stdout.write(f"schedule {line}")
        if not changes:
            self.stdout.write("schedules up to date")
