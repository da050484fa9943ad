"""One run of a maintenance job at a time, whatever the number of worker hosts: a second
decay pass while one is under way would go over the same agents' memories at once.

On PostgreSQL the lease is a session advisory lock of the run's connection (advisory locks
belong to the database, which every host shares); on SQLite (one host) a lock on a file
beside the database file. Either is let go when the
run ends, and also when its process dies: a worker killed mid-run never leaves a job locked.
"""

import fcntl
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.db import connection


def _advisory_key(job: str) -> int:
    """A stable signed 64-bit key per job, the space pg_try_advisory_lock takes."""
    digest = hashlib.sha256(f"dewee.maintenance:{job}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


@contextmanager
def job_lease(job: str) -> Iterator[bool]:
    """Hold ``job``'s lease for the block when no other run holds it: yields whether it is
    held (False: another run of the job is under way; nothing is waited for)."""
    if connection.vendor == "postgresql":
        key = _advisory_key(job)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_try_advisory_lock(%s)", [key])
            held = bool(cursor.fetchone()[0])
        try:
            yield held
        finally:
            if held:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_unlock(%s)", [key])
        return
    database = Path(connection.settings_dict["NAME"])
    with database.with_name(f"{database.name}.job-{job}.lock").open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
