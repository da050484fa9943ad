"""The hardened deployment (docs/SECURITY.md): the Content-Security-Policy, the API docs from
our own static files, the DEWEE_SECURE switch and its deploy checks, and a private database."""

import os
import stat
import subprocess
import sys
from pathlib import Path

from tests.servers import BASE_DIR

# The environment of `make run` or of a production host: none of the test run's settings.
PLAIN_ENV = {
    k: v
    for k, v in os.environ.items()
    if not k.startswith(("DEWEE_", "DATABASE_URL", "PYTEST", "DJANGO_"))
}


def test_the_embedded_database_and_its_folder_are_private_from_the_first_start(tmp_path):
    """What `make run` does first, on a host that has never run Dewee."""
    var = tmp_path / "fresh" / "var"
    run = subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v0"],
        cwd=BASE_DIR,
        env={**PLAIN_ENV, "DEWEE_VAR_DIR": str(var)},
        capture_output=True,
        text=True,
        umask=0o022,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr

    def mode(path: Path) -> int:
        return stat.S_IMODE(path.stat().st_mode)

    assert mode(var) == 0o700
    assert mode(var / "dewee.sqlite3") == 0o600
    assert mode(var / "secret_key") == 0o600
    assert {p.name: mode(p) for p in var.iterdir() if mode(p) & 0o077} == {}
