"""Workspace isolation as a property: two workspaces work side by side, through their API
keys and their members' dashboard sessions, in generated sequences of operations, and each
tries the other's ids as it sees them.

Invariants, checked after every step:
- nothing of one workspace appears in an answer to the other: every text a workspace
  writes carries its own token, and the other's token is never in what it reads (ids,
  content, names, counts all come through lists that are checked against its own);
- another workspace's id is answered exactly like an id that never existed: the same
  status, the same code, the same message, with the id echoed only as the caller typed it;
- a write aimed at another workspace's object changes nothing of it.

The sequences are derandomized, so every run walks the same ones.
"""

import json
import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.db import transaction
from django.test import Client
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from facts.models import Fact
from memory.models import Memory, Session
from tenancy.models import MemberRole, Workspace, WorkspaceMember
from tests.conftest import ApiClient
from tests.factories import make_agent, make_key, make_workspace

pytestmark = pytest.mark.django_db

TOKENS = ("aardvark", "buffalo")
WORDS = ("garden", "invoice", "holiday", "piano")
# An id no object of any kind has: the answer every foreign id must be indistinguishable from.
MISSING_ID = 987_654_321
MISSING_AGENT = "nobody-bot"
FOREIGN_IDS_PER_PROBE = 3
# Every probe that was tried with at least one of the other side's ids.
PROBED: set[str] = set()
CSRF = re.compile(r'(csrfmiddlewaretoken" value="|"X-CSRFToken": ")[^"]+')

MEMORY_PROBES: list[tuple[str, str, Any]] = [
    ("get", "/v1/memories/{id}", None),
    ("get", "/v1/memories/{id}/entities", None),
    ("get", "/v1/memories/{id}/graph", None),
    ("get", "/v1/memories/{id}/feedback", None),
    ("patch", "/v1/memories/{id}", {"content": "overwritten", "importance": 0.1}),
    ("delete", "/v1/memories/{id}", None),
    ("post", "/v1/memories/{id}/feedback", {"kind": "downvote"}),
    ("post", "/v1/memories/{id}/links", {"target_id": MISSING_ID}),
]
FACT_PROBES: list[tuple[str, str, Any]] = [
    ("get", "/v1/facts/{id}", None),
    ("delete", "/v1/facts/{id}", None),
    ("post", "/v1/facts/{id}/resolve", {"action": "reject"}),
]
SESSION_PROBES: list[tuple[str, str, Any]] = [
    ("get", "/v1/sessions/{id}", None),
    ("get", "/v1/sessions/{id}/memories", None),
    ("post", "/v1/sessions/{id}/end", {}),
    ("post", "/v1/sessions/{id}/touch", {}),
]
# Creating an agent (POST /v1/agents, a first store or a session start) with an id another
# workspace holds creates the caller's own agent (ids are unique per workspace): that is tested in
# tests/tenancy/test_agent_ids_per_workspace.py, not here, where it would turn the other
# side's id into one the caller holds.
AGENT_PROBES: list[tuple[str, str, Any]] = [
    ("get", "/v1/agents/{id}", None),
    ("get", "/v1/agents/{id}/memories", None),
    ("get", "/v1/agents/{id}/entities", None),
    ("get", "/v1/agents/{id}/graph", None),
    ("get", "/v1/agents/{id}/feedback/summary", None),
    ("get", "/v1/agents/{id}/memory_policy", None),
    ("get", "/v1/facts?agent_id={id}", None),
    ("post", "/v1/memory/recall", {"agent_id": "{id}", "query": "garden"}),
    ("post", "/v1/context", {"agent_id": "{id}", "query": "garden"}),
    ("post", "/v1/facts/forget", {"agent_id": "{id}", "user": "someone", "dry_run": True}),
]
API_PROBES: dict[str, list[tuple[str, str, Any]]] = {
    "memory": MEMORY_PROBES,
    "fact": FACT_PROBES,
    "session": SESSION_PROBES,
    "agent": AGENT_PROBES,
}
# Ids in a request body: (label, path, kind of id, body(own agent, own memory, id)).
BODY_PROBES = [
    (
        "a memory stored into a session",
        "/v1/memories",
        "session",
        lambda agent, mine, i: {"agent_id": agent, "content": "x", "session_id": i},
    ),
    (
        "a recall within a session",
        "/v1/memory/recall",
        "session",
        lambda agent, mine, i: {"agent_id": agent, "query": "x", "session_id": i},
    ),
    (
        "memories forgotten by id",
        "/v1/memories/forget",
        "memory",
        lambda agent, mine, i: {"agent_id": agent, "ids": [i]},
    ),
    (
        "memories consolidated",
        "/v1/memories/consolidate",
        "memory",
        lambda agent, mine, i: {"agent_id": agent, "memory_ids": [mine, i]},
    ),
    (
        "a fact's source memory",
        "/v1/facts",
        "memory",
        lambda agent, mine, i: {
            "agent_id": agent,
            "subject": "user",
            "predicate": "pet",
            "value": "x",
            "source": {"kind": "conversation_summary", "memory_id": i},
        },
    ),
    ("a link's target", "/v1/memories/{mine}/links", "memory", lambda a, m, i: {"target_id": i}),
]
DASHBOARD_PROBES = {
    "memory": ["/app/memory/{id}/"],
    "fact": ["/app/facts/{id}/"],
    "entity": ["/app/memory/entities/{id}/"],
    "agent": ["/app/memory/?agent={id}", "/app/facts/?agent={id}"],
}
DASHBOARD_WRITES = {
    "memory": "/app/memory/{id}/delete/",
    "fact": "/app/facts/{id}/delete/",
}
DASHBOARD_PAGES = [
    "/app/facts/",
    "/app/review/",
    "/app/memory/",
    "/app/memory/sessions/",
    "/app/memory/entities/",
    # The search box and the filters' suggestions, with the first letter of each side's
    # names (the page repeats the text asked, so it must not be a side's whole token).
    "/app/search/?q=a",
    "/app/search/?q=b",
    "/app/facts/suggest/?field=user&q=a",
    "/app/facts/suggest/?field=user&q=b",
    "/app/facts/suggest/?field=subject&q=a",
]


