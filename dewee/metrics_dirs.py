"""Where each process of one Dewee instance keeps its Prometheus counts (multiprocess mode).

prometheus-client counts per process in memory-mapped files, one set per pid, in the folder
named by PROMETHEUS_MULTIPROC_DIR, which it reads when it is first imported: so the folder is
chosen here, before anything imports it (gunicorn's config for the web, the settings for the
worker cluster), without Django.

One instance's folder (DEWEE_METRICS_DIR; `serve` gives each instance its own under
var/metrics/) holds ``web-<bind>`` for its application server and ``worker`` for its worker
cluster; /metrics reads both, so jobs run by the worker show on the web's scrape. Each is
emptied when its server starts: counts from an earlier run (of other pids) would otherwise be
added to this one's forever."""

import os
import re
import shutil
from pathlib import Path

MULTIPROC_VAR = "PROMETHEUS_MULTIPROC_DIR"
BASE_DIR = Path(__file__).resolve().parent.parent


def enabled() -> bool:
    return os.environ.get("DEWEE_METRICS", "true").strip().lower() not in {
        "0",
        "false",
        "off",
        "no",
    }


def instance_dir() -> Path:
    if explicit := os.environ.get("DEWEE_METRICS_DIR"):
        return Path(explicit)
    return Path(os.environ.get("DEWEE_VAR_DIR", BASE_DIR / "var")) / "metrics"


def folder_name(address: str) -> str:
    """A listening address as a folder name: 127.0.0.1:8000 -> 127.0.0.1-8000."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", address).strip("-") or "default"


def web_dir(bind: str) -> Path:
    return instance_dir() / f"web-{folder_name(bind.split(',')[0])}"


def worker_dir() -> Path:
    return instance_dir() / "worker"


def start_fresh(folder: Path) -> None:
    """Make ``folder`` this process's (and its children's) multiprocess folder, empty."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.environ[MULTIPROC_VAR] = str(folder)


def scraped_dirs() -> list[Path]:
    """The folders /metrics reads: this web server's and its instance's worker cluster's."""
    own = os.environ.get(MULTIPROC_VAR)
    if not own:
        return []
    folders = [Path(own)]
    worker = Path(own).parent / "worker"
    if worker != folders[0] and worker.is_dir():
        folders.append(worker)
    return folders
