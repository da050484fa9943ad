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

With ``--no-sessions`` each turn is stored without a session, created at its LoCoMo
session's date, the turns of a session TURN_SPACING apart in their order; the text is the
same (date, speaker, caption).

With ``--plain-client`` the whole run goes through the REST API the way the plainest client
uses it: each turn stored on its own (``POST /v1/memories`` with the agent, the user and
"Speaker: text", nothing else: no session, no date, no image caption, no source reference,
stored now in the conversation's order), then each question asked with
``POST /v1/memory/recall`` and only the agent, the user, the query and top_k. The bench maps
each stored memory's id back to its turn on its own side.

The report gives every figure for all ten conversations and for the two halves apart:
conversations 1-5 are the ones constants may be tuned on, 6-10 are only scored.
"""

import argparse
import json
import logging
import os
import re
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
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
# The REST stores queue their graph jobs (built below, as the worker would): no line each.
logging.getLogger("django-q").setLevel(logging.WARNING)

from django.core.management import call_command  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import override_settings  # noqa: E402

from dewee.cli.progress import with_progress  # noqa: E402
from memory.recall import Audience, RecallFilters, RecallRequest, recall  # noqa: E402
from memory.services import MemoryInput, start_session, store_memories  # noqa: E402
from memory.services.graph_rebuild import build_pending_graph  # noqa: E402
from tenancy.models import Agent  # noqa: E402
from tenancy.services import create_api_key, default_workspace, ensure_agent  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "bench" / "locomo" / "locomo10.json"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10, 20, 50)
# Constants and models are tuned on conversations 1-5 only; 6-10 are scored, never tuned on.
TUNED_ON = range(0, 5)
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


def _post(url: str, key: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        f"{url}{path}",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        return dict(json.load(answer))


def ingest_as_a_plain_client(
    conversation: dict[str, Any], agent: Agent, *, user: str, url: str, key: str
) -> tuple[set[str], dict[int, str]]:
    """Each turn POSTed alone as "Speaker: text"; returns the turns and memory id -> turn."""
    conv = conversation["conversation"]
    known: set[str] = set()
    turn_of: dict[int, str] = {}
    numbers = sorted(
        int(key.split("_")[1]) for key in conv if re.fullmatch(r"session_\d+", key) and conv[key]
    )
    for number in numbers:
        for turn in conv[f"session_{number}"]:
            known.add(turn["dia_id"])
            body = {
                "agent_id": agent.agent_id,
                "user": user,
                "content": f"{turn['speaker']}: {turn['text']}",
            }
            turn_of[int(_post(url, key, "/v1/memories", body)["id"])] = turn["dia_id"]
    # The graph, as the worker's jobs build it after the stores.
    while build_pending_graph(agent=agent).more:
        pass
    return known, turn_of


def ask_as_a_plain_client(
    url: str, key: str, turn_of: dict[int, str], agent: Agent, user: str, query: str, top_k: int
) -> tuple[list[str], str]:
    body = {"agent_id": agent.agent_id, "user": user, "query": query, "top_k": top_k}
    result = _post(url, key, "/v1/memory/recall", body)
    return [turn_of[item["id"]] for item in result["items"] if item["id"] in turn_of], result[
        "query_class"
    ]


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
        result = _post(url, key, "/v1/memory/recall", body)
        return [ref for hit in result["items"] for ref in hit["source_refs"]], result["query_class"]

    return ask_rest


def _result(
    index: int, qa: dict[str, Any], gold: list[str], ranked: list[str], query_class: str
) -> dict[str, Any]:
    return {
        "conversation": index + 1,
        "question": qa["question"],
        "category": qa["category"],
        "gold": gold,
        "top": ranked[: max(KS)],
        "query_class": query_class,
        "found": {k: len(set(gold) & set(ranked[:k])) / len(gold) for k in KS},
    }


def report(title: str, results: list[dict[str, Any]]) -> None:
    """One table: mean recall, any / all evidence found and each category, per k."""
    if not results:
        return
    print(f"\n### {title} ({len(results)} questions)\n")
    print(
        "| k | mean recall | any evidence | all evidence | "
        + " | ".join(CATEGORIES.values())
        + " |"
    )
    print("|---|---|---|---|" + "---|" * len(CATEGORIES))
    for k in KS:
        fractions = [r["found"][k] for r in results]
        cats = []
        for category in CATEGORIES:
            of_category = [r["found"][k] for r in results if r["category"] == category]
            cats.append(f"{100 * statistics.mean(of_category):.1f}" if of_category else "-")
        print(
            f"| {k} | {100 * statistics.mean(fractions):.1f} | "
            f"{100 * statistics.mean(f > 0 for f in fractions):.1f} | "
            f"{100 * statistics.mean(f == 1 for f in fractions):.1f} | {' | '.join(cats)} |"
        )


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
        help="Store each turn without a session (still dated, with speaker and caption).",
    )
    parser.add_argument(
        "--plain-client",
        action="store_true",
        help="Store and ask over REST as the plainest client: one turn per call, no session, "
        "date, caption or reference; recall with defaults.",
    )
    parser.add_argument(
        "--first-stage-too",
        action="store_true",
        help="Ask every question a second time with the learned ranker off, and report both.",
    )
    args = parser.parse_args()
    if not args.data.exists():
        sys.exit(f"LoCoMo data not found at {args.data}; pass --data PATH")

    call_command("migrate", verbosity=0)
    conversations = json.loads(args.data.read_text())[: args.conversations]
    workspace = default_workspace()
    run = time.strftime("%Y%m%d%H%M%S")
    ask: Ask = ask_the_service
    url = secret = ""
    if args.via != "service" or args.plain_client:
        _server, url = serve_in_a_thread()
        _key, secret = create_api_key(
            workspace=workspace, name=f"locomo-{run}", actor="bench", scopes=["read", "write"]
        )
        ask = over_http(args.via, url, secret)

    def asked(agent: Agent, user: str, turn_of: dict[int, str], question: str) -> Any:
        if args.plain_client:
            return ask_as_a_plain_client(url, secret, turn_of, agent, user, question, max(KS))
        return ask(agent, user, question, max(KS), args.routing, args.fusion)

    started = time.perf_counter()
    results: list[dict[str, Any]] = []
    first_stage: list[dict[str, Any]] = []
    ingest_seconds = recall_seconds = 0.0
    turns = 0
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
        if args.plain_client:
            known, turn_of = ingest_as_a_plain_client(
                conversation, agent, user=user, url=url, key=secret
            )
        else:
            known = ingest(conversation, agent, user=user, sessions=not args.no_sessions)
            turn_of = {}
        ingest_seconds += time.perf_counter() - t0
        turns += len(known)
        for qa in conversation["qa"]:
            if qa.get("category") not in CATEGORIES:
                continue
            gold = clean_evidence(qa.get("evidence", []), known)
            if not gold:
                continue
            t0 = time.perf_counter()
            ranked, query_class = asked(agent, user, turn_of, qa["question"])
            recall_seconds += time.perf_counter() - t0
            results.append(_result(index, qa, gold, ranked, query_class))
            if args.first_stage_too:
                with override_settings(DEWEE_RECALL_RANKER="off"):
                    ranked, query_class = asked(agent, user, turn_of, qa["question"])
                first_stage.append(_result(index, qa, gold, ranked, query_class))
        print(
            f"  conversation {index + 1}/{len(conversations)}: {len(results)} questions "
            f"so far, R@20 {100 * statistics.mean(r['found'][20] for r in results):.1f}%",
            file=sys.stderr,
        )

    wall = time.perf_counter() - started
    n = len(results)
    if args.plain_client:
        storage = "a plain client over REST: one turn per call, no session, date or caption"
    elif args.no_sessions:
        storage = f"turns without sessions, via {args.via}"
    else:
        storage = f"one session per LoCoMo session, via {args.via}"
    print(
        f"\n## LoCoMo evidence recall on {connection.vendor} "
        f"(routing={args.routing}, fusion={args.fusion}, {storage})\n"
    )
    print(
        f"questions: {n} (denominator), turns stored: {turns}, wall time {wall:.0f} s "
        f"(ingest {ingest_seconds:.0f} s = {turns / ingest_seconds:.0f} turns/s, recall "
        f"{1000 * recall_seconds / n:.1f} ms/question)"
    )
    for title, found in (("", results), ("First stage only (no ranker): ", first_stage)):
        if not found:
            continue
        report(f"{title}All conversations", found)
        tuned = [r for r in found if r["conversation"] - 1 in TUNED_ON]
        report(f"{title}Conversations 1-5 (tuned on)", tuned)
        report(f"{title}Conversations 6-10 (never tuned on)", [r for r in found if r not in tuned])
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
