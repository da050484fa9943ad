"""Fact check on adversarial text: how its time grows with the text's length.

    .venv/bin/python bench/extraction_adversarial.py [--phrase "I work at "] [--sizes 1000,2000]
    .venv/bin/python bench/extraction_adversarial.py --all-phrases --sizes 1000,4000,20000
    .venv/bin/python bench/extraction_adversarial.py --all-patterns --sizes 20000
    .venv/bin/python scripts/with-postgres -- .venv/bin/python bench/extraction_adversarial.py

Times ``check_text`` (the function behind ``POST /v1/facts/check``, the dashboard's check
preview and learning from memories; a preview, nothing applied) on one phrase repeated to
each length, in a database of its own (SQLite: a temporary file; PostgreSQL: the
DATABASE_URL server). Sizes after one that took longer than ``--give-up`` seconds are
skipped: a cubic extractor would take many minutes at the 20,000-character limit.

``--all-phrases``: the same for each phrase of bench/regex_adversary.PHRASES (one trigger
phrase per pattern family, runs of blanks), the entity tagger timed too. ``--all-patterns``:
every pattern bench/regex_adversary.py collects, alone, on its worst adversarial text (the
slowest first).
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

from bench import regex_adversary  # noqa: E402
from facts.services import check_text  # noqa: E402
from language.entities import extract_entities  # noqa: E402
from tenancy.models import Agent  # noqa: E402
from tenancy.services import create_agent, default_workspace  # noqa: E402


def _text(phrase: str, size: int) -> str:
    # Words at both ends: check_text strips blanks and refuses a blank text.
    body = (phrase * (size // len(phrase) + 1))[: size - 4]
    return f"Hi {body}."


def _phrase(agent: Agent, phrase: str, sizes: list[int], give_up: float, entities: bool) -> None:
    print(f"phrase {phrase!r}")
    slow = False
    for size in sizes:
        if slow:
            print(f"{size:>6} chars: skipped")
            continue
        text = _text(phrase, size)
        started = time.perf_counter()
        check_text(agent=agent, user="bench", text=text, actor="bench")
        seconds = time.perf_counter() - started
        line = f"{size:>6} chars: {seconds:8.3f} s"
        if entities:
            started = time.perf_counter()
            extract_entities(text)
            line += f"  entities {time.perf_counter() - started:6.3f} s"
        print(line, flush=True)
        slow = seconds > give_up


def _patterns(sizes: list[int]) -> None:
    for size in sizes:
        rows = []
        for found in regex_adversary.collect():
            worst, which = 0.0, ""
            for name, text in regex_adversary.adversarial_texts(found.pattern, size).items():
                started = time.perf_counter()
                regex_adversary.run(found.pattern, text)
                seconds = time.perf_counter() - started
                if seconds > worst:
                    worst, which = seconds, name
            rows.append((worst, found.name, which))
        rows.sort(reverse=True)
        print(f"{len(rows)} patterns at {size} chars, slowest first")
        for worst, name, which in rows[:15]:
            print(f"{worst:8.3f} s  {name}  [{which}]", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--phrase", default="I work at ")
    parser.add_argument("--sizes", default="1000,2000,4000,8000,20000")
    parser.add_argument("--give-up", type=float, default=60.0)
    parser.add_argument("--all-phrases", action="store_true")
    parser.add_argument("--all-patterns", action="store_true")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.all_patterns:
        _patterns(sizes)
        return
    call_command("migrate", verbosity=0)
    agent = create_agent(workspace=default_workspace(), agent_id=f"bench-{time.time_ns()}")
    phrases = regex_adversary.PHRASES if args.all_phrases else [args.phrase]
    for phrase in phrases:
        _phrase(agent, phrase, sizes, args.give_up, entities=args.all_phrases)


if __name__ == "__main__":
    main()
