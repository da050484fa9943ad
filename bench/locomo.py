"""LoCoMo evidence Recall@k, through Dewee's own store and recall paths.

    .venv/bin/python bench/locomo.py                                   # embedded SQLite
    .venv/bin/python scripts/with-postgres -- .venv/bin/python bench/locomo.py  # PostgreSQL
    .venv/bin/python bench/locomo.py --no-sessions           # turns stored without sessions

The recipe is ../shared/bench/locomo/README.md: one agent per conversation, one memory per
dialogue turn (text with the session date, the speaker and any image caption; the turn's
dia_id kept as its source reference), the 1,536 questions of categories 1-4 with evidence,
each recalled with the question text; a question scores |gold evidence in top k| / |gold|.
The data set is read from the shared folder (CC BY-NC 4.0): it is never copied here.
Each conversation is stored as one user's and recalled for that user (the user boundary).
Each conversation's graph (entities, mentions, edges) is built after its stores, as the
worker builds it (DEWEE_GRAPH_ON_STORE=worker), and counted in the ingest time.

With ``--via rest`` or ``--via client`` the questions are asked over HTTP instead of through
the recall service: raw REST (``POST /v1/memory/recall`` with urllib) or the Python client
(clients/python, ``Dewee.recall``), against the full Django application served in this process
(a WSGI server on a free port, with an API key made for the run). The same scores as raw REST
show the client reads the ranking it is given.

With ``--no-sessions`` each turn is stored as a client that just stores turns would: a plain
memory without a session, created at its LoCoMo session's date, the turns of a session
TURN_SPACING apart in their order; the text is the same.
"""

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
if not os.environ.get("DATABASE_URL"):
    os.environ["DEWEE_VAR_DIR"] = tempfile.mkdtemp(prefix="dewee-locomo-")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dewee.settings")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402
from django.db import connection  # noqa: E402

from dewee.cli.progress import with_progress  # noqa: E402
from memory.recall import Audience, RecallFilters, RecallRequest, recall  # noqa: E402
from memory.services import MemoryInput, start_session, store_memories  # noqa: E402
from memory.services.graph_rebuild import build_pending_graph  # noqa: E402
from tenancy.models import Agent  # noqa: E402
from tenancy.services import create_api_key, default_workspace, ensure_agent  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "bench" / "locomo" / "locomo10.json"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10, 20)
# --no-sessions: how far apart the turns of one LoCoMo session are stored.
TURN_SPACING = timedelta(seconds=5)
_DIA = re.compile(r"D:?(\d+):0*(\d+)")