@dataclass
class Side:
    token: str
    workspace: Workspace
    agent_id: str
    api: ApiClient
    manager: Client
    viewer: Client
    ids: dict[str, list[Any]] = field(default_factory=dict)

    def seen(self, kind: str) -> list[Any]:
        return self.ids.setdefault(kind, [])


def _side(token: str, django_user_model) -> Side:
    workspace = make_workspace(f"{token}-ws")
    agent = make_agent(workspace, f"{token}-bot")
    clients = {}
    for role in (MemberRole.MANAGER, MemberRole.VIEWER):
        user = django_user_model.objects.create_user(username=f"{token}-{role}")
        WorkspaceMember.objects.create(user=user, workspace=workspace, role=role)
        clients[role] = Client()
        clients[role].force_login(user)
    side = Side(
        token=token,
        workspace=workspace,
        agent_id=agent.agent_id,
        api=ApiClient(make_key(workspace)),
        manager=clients[MemberRole.MANAGER],
        viewer=clients[MemberRole.VIEWER],
    )
    side.seen("agent").append(agent.agent_id)
    return side


def _call(client: ApiClient, method: str, path: str, body: Any):
    if method == "get":
        return client.client.get(path, headers=client.headers)
    if method == "delete":
        return client.client.delete(path, headers=client.headers)
    send = client.client.post if method == "post" else client.client.patch
    return send(path, json.dumps(body), content_type="application/json", headers=client.headers)


def _fill(template: Any, value: Any) -> Any:
    if isinstance(template, str):
        return template.replace("{id}", str(value))
    if isinstance(template, dict):
        return {key: _fill(item, value) for key, item in template.items()}
    return template


