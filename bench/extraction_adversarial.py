"""Fact check on adversarial text: how its time grows with the text's length.

    .venv/bin/python bench/extraction_adversarial.py [--phrase "I work at "] [--sizes 1000,2000]
    .venv/bin/python scripts/with-postgres -- .venv/bin/python bench/extraction_adversarial.py

Times ``check_text`` (the function behind ``POST /v1/facts/check``, the dashboard's check
preview and learning from memories; a preview, nothing applied) on one phrase repeated to
each length, in a database of its own (SQLite: a temporary file; PostgreSQL: the
DATABASE_URL server). Sizes after one that took longer than ``--give-up`` seconds are
skipped: a cubic extractor would take many minutes at the 20,000-character limit.
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
if not os.environ.get("DATABASE_URL"):
    os.environ["DEWEE_VAR_DIR"] = tempfile.mkdtemp(prefix="dewee-bench-")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dewee.settings")

import django

django.setup()

from django.core.management import call_command  # noqa: E402

from facts.services import check_text  # noqa: E402
from tenancy.services import create_agent, default_workspace  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--phrase", default="I work at ")
    parser.add_argument("--sizes", default="1000,2000,4000,8000,20000")
    parser.add_argument("--give-up", type=float, default=60.0)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    agent = create_agent(workspace=default_workspace(), agent_id=f"bench-{time.time_ns()}")
    print(f"phrase {args.phrase!r}")
    slow = False
    for size in (int(s) for s in args.sizes.split(",")):
        if slow:
            print(f"{size:>6} chars: skipped")
            continue
        text = (args.phrase * (size // len(args.phrase) + 1))[:size]
        started = time.perf_counter()
        check_text(agent=agent, user="bench", text=text, actor="bench")
        seconds = time.perf_counter() - started
        print(f"{size:>6} chars: {seconds:8.3f} s", flush=True)
        slow = seconds > args.give_up


if __name__ == "__main__":
    main()
