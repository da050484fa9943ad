"""How settings are read: from the environment, with defaults for the embedded edition,
which keeps everything under ``var/``."""

import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(os.environ.get("DEWEE_VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return raw.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def private_var_dir() -> None:
    """var/ holds the database, the secret key and the models: only Dewee's user may
    enter it (mode 0700 when created; an existing folder is left as the operator set it)."""
    VAR_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