def _text(response) -> str:
    if response.streaming:
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


HEAD = re.compile(r"<head>.*?</head>", re.S)


def _answer(response, typed: Any) -> tuple[int, Any]:
    """The status and the body, with the id the caller typed (and CSRF tokens, which differ
    on every page) written out, so two answers compare equal when only those differ."""
    echoed = re.compile(rf"(?<![\w-]){re.escape(str(typed))}(?![\w-])")

    def written_out(value: Any) -> Any:
        if isinstance(value, str):
            return echoed.sub("<typed id>", value)
        if isinstance(value, dict):
            return {key: written_out(item) for key, item in value.items()}
        if isinstance(value, list):
            return [written_out(item) for item in value]
        return "<typed id>" if value == typed and not isinstance(value, bool) else value

    text = _text(response)
    if response.get("Content-Type", "").startswith("application/json"):
        return response.status_code, written_out(json.loads(text))
    # The page's <head> is the layout's, the same for every page; left in, a typed id of 1
    # would be "written out" of its viewport's initial-scale=1 on one page and not another.
    body = HEAD.sub("<head>", text)
    return response.status_code, written_out(CSRF.sub(r"\1-", body))


class TwoWorkspaces(RuleBasedStateMachine):
    django_user_model: Any = None

    def __init__(self) -> None:
        super().__init__()
        # Each sequence starts from nothing: its writes are rolled back in teardown.
        self._atomic = transaction.atomic()
        self._atomic.__enter__()
        self.sides = [_side(token, self.django_user_model) for token in TOKENS]
        # Each side starts with one of everything, so the other has ids to try at once.
        for side in (0, 1):
            self.start_session(side)
            self.store_memory(side, WORDS[side], in_session=True)
            self.assert_fact(side, WORDS[side])

    def teardown(self) -> None:
        transaction.set_rollback(True)
        self._atomic.__exit__(None, None, None)

    # What a side reads must not hold anything of the other side.

    def read(self, side: int, response) -> Any:
        text = _text(response)
        assert response.status_code < 500, text
        other = self.sides[1 - side]
        assert other.token not in text.lower(), f"{other.token} leaked to {self.sides[side].token}"
        if response.get("Content-Type", "").startswith("application/json"):
            return json.loads(text)
        return None

    def like_missing(self, side: int, send, kind: str, probe: str) -> None:
        """``send(id)`` with every id of ``kind`` the other side has had answers exactly as
        with an id that never existed."""
        # The first id of each kind and the latest: enough to hit live, changed and deleted
        # objects while keeping each step's cost flat.
        seen = self.sides[1 - side].seen(kind)
        foreign = seen[:1] + seen[1:][-FOREIGN_IDS_PER_PROBE:]
        missing = MISSING_AGENT if kind == "agent" else MISSING_ID
        expected = _answer(send(missing), missing)
        assert expected[0] >= 400, expected
        for typed in foreign:
            assert _answer(send(typed), typed) == expected, (kind, typed)
        if foreign:
            PROBED.add(probe)

    # Writes of a side's own.

    @rule(side=st.sampled_from([0, 1]), word=st.sampled_from(WORDS), in_session=st.booleans())
    def store_memory(self, side: int, word: str, in_session: bool) -> None:
        me = self.sides[side]
        name = me.token.title()
        body: dict[str, Any] = {
            "agent_id": me.agent_id,
            "content": f"{name} Smith wrote about the {word} in {name}ville",
            "tags": [me.token, word],
            "user": f"{me.token}-user",
        }
        if in_session and me.seen("session"):
            body["session_id"] = me.seen("session")[-1]
        response = me.api.post("/v1/memories", body)
        stored = self.read(side, response)
        if response.status_code == 409:  # the session has ended
            return
        assert response.status_code == 201, stored
        me.seen("memory").append(stored["id"])
        entities = self.read(side, me.api.get(f"/v1/memories/{stored['id']}/entities"))
        for entity in entities:
            if entity["id"] not in me.seen("entity"):
                me.seen("entity").append(entity["id"])

    @rule(side=st.sampled_from([0, 1]), word=st.sampled_from(WORDS))
    def assert_fact(self, side: int, word: str) -> None:
        me = self.sides[side]
        body = {
            "agent_id": me.agent_id,
            "user": f"{me.token}-user",
            "subject": "user",
            "predicate": "hobby",
            "value": f"{me.token} {word}",
            "source": {"kind": "conversation_summary", "excerpt": f"{me.token} said so"},
        }
        found = self.read(side, me.api.post("/v1/facts", body))
        me.seen("fact").append(found["fact"]["id"])

    @rule(side=st.sampled_from([0, 1]))
    def start_session(self, side: int) -> None:
        me = self.sides[side]
        body = {"agent_id": me.agent_id, "user": f"{me.token}-user"}
        response = me.api.post("/v1/sessions", body)
        assert response.status_code == 201
        me.seen("session").append(self.read(side, response)["id"])

    # Reads of a side's own: only its own comes back.

    @rule(side=st.sampled_from([0, 1]), about=st.sampled_from([0, 1]), word=st.sampled_from(WORDS))
    def recall(self, side: int, about: int, word: str) -> None:
        me = self.sides[side]
        # The other side's words find nothing of theirs (the query is not echoed back).
        query = f"{self.sides[about].token} {word}"
        body = {"agent_id": me.agent_id, "query": query, "top_k": 50}
        found = self.read(side, me.api.post("/v1/memory/recall", body))
        assert {hit["id"] for hit in found["items"]} <= set(me.seen("memory"))
        context = {"agent_id": me.agent_id, "query": query, "user": f"{me.token}-user"}
        self.read(side, me.api.post("/v1/context", context))

    @rule(side=st.sampled_from([0, 1]))
    def list_own(self, side: int) -> None:
        me = self.sides[side]
        agents = self.read(side, me.api.get("/v1/agents"))
        assert [agent["agent_id"] for agent in agents] == [me.agent_id]
        page = self.read(side, me.api.get(f"/v1/agents/{me.agent_id}/memories", limit=200))
        live = Memory.objects.filter(agent__workspace=me.workspace).values_list("pk", flat=True)
        assert {item["id"] for item in page["items"]} == set(live)
        facts = self.read(side, me.api.get("/v1/facts", agent_id=me.agent_id, limit=200))
        assert {item["id"] for item in facts["items"]} <= set(me.seen("fact"))
        entities = self.read(side, me.api.get(f"/v1/agents/{me.agent_id}/entities", limit=200))
        assert {item["id"] for item in entities["items"]} <= set(me.seen("entity"))
        self.read(side, me.api.get(f"/v1/agents/{me.agent_id}/graph"))
        network = self.read(side, me.api.get("/v1/graph/network"))
        assert [agent["agent_id"] for agent in network["agents"]] in ([], [me.agent_id])
        health = self.read(side, me.api.get("/v1/feedback/health"))
        assert {row["agent_id"] for row in health["agents_most_negative"]} <= {me.agent_id}
        forget = {"agent_id": me.agent_id, "user": f"{me.token}-user", "dry_run": True}
        self.read(side, me.api.post("/v1/facts/forget", forget))

    @rule(side=st.sampled_from([0, 1]), role=st.sampled_from(["manager", "viewer"]))
    def dashboard_pages(self, side: int, role: str) -> None:
        me = self.sides[side]
        client = getattr(me, role)
        for page in DASHBOARD_PAGES:
            response = client.get(page)
            assert response.status_code == 200, page
            self.read(side, response)

    # The other side's ids: answered as ids that never existed, and nothing of theirs moves.

    @rule(side=st.sampled_from([0, 1]), kind=st.sampled_from(sorted(API_PROBES)))
    def try_foreign_ids_by_api(self, side: int, kind: str) -> None:
        me = self.sides[side]
        before = self.snapshot(1 - side)
        for method, template, body in API_PROBES[kind]:

            def send(typed, method=method, template=template, body=body):
                return _call(me.api, method, _fill(template, typed), _fill(body, typed))

            self.like_missing(side, send, kind, f"{method} {template}")
        assert self.snapshot(1 - side) == before

    @rule(side=st.sampled_from([0, 1]))
    def try_foreign_ids_in_a_body(self, side: int) -> None:
        """Ids of the other side inside a request body: a session to store into, a memory to
        link to or to forget, a fact's source memory."""
        me = self.sides[side]
        before = self.snapshot(1 - side)
        mine = me.seen("memory")[0]
        for label, path, kind, body in BODY_PROBES:

            def send(typed, path=path, body=body):
                return me.api.post(path.format(mine=mine), body(me.agent_id, mine, typed))

            self.like_missing(side, send, kind, label)
        assert self.snapshot(1 - side) == before

    @rule(side=st.sampled_from([0, 1]), kind=st.sampled_from(sorted(DASHBOARD_PROBES)))
    def try_foreign_ids_on_the_dashboard(self, side: int, kind: str) -> None:
        me = self.sides[side]
        before = self.snapshot(1 - side)
        for role in ("manager", "viewer"):
            client = getattr(me, role)
            for page in DASHBOARD_PROBES[kind]:

                def send(typed, client=client, page=page):
                    return client.get(_fill(page, typed))

                self.like_missing(side, send, kind, f"{role} GET {page}")
            if kind in DASHBOARD_WRITES:

                def post(typed, client=client, write=DASHBOARD_WRITES[kind]):
                    return client.post(_fill(write, typed))

                self.like_missing(side, post, kind, f"{role} POST {DASHBOARD_WRITES[kind]}")
        assert self.snapshot(1 - side) == before

    def snapshot(self, side: int) -> tuple:
        workspace = self.sides[side].workspace
        memories = Memory.objects.filter(agent__workspace=workspace)
        facts = Fact.objects.filter(agent__workspace=workspace)
        sessions = Session.objects.filter(agent__workspace=workspace)
        return (
            sorted(memories.values_list("pk", "content", "importance", "metadata")),
            sorted(facts.values_list("pk", "status", "value")),
            sorted(sessions.values_list("pk", "state")),
        )

    @invariant()
    def keys_see_only_their_own_agents(self) -> None:
        for side, me in enumerate(self.sides):
            agents = self.read(side, me.api.get("/v1/agents"))
            assert [agent["agent_id"] for agent in agents] == [me.agent_id]


def test_two_workspaces_never_see_each_other(django_user_model):
    TwoWorkspaces.django_user_model = django_user_model
    PROBED.clear()
    run_state_machine_as_test(
        TwoWorkspaces,
        settings=settings(
            max_examples=6,
            stateful_step_count=25,
            derandomize=True,
            database=None,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            # A failure is reported as generated: shrinking sequences that each go through
            # the whole stack takes many minutes.
            phases=[Phase.explicit, Phase.reuse, Phase.generate],
        ),
    )
    # The sequences tried every probe with ids that exist in the other workspace.
    api = {f"{method} {path}" for probes in API_PROBES.values() for method, path, _ in probes}
    bodies = {label for label, *_ in BODY_PROBES}
    pages = {page for pages in DASHBOARD_PROBES.values() for page in pages}
    dashboard = {f"{role} GET {page}" for role in ("manager", "viewer") for page in pages}
    dashboard |= {
        f"{role} POST {page}"
        for role in ("manager", "viewer")
        for page in DASHBOARD_WRITES.values()
    }
    assert api | bodies | dashboard <= PROBED, sorted((api | bodies | dashboard) - PROBED)
