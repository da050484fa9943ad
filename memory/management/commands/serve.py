"""The web server and a django-q2 worker together, for `make run`: Ctrl-C stops both, and
if either stops by itself the other is stopped too, so nothing is left running unseen."""

import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.services.maintenance import ensure_schedules

STOP_GRACE_SECS = 10


class Command(BaseCommand):
    help = "Serve the web app and run the background worker in one terminal."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")

    def handle(self, *args: Any, addrport: str, **options: Any) -> None:
        for line in ensure_schedules():
            self.stdout.write(f"schedule {line}")
        manage = [sys.executable, str(Path(settings.BASE_DIR) / "manage.py")]
        children = {
            "worker": subprocess.Popen([*manage, "qcluster"]),
            "web": subprocess.Popen([*manage, "runserver", "--noreload", addrport]),
        }
        stop = False

        def request_stop(signum: int, frame: object) -> None:
            nonlocal stop
            stop = True

        signal.signal(signal.SIGINT, request_stop)
        signal.signal(signal.SIGTERM, request_stop)
        ended: list[str] = []
        while not stop and not ended:
            ended = [name for name, child in children.items() if child.poll() is not None]
            time.sleep(0.5)
        self._stop_all(children)
        if ended:
            raise CommandError(f"The {ended[0]} process stopped by itself; stopped the rest.")

    def _stop_all(self, children: dict[str, subprocess.Popen[bytes]]) -> None:
        for child in children.values():
            if child.poll() is None:
                child.terminate()  # SIGTERM: both stop cleanly on it
        deadline = time.monotonic() + STOP_GRACE_SECS
        for name, child in children.items():
            try:
                child.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.stderr.write(f"The {name} process did not stop in time; killing it.")
                child.kill()
                child.wait()
        self.stdout.write("Stopped the web server and the worker.")
