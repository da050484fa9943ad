"""What learning facts from text costs, through the REST API: the check of a chat message
and the store of memories with learning on against the same store with it off.

    .venv/bin/python bench/learning_cost.py                                            # SQLite
    .venv/bin/python scripts/with-postgres -- .venv/bin/python bench/learning_cost.py  # PostgreSQL

Messages of about --chars characters are made by joining chat messages of the natural
development set (bench/facts_quality/natural/dev, written for Dewee) in a seeded random
order and cutting at a word. Three measures, in one process on the same machine:

- the check: POST /v1/facts/check (apply false) of each message for an agent holding a few
  facts about the user; p50 and p95 over --checks messages;
- the extractor alone: language.extraction.extract() of the same messages (p50, p95);
- the store: POST /v1/memories of one message at a time for a user, with ``extract_facts``
  "sync" (learned before the answer) and "off", interleaved round by round (--rounds of
  --stores each) so both see the same machine; the median rate of each and their ratio.

Run it on two trees (before and after a change to the extractor) to compare: the ratios are
what to compare on a shared machine, not the absolute times.
"""

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = ROOT / "bench" / "facts_quality" / "natural" / "dev" / "snippets.jsonl"
NOW = "2030-06-12T12:00:00+00:00"
USER = "cost-user"
SEED_FACTS = [
    ("employer", "", "Acme"),
    ("city", "", "Leeds"),
    ("likes", "coffee", "coffee"),
    ("spouse", "", "Sam"),
]


def messages(count: int, chars: int, seed: int) -> list[str]:
    texts = [json.loads(line)["text"] for line in DATA.read_text(encoding="utf-8").splitlines()]
    rng = random.Random(seed)
    made = []
    for _ in range(count):
        parts: list[str] = []
        while sum(len(p) + 1 for p in parts) < chars:
            parts.append(rng.choice(texts).replace("\n", " "))
        text = " ".join(parts)[:chars]
        made.append(text.rsplit(" ", 1)[0] if len(text) == chars else text)
    return made


def percentiles(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return (
        statistics.median(ordered) * 1000,
        ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))] * 1000,
    )


class Api:
    """JSON over Django's test client (the whole request path) with a fresh API key."""

    def __init__(self, workspace: Any) -> None:
        from django.test import Client

        from tenancy.services import create_api_key

        _key, token = create_api_key(workspace=workspace, name="learning cost", actor="bench")
        self.client = Client(HTTP_HOST="127.0.0.1")
        self.headers = {"Authorization": f"Bearer {token}"}

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        response = self.client.post(
            path, json.dumps(body), content_type="application/json", headers=self.headers
        )
        if response.status_code not in (200, 201):
            raise RuntimeError(f"POST {path} -> {response.status_code}: {response.content!r}")
        return response.json()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chars", type=int, default=300)
    parser.add_argument("--checks", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--stores", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL"):
        os.environ["DEWEE_VAR_DIR"] = tempfile.mkdtemp(prefix="dewee-learning-cost-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dewee.settings")
    os.environ.setdefault(
        "DEWEE_STATICFILES_STORAGE", "django.contrib.staticfiles.storage.StaticFilesStorage"
    )
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from language.extraction import extract
    from tenancy.services import create_agent, default_workspace

    call_command("migrate", verbosity=0)
    workspace = default_workspace()
    api = Api(workspace)
    texts = messages(args.checks, args.chars, args.seed)
    create_agent(workspace=workspace, agent_id="cost-check")
    for predicate, qualifier, value in SEED_FACTS:
        api.post(
            "/v1/facts",
            {
                "agent_id": "cost-check",
                "user": USER,
                "subject": "user",
                "predicate": predicate,
                "qualifier": qualifier or None,
                "value": value,
                "source": {"kind": "operator", "operator": "bench", "excerpt": "seeded"},
            },
        )
    body = {"agent_id": "cost-check", "user": USER, "apply": False, "now": NOW}
    api.post("/v1/facts/check", {**body, "text": texts[0]})  # warm: first request, imports
    check_times, extract_times = [], []
    for text in texts:
        started = time.perf_counter()
        api.post("/v1/facts/check", {**body, "text": text})
        check_times.append(time.perf_counter() - started)
        started = time.perf_counter()
        extract(text)
        extract_times.append(time.perf_counter() - started)

    rates: dict[str, list[float]] = {"off": [], "sync": []}
    store_texts = messages(args.rounds * args.stores * 2, args.chars, args.seed + 1)
    for mode in rates:  # one store of each first: the embedding model loads once
        create_agent(workspace=workspace, agent_id=f"cost-store-{mode}")
        api.post(
            "/v1/memories",
            {
                "agent_id": f"cost-store-{mode}",
                "user": USER,
                "content": "warm up",
                "extract_facts": mode,
            },
        )
    for round_index in range(args.rounds):
        for mode in rates:
            batch = store_texts[: args.stores]
            store_texts = store_texts[args.stores :]
            started = time.perf_counter()
            for text in batch:
                api.post(
                    "/v1/memories",
                    {
                        "agent_id": f"cost-store-{mode}",
                        "user": USER,
                        "content": text,
                        "extract_facts": mode,
                    },
                )
            rates[mode].append(len(batch) / (time.perf_counter() - started))
        print(f"round {round_index + 1}/{args.rounds} done", file=sys.stderr)

    check_p50, check_p95 = percentiles(check_times)
    extract_p50, extract_p95 = percentiles(extract_times)
    off, on = statistics.median(rates["off"]), statistics.median(rates["sync"])
    print(f"## Learning cost on {connection.vendor} ({args.chars}-character messages)\n")
    print("| measure | p50 | p95 |\n|---|---|---|")
    print(
        f"| POST /v1/facts/check, ms ({len(texts)} messages) | {check_p50:.1f} | {check_p95:.1f} |"
    )
    print(f"| extract() alone, ms | {extract_p50:.1f} | {extract_p95:.1f} |")
    print(f"\n| store, one memory per request | memories/s (median of {args.rounds} rounds) |")
    print("|---|---|")
    print(f"| extract_facts off | {off:.1f} |")
    print(f"| extract_facts sync | {on:.1f} |")
    print(f"| sync / off | {on / off:.2f} |")


if __name__ == "__main__":
    main()
