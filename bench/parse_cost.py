"""The cost of the optional parser (language/parse.py): extraction, the fact check and
storing with learning, each with the parser and with DEWEE_PARSER=off, on chat messages of
about 300 characters (the dev snippets of bench/facts_quality/natural joined and cut at a
word). Writes a markdown table.

    .venv/bin/python bench/parse_cost.py [--messages 60] [--stores 30] [--out FILE]

SQLite in a fresh temporary directory. The modes alternate message by message, so a busy
machine weighs on both alike. Targets (issue 22): the check's p50 <= 25 ms for a
300-character message; storing with learning keeps >= 70% of its rules-only throughput.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEV = ROOT / "bench" / "facts_quality" / "natural" / "dev" / "snippets.jsonl"
LENGTH = 300
MODES = ("off", "auto")


def messages(count: int) -> list[str]:
    """``count`` messages of about LENGTH characters, each of whole dev snippets."""
    texts = [json.loads(line)["text"] for line in DEV.read_text().splitlines() if line]
    texts = [" ".join(t.split()) for t in texts]
    found, current = [], ""
    for text in texts * 3:
        current = f"{current} {text}".strip()
        if len(current) >= LENGTH:
            found.append(current[:LENGTH].rsplit(" ", 1)[0])
            current = ""
        if len(found) == count:
            break
    return found


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def timed(mode: str, work: Callable[[], object]) -> float:
    os.environ["DEWEE_PARSER"] = mode
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args.add_argument("--messages", type=int, default=60)
    args.add_argument("--stores", type=int, default=30)
    args.add_argument("--out", type=Path)
    options = args.parse_args()
    sys.path.insert(0, str(ROOT))
    os.environ["DEWEE_VAR_DIR"] = tempfile.mkdtemp(prefix="dewee-parse-cost-")
    os.environ.pop("DATABASE_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dewee.settings")
    import django

    django.setup()
    from django.core.management import call_command

    from facts.services import check_text
    from language import parse as parsing
    from language.extraction import extract
    from memory.services import MemoryInput, store_memories
    from memory.signals import Learning
    from tenancy.services import create_agent, default_workspace

    call_command("migrate", verbosity=0)
    if parsing.installed_model() is None:
        sys.exit("parse_cost: the parser is not installed (make parser)")
    texts = messages(options.messages)
    os.environ["DEWEE_PARSER"] = "auto"
    started = time.perf_counter()
    parsing.parse("Warming up.")
    load = time.perf_counter() - started
    workspace = default_workspace()
    agent = create_agent(workspace=workspace, agent_id="parse-cost")
    check = partial(check_text, agent=agent, user="u1", actor="bench")
    store = partial(store_memories, agent=agent, learning=Learning.SYNC)
    # Warm both paths (the embedder, the gazetteer, the database) before measuring.
    for mode in MODES:
        timed(mode, partial(check, text=texts[0]))
        timed(mode, partial(store, items=[MemoryInput(content=texts[0], user="u1")]))

    costs: dict[tuple[str, str], list[float]] = {}
    for text in texts:
        for mode in MODES:
            costs.setdefault(("extract", mode), []).append(timed(mode, partial(extract, text)))
            costs.setdefault(("check", mode), []).append(timed(mode, partial(check, text=text)))
    for index in range(options.stores):
        text = texts[index % len(texts)]
        for mode in MODES:
            items = [MemoryInput(content=text, user=f"u{index}-{mode}")]
            costs.setdefault(("store+learn", mode), []).append(
                timed(mode, partial(store, items=items))
            )

    mean = statistics.mean(len(t) for t in texts)
    rows = [
        f"## Cost of the optional parser ({len(texts)} messages of {mean:.0f} characters on "
        f"average, SQLite; pipeline load {load:.1f} s once per process)",
        "",
        "| operation | rules only p50 | p95 | with parser p50 | p95 | target |",
        "|---|---|---|---|---|---|",
    ]
    targets = {"check": "p50 <= 25 ms", "extract": "", "store+learn": ""}
    for operation in ("extract", "check", "store+learn"):
        off, on = costs[(operation, "off")], costs[(operation, "auto")]
        cells = [
            f"{1000 * percentile(values, share):.1f} ms"
            for values in (off, on)
            for share in (0.5, 0.95)
        ]
        rows.append(f"| {operation} | {' | '.join(cells)} | {targets[operation]} |")
    off_rate = 1 / statistics.mean(costs[("store+learn", "off")])
    on_rate = 1 / statistics.mean(costs[("store+learn", "auto")])
    rows += [
        "",
        f"Store with learning (one memory a call): {off_rate:.1f} memories/s rules only, "
        f"{on_rate:.1f} with the parser: {100 * on_rate / off_rate:.0f}% (target >= 70%).",
    ]
    table = "\n".join(rows)
    print(table)
    if options.out:
        options.out.write_text(table + "\n")


if __name__ == "__main__":
    main()