def session_time(raw: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> an aware datetime."""
    return datetime.strptime(raw.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def turn_text(date: str, turn: dict[str, Any]) -> str:
    text = f"[{date}] {turn['speaker']}: {turn['text']}"
    if turn.get("blip_caption"):
        text += f" [shared an image: {turn['blip_caption']}]"
    return text


def clean_evidence(raw: list[str], known: set[str]) -> list[str]:
    """Split "D8:6; D9:17", repair "D:11:26" and "D30:05", drop ids of no turn."""
    ids = []
    for entry in raw:
        for part in re.split(r"[;,\s]+", entry):
            match = _DIA.fullmatch(part.strip())
            if match:
                dia = f"D{int(match.group(1))}:{int(match.group(2))}"
                if dia in known and dia not in ids:
                    ids.append(dia)
    return ids


def ingest(
    conversation: dict[str, Any], agent: Agent, *, user: str, sessions: bool = True
) -> set[str]:
    conv = conversation["conversation"]
    known = set()
    numbers = sorted(
        int(key.split("_")[1]) for key in conv if re.fullmatch(r"session_\d+", key) and conv[key]
    )
    for number in numbers:
        date = conv[f"session_{number}_date_time"]
        session = (
            start_session(agent=agent, user=user, metadata={"locomo_session": number})
            if sessions
            else None
        )
        when = session_time(date)
        items = []
        for position, turn in enumerate(conv[f"session_{number}"]):
            known.add(turn["dia_id"])
            items.append(
                MemoryInput(
                    content=turn_text(date, turn),
                    session_id=session.pk if session else None,
                    user=user,
                    source_refs=[turn["dia_id"]],
                    metadata={"speaker": turn["speaker"]},
                    created_at=when if session else when + position * TURN_SPACING,
                )
            )
        store_memories(agent=agent, items=items)
    # The graph (entities, mentions, edges), as the worker's jobs build it after the stores.
    while build_pending_graph(agent=agent).more:
        pass
    return known


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def serve_in_a_thread() -> tuple[WSGIServer, str]:
    """The whole application (middleware, keys, the API) on a free port of this process."""
    server = make_server("127.0.0.1", 0, get_wsgi_application(), handler_class=_QuietHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}"


# What each --via asks with: (agent id, user, question, top_k, routing, fusion) -> the
# source references of the hits, best first.
Ask = Callable[[Agent, str, str, int, str, str], tuple[list[str], str]]


def ask_the_service(
    agent: Agent, user: str, query: str, top_k: int, routing: str, fusion: str
) -> tuple[list[str], str]:
    result = recall(
        agent=agent,
        request=RecallRequest(
            query=query,
            top_k=top_k,
            routing=routing,
            fusion=fusion,
            filters=RecallFilters(audience=Audience(user=user)),
        ),
    )
    return [ref for hit in result.hits for ref in hit.memory.source_refs], result.query_class


def over_http(via: str, url: str, key: str) -> Ask:
    if via == "client":
        sys.path.insert(0, str(ROOT / "clients" / "python"))
        from dewee_client import Dewee

        dewee = Dewee(url, key)

        def ask_the_client(
            agent: Agent, user: str, query: str, top_k: int, routing: str, fusion: str
        ) -> tuple[list[str], str]:
            result = dewee.recall(
                query,
                agent_id=agent.agent_id,
                user=user,
                top_k=top_k,
                routing=routing,
                fusion=fusion,
            )
            return [ref for hit in result.items for ref in hit.source_refs], result.query_class

        return ask_the_client

    def ask_rest(
        agent: Agent, user: str, query: str, top_k: int, routing: str, fusion: str
    ) -> tuple[list[str], str]:
        body = {
            "agent_id": agent.agent_id,
            "user": user,
            "query": query,
            "top_k": top_k,
            "routing": routing,
            "fusion": fusion,
        }
        request = urllib.request.Request(
            f"{url}/v1/memory/recall",
            data=json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=60) as answer:
            result = json.load(answer)
        return [ref for hit in result["items"] for ref in hit["source_refs"]], result["query_class"]

    return ask_rest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--conversations", type=int, default=None, help="Only the first N.")
    parser.add_argument("--routing", default="auto")
    parser.add_argument("--fusion", default="minmax")
    parser.add_argument("--json", type=Path, help="Also write per-question results here.")
    parser.add_argument(
        "--via",
        choices=("service", "rest", "client"),
        default="service",
        help="Ask through the recall service (default), raw REST, or the Python client.",
    )
    parser.add_argument(
        "--no-sessions",
        action="store_true",
        help="Store each turn without a session, as a client that just stores turns would.",
    )
    args = parser.parse_args()
    if not args.data.exists():
        sys.exit(f"LoCoMo data not found at {args.data}; pass --data PATH")

    call_command("migrate", verbosity=0)
    conversations = json.loads(args.data.read_text())[: args.conversations]
    workspace = default_workspace()
    run = time.strftime("%Y%m%d%H%M%S")
    ask: Ask = ask_the_service
    if args.via != "service":
        _server, url = serve_in_a_thread()
        _key, secret = create_api_key(
            workspace=workspace, name=f"locomo-{run}", actor="bench", scopes=["read", "write"]
        )
        ask = over_http(args.via, url, secret)
    started = time.perf_counter()
    scores: dict[int, list[float]] = {k: [] for k in KS}
    by_category: dict[tuple[int, int], list[float]] = defaultdict(list)
    any_found: dict[int, list[bool]] = {k: [] for k in KS}
    all_found: dict[int, list[bool]] = {k: [] for k in KS}
    ingest_seconds = recall_seconds = 0.0
    turns = 0
    records = []
    loading = with_progress(
        conversations,
        total=len(conversations),
        unit="conversations",
        description="locomo",
        json_output=False,
    )
    for index, conversation in enumerate(loading):
        agent = ensure_agent(workspace=workspace, agent_id=f"locomo-{run}-{index}")
        t0 = time.perf_counter()
        # Each conversation is one user's (as an agent serving many users stores it), and
        # recalled for that user.
        user = f"user-{index}"
        known = ingest(conversation, agent, user=user, sessions=not args.no_sessions)
        ingest_seconds += time.perf_counter() - t0
        turns += len(known)
        for qa in conversation["qa"]:
            if qa.get("category") not in CATEGORIES:
                continue
            gold = clean_evidence(qa.get("evidence", []), known)
            if not gold:
                continue
            t0 = time.perf_counter()
            ranked, query_class = ask(
                agent, user, qa["question"], max(KS), args.routing, args.fusion
            )
            recall_seconds += time.perf_counter() - t0
            for k in KS:
                found = len(set(gold) & set(ranked[:k]))
                scores[k].append(found / len(gold))
                by_category[(qa["category"], k)].append(found / len(gold))
                any_found[k].append(found > 0)
                all_found[k].append(found == len(gold))
            records.append(
                {
                    "question": qa["question"],
                    "category": qa["category"],
                    "gold": gold,
                    "top": ranked[: max(KS)],
                    "query_class": query_class,
                }
            )
        print(
            f"  conversation {index + 1}/{len(conversations)}: {len(scores[20])} questions "
            f"so far, R@20 {100 * statistics.mean(scores[20]):.1f}%",
            file=sys.stderr,
        )

    wall = time.perf_counter() - started
    n = len(scores[20])
    storage = "turns without sessions" if args.no_sessions else "one session per LoCoMo session"
    print(
        f"\n## LoCoMo evidence recall on {connection.vendor} "
        f"(routing={args.routing}, fusion={args.fusion}, {storage}, via {args.via})\n"
    )
    print(
        f"questions: {n} (denominator), turns stored: {turns}, wall time {wall:.0f} s "
        f"(ingest {ingest_seconds:.0f} s = {turns / ingest_seconds:.0f} turns/s, recall "
        f"{1000 * recall_seconds / n:.1f} ms/question)\n"
    )
    print(
        "| k | mean recall | any evidence | all evidence | "
        + " | ".join(CATEGORIES.values())
        + " |"
    )
    print("|---|---|---|---|" + "---|" * len(CATEGORIES))
    for k in KS:
        cats = " | ".join(f"{100 * statistics.mean(by_category[(c, k)]):.1f}" for c in CATEGORIES)
        print(
            f"| {k} | {100 * statistics.mean(scores[k]):.1f} | "
            f"{100 * statistics.mean(any_found[k]):.1f} | "
            f"{100 * statistics.mean(all_found[k]):.1f} | {cats} |"
        )
    if args.json:
        args.json.write_text(json.dumps(records, indent=1))


if __name__ == "__main__":
    main()
